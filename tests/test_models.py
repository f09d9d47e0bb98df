"""Back-end selection and structured calls: auto resolution, retries, the llama.cpp signature."""

from __future__ import annotations

from pydantic import BaseModel

from queryweave.config import Context
from queryweave.models import ModelSettings, call_structured, get_chat_model, model_settings, resolve_backend
from queryweave.testing import ScriptedChatModel


class Pick(BaseModel):
    intent: str


def test_auto_resolves_to_rules_without_configuration(monkeypatch, tmp_path):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    ctx = Context(data_dir=str(tmp_path), llm="auto", openai_base_url="", llamacpp_model_path="")
    assert resolve_backend(ctx) == "rules" and get_chat_model(ctx) is None
    assert resolve_backend(Context(data_dir=str(tmp_path), llm="auto", openai_base_url="http://127.0.0.1:9/v1")) == "openai"


def test_the_model_layer_gets_model_settings_not_the_context(monkeypatch, tmp_path):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    ctx = Context(data_dir=str(tmp_path), llm="openai", openai_base_url="http://127.0.0.1:9/v1",
                  openai_model="m", llamacpp_model_path="x.gguf", llm_timeout_s=7)
    s = ctx.model_settings()
    assert s == ModelSettings(llm="openai", openai_base_url="http://127.0.0.1:9/v1", openai_model="m",
                              llamacpp_model_path="x.gguf", llm_timeout_s=7.0)
    assert model_settings(s) is s and model_settings(ctx) == s  # a Context still works where settings go
    assert resolve_backend(ModelSettings(llm="auto")) == "rules"
    assert resolve_backend(ModelSettings(llm="auto", openai_base_url="http://127.0.0.1:9/v1")) == "openai"
    assert get_chat_model(ModelSettings(llm="rules")) is None


def test_structured_call_retries_then_reports(monkeypatch):
    monkeypatch.setattr("queryweave.models.time.sleep", lambda s: None)
    fake = ScriptedChatModel(responses=[RuntimeError("HTTP 500"), {"intent": "factual"}])
    res = call_structured(fake, Pick, "q", retries=2)
    assert res.value == Pick(intent="factual") and len(fake.calls) == 2
    bad = ScriptedChatModel(responses=[{"wrong": 1}])
    res = call_structured(bad, Pick, "q", retries=1)
    assert res.value is None and "ValidationError" in res.error


class ChatLlamaCpp(ScriptedChatModel):
    """Stands in for langchain_community's ChatLlamaCpp, whose with_structured_output takes no `method`."""

    def with_structured_output(self, schema, **kwargs):  # type: ignore[override]
        if "method" in kwargs:
            raise ValueError(f"Received unsupported arguments {kwargs}")
        return super().with_structured_output(schema)


def test_llamacpp_structured_output_without_method():
    fake = ChatLlamaCpp(responses=[{"intent": "fuzzy"}])
    assert call_structured(fake, Pick, "q", retries=0).value == Pick(intent="fuzzy")
