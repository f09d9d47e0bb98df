"""A scripted fake chat model for tests and notebooks: no network, deterministic answers.

`ScriptedChatModel(responses=[...])` answers each call with the next response. A `dict` response
becomes a tool call (so `with_structured_output(..., method="function_calling")` parses it); a `str`
becomes plain content; a callable gets the messages and returns either. An `Exception` instance is
raised (to test fault handling). The last response repeats once the script runs out.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field


class ScriptedChatModel(BaseChatModel):
    """A chat model that replays a script of responses and records every prompt it was sent."""

    responses: list[Any] = Field(default_factory=list)
    calls: list[list[BaseMessage]] = Field(default_factory=list)
    call_options: list[dict[str, Any]] = Field(default_factory=list)  # what each call was bound with (temperature, seed)
    tool_name: str | None = None
    position: int = 0

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedChatModel:
        """Remember the tool name so structured-output parsing finds the call."""
        from langchain_core.utils.function_calling import convert_to_openai_tool

        name = convert_to_openai_tool(tools[0])["function"]["name"] if tools else None
        clone = self.model_copy()
        clone.tool_name = name
        clone.responses = self.responses
        clone.calls = self.calls
        clone._parent = self  # type: ignore[attr-defined]
        return clone

    def _next(self) -> Any:
        root = getattr(self, "_parent", self)
        if not root.responses:
            return ""
        i = min(root.position, len(root.responses) - 1)
        root.position += 1
        return root.responses[i]

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        self.calls.append(list(messages))
        getattr(self, "_parent", self).call_options.append(dict(kwargs))
        response = self._next()
        if isinstance(response, Callable) and not isinstance(response, type):
            response = response(messages)
        if isinstance(response, BaseException):
            raise response
        if isinstance(response, dict):
            msg = AIMessage(
                content="",
                tool_calls=[{"name": self.tool_name or "tool", "args": response, "id": f"call_{len(self.calls)}"}],
            )
        else:
            msg = AIMessage(content=str(response))
        return ChatResult(generations=[ChatGeneration(message=msg)])


MODEL_NODES = ("route", "structured", "self_query", "generate", "necessity", "analyze", "resolve", "reflect",
               "respond_direct")


def use_model_in_nodes(monkeypatch: Any, model: BaseChatModel, nodes: Sequence[str] = MODEL_NODES) -> None:
    """Make every graph node in `nodes` that asks `get_chat_model` for its model get `model` instead
    (`monkeypatch` is pytest's fixture)."""
    import importlib

    for mod in nodes:
        name = f"queryweave.nodes.{mod}"
        if hasattr(importlib.import_module(name), "get_chat_model"):
            monkeypatch.setattr(f"{name}.get_chat_model", lambda c: model)
