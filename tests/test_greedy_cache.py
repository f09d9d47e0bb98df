"""Evaluation runs ask a temperature-0 prompt once; sampled calls are never cached."""

from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration
from langchain_openai import ChatOpenAI

from queryweave.eval.greedy_cache import GreedyCache, greedy


def _model(**kw) -> ChatOpenAI:
    return ChatOpenAI(model="qwen", base_url="http://127.0.0.1:9/v1", api_key="x", **kw)


def test_greedy_reads_the_calls_temperature_before_the_models():
    m = _model(temperature=0)
    assert greedy(m._get_llm_string()) and greedy(m._get_llm_string(temperature=0.0))
    assert not greedy(m._get_llm_string(temperature=0.3))
    assert not greedy(_model(temperature=0.7)._get_llm_string())
    assert greedy(_model(temperature=0.7)._get_llm_string(temperature=0))
    assert not greedy(_model()._get_llm_string())  # the server's default temperature is not 0


def test_only_greedy_calls_are_stored():
    cache, m = GreedyCache(), _model(temperature=0)
    reply = [ChatGeneration(message=AIMessage("SELECT 1"))]
    cache.update("p", m._get_llm_string(), reply)
    cache.update("p", m._get_llm_string(temperature=0.3), reply)
    assert cache.lookup("p", m._get_llm_string()) == reply
    assert cache.lookup("p", m._get_llm_string(temperature=0.3)) is None
    assert cache.lookup("other prompt", m._get_llm_string()) is None


def test_the_file_cache_outlives_its_run_and_keeps_greedy_calls_only(tmp_path):
    from queryweave.eval.greedy_cache import GreedyFileCache

    path, m = str(tmp_path / "replies.sqlite"), _model(temperature=0)
    reply = [ChatGeneration(message=AIMessage("SELECT 1"))]
    first = GreedyFileCache(path)
    first.update("p", m._get_llm_string(), reply)
    first.update("q", m._get_llm_string(temperature=0.7), reply)
    again = GreedyFileCache(path)  # a later run
    found = again.lookup("p", m._get_llm_string())
    assert found and found[0].message.content == "SELECT 1"
    assert again.lookup("q", m._get_llm_string(temperature=0.7)) is None
