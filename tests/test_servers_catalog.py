"""The catalog in a running PostgreSQL server (`QUERYWEAVE_CATALOG_URL` / `QUERYWEAVE_DATABASE_URL`): the
behaviour tests of the SQLite catalog (tests/test_stores.py, imported: ingest, re-ingest, update, delete,
reconcile) over `PgCatalog`, plus what only a shared catalog has: knowledge bases keyed by name in one
database, the one-time import of an existing `catalog.sqlite`, crash recovery after SIGKILL, `stats`, and
a question answered through the graph from a document that is only in PostgreSQL.
"""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
import threading
import uuid
from pathlib import Path

import pytest
import test_crash_safety as crash
from test_stores import (  # noqa: F401 - collected here with this module's `fresh`
    test_changed_file_replaces_its_chunks,
    test_delete_removes_from_every_store,
    test_ingest_fills_every_store,
    test_missing_path_is_a_clear_error,
    test_reconcile_repairs_orphans_and_missing,
    test_reingest_changes_nothing,
)

from queryweave.config import Context
from queryweave.tools.ingest.pipeline import delete_sources, ingest
from queryweave.tools.stores import catalogs
from queryweave.tools.stores.catalog import ChunkRecord
from queryweave.tools.stores.catalog_pg import DOCS, PgCatalog
from queryweave.tools.stores.kb import KnowledgeBase

pytest.importorskip("psycopg_pool", reason="the postgres extra is not installed")
pytestmark = pytest.mark.servers
ZEPHYR = """---
title: Zephyr quota manager
---
# Zephyr quota manager

The Zephyr quota manager caps each tenant at 42 concurrent uploads and rejects the rest with HTTP 429.
"""


@pytest.fixture(scope="module")
def catalog_db(pg_server) -> str:
    """One database for the module: every test keeps its own knowledge bases in it, by name."""
    return pg_server.create_database(f"cat_{uuid.uuid4().hex[:8]}")


@pytest.fixture()
def name() -> str:
    return f"kb_{uuid.uuid4().hex[:8]}"


@pytest.fixture()
def fresh(tmp_path: Path, corpus_dir: Path, catalog_db: str, name: str) -> tuple[KnowledgeBase, Path]:
    """test_stores' fixture: a new knowledge base, its catalog in PostgreSQL (nothing in the data dir)."""
    corpus = tmp_path / "corpus"
    shutil.copytree(corpus_dir, corpus)
    kb = KnowledgeBase(tmp_path / "data", "usem3", catalog_url=catalog_db, kb_name=name)
    assert isinstance(kb.catalog, PgCatalog) and kb.catalog.kb == name
    yield kb, corpus
    assert not (tmp_path / "data" / "catalog.sqlite").exists()


def _add(kb: KnowledgeBase, folder: Path, text: str = ZEPHYR) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "zephyr.md").write_text(text, encoding="utf-8")
    ingest(kb, [folder])
    return folder


def test_stats_name_the_database_without_its_password(fresh, catalog_db, name):
    kb, corpus = fresh
    ingest(kb, [corpus])
    stats = kb.stats()
    assert stats["documents"] == 6 and stats["stores"]["catalog"] == {"url": catalog_db, "kb": name,
                                                                      "chunks": stats["chunks"]}
    with_password = catalog_db.replace("postgres@", "postgres:hunter2@")
    assert "hunter2" not in json.dumps(KnowledgeBase(kb.data_dir, "usem3", catalog_url=with_password,
                                                     kb_name=name).stats())


def test_same_name_shares_documents_other_names_do_not(tmp_path, corpus_dir, catalog_db, name):
    a = KnowledgeBase(tmp_path / "host-a", "usem3", catalog_url=catalog_db, kb_name=name)
    ingest(a, [corpus_dir])
    b = KnowledgeBase(tmp_path / "host-b", "usem3", catalog_url=catalog_db, kb_name=name)
    assert b.catalog.sources() == a.catalog.sources() and len(b.catalog.sources()) == 6
    assert b.catalog.chunk_ids() == a.catalog.chunk_ids()
    source = next(s for s in a.catalog.sources() if s.endswith("asyncio.md"))
    assert delete_sources(a, [source]) == 1
    assert source not in b.catalog.sources() and b.catalog.get_meta("version") == a.catalog.get_meta("version")
    other = KnowledgeBase(tmp_path / "host-c", "usem3", catalog_url=catalog_db, kb_name=name + "_other")
    default = KnowledgeBase(tmp_path / "host-d", "usem3", catalog_url=catalog_db)  # name from its data dir
    assert other.catalog.counts() == default.catalog.counts() == (0, 0)
    assert default.kb_name == catalogs.default_kb_name(tmp_path / "host-d") != name
    assert b.topic_titles() == a.topic_titles() and b.language_mix() == a.language_mix()


def test_sources_prefix_is_literal(catalog_db, name):
    cat = PgCatalog(catalog_db, name)
    for source in ("a_b/one.md", "axb/two.md", "100%/three.md", "Docs/four.md"):
        cat.replace_document(source, "fp", source, {}, [ChunkRecord(source + "#0", source, 0, "t\x00ext", "H")])
    assert cat.sources("a_b/") == ["a_b/one.md"] and cat.sources("100%") == ["100%/three.md"]
    assert cat.sources("docs/") == [] and cat.sources() == ["100%/three.md", "Docs/four.md", "a_b/one.md",
                                                              "axb/two.md"]  # byte order, as in SQLite
    assert cat.get_chunks(["a_b/one.md#0"])["a_b/one.md#0"].text == "text"  # NUL dropped, not an error


def test_replace_document_is_one_transaction(catalog_db, name, monkeypatch):
    cat = PgCatalog(catalog_db, name)
    old = [ChunkRecord(f"old{i}", "doc.md", i, f"old {i}") for i in range(3)]
    cat.replace_document("doc.md", "v1", "Doc", {}, old)
    version = cat.get_meta("version")

    def crash(conn):
        raise RuntimeError("killed inside the transaction")

    monkeypatch.setattr(cat, "_bump", crash)  # after the DELETE and the INSERTs, before the commit
    with pytest.raises(RuntimeError):
        cat.replace_document("doc.md", "v2", "Doc", {}, [ChunkRecord("new0", "doc.md", 0, "new")])
    with pytest.raises(RuntimeError):
        cat.delete_document("doc.md")
    assert cat.chunk_ids("doc.md") == ["old0", "old1", "old2"] and cat.document_fingerprint("doc.md") == "v1"
    assert cat.get_meta("version") == version


def test_iter_chunks_pages_in_document_order(catalog_db, name, monkeypatch):
    from queryweave.tools.stores import catalog_pg

    monkeypatch.setattr(catalog_pg, "PAGE", 3)
    cat = PgCatalog(catalog_db, name)
    for d in ("b.md", "a.md", "c.md"):
        cat.replace_document(d, "fp", d, {}, [ChunkRecord(f"{d}{i}", d, i, f"{d} {i}") for i in range(4)])
    got = [(c.source, c.ord) for c in cat.iter_chunks()]
    assert got == [(d, i) for d in ("a.md", "b.md", "c.md") for i in range(4)]
    assert len(cat.get_chunks([f"a.md{i}" for i in range(4)] + ["missing"])) == 4
    assert [c for c, _ in cat.first_chunk_texts()] == ["a.md", "b.md", "c.md"]


def test_one_time_import_of_an_existing_sqlite_catalog(tmp_path, corpus_dir, catalog_db, name, caplog):
    data = tmp_path / "data"
    sqlite_kb = KnowledgeBase(data, "usem3", catalog_url="")
    ingest(sqlite_kb, [corpus_dir])
    sqlite_file = data / "catalog.sqlite"
    sqlite_kb.catalog.close()
    digest = hashlib.sha256(sqlite_file.read_bytes()).hexdigest()
    old = sqlite_kb.catalog = catalogs.open_catalog(data, read_only=True)
    with caplog.at_level(logging.WARNING, logger="queryweave.tools.stores.catalog_pg"):
        opened: list[PgCatalog] = []  # three workers starting at once
        threads = [threading.Thread(target=lambda: opened.append(PgCatalog(catalog_db, name, import_from=sqlite_file)))
                   for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        pg = KnowledgeBase(data, "usem3", catalog_url=catalog_db, kb_name=name)
    assert len(opened) == 3 and sum("imported" in r.getMessage() for r in caplog.records) == 1  # once, logged
    assert pg.catalog.counts() == old.counts() and pg.catalog.chunk_ids() == old.chunk_ids()
    assert list(pg.catalog.documents()) == list(old.documents())
    assert pg.catalog.get_chunks(old.chunk_ids()) == old.get_chunks(old.chunk_ids())
    for key in ("embedding", "version", "bm25_version", "dense_stamp"):
        assert pg.catalog.get_meta(key) == old.get_meta(key), key
    assert pg.topic_titles() == sqlite_kb.topic_titles() and pg.language_mix() == sqlite_kb.language_mix()
    assert pg.bm25_search("max_connections", 1) == sqlite_kb.bm25_search("max_connections", 1)  # derived stores kept

    _add(pg, tmp_path / "new")  # written to PostgreSQL only
    again = KnowledgeBase(data, "usem3", catalog_url=catalog_db, kb_name=name)  # not imported a second time
    assert again.catalog.counts()[0] == old.counts()[0] + 1
    assert again.catalog.import_sqlite(sqlite_file) is None
    assert hashlib.sha256(sqlite_file.read_bytes()).hexdigest() == digest  # the SQLite file is left as it was
    old.close()


def test_a_question_through_the_graph_is_answered_from_postgresql(tmp_path, corpus_dir, catalog_db, name):
    from queryweave.graph.builder import graph

    data = tmp_path / "data"
    ingest(KnowledgeBase(data, "usem3", catalog_url=""), [corpus_dir])  # an existing data dir ...
    ctx = Context(data_dir=str(data), llm="rules", embedding="usem3", database_url=catalog_db, kb_name=name)
    catalogs.configure_from(ctx)  # as the server does: the nodes open the catalog this context names
    try:
        kb = KnowledgeBase(data, "usem3", catalog_url=catalog_db, kb_name=name)
        _add(kb, tmp_path / "new")  # ... whose new document is only in PostgreSQL
        assert not any(s.endswith("zephyr.md") for s in catalogs.open_catalog(data, read_only=True).sources())
        out = graph.invoke({"question": "How many concurrent uploads does the Zephyr quota manager allow?"},
                           context=ctx)
        assert "42" in out["answer"] and "[1]" in out["answer"]
        assert out["citations"][0]["source"].endswith("zephyr.md")
        first = graph.invoke({"question": "What is the default value of max_connections?"}, context=ctx)
        assert "100" in first["answer"] and first["citations"][0]["source"].endswith("postgres-pool.md")
    finally:
        catalogs._CONFIGURED.pop(catalogs._key(data), None)


def test_a_new_data_dir_with_its_catalog_in_postgresql_answers(tmp_path, corpus_dir, catalog_db, name):
    from queryweave.graph.builder import graph

    data = tmp_path / "data"
    ctx = Context(data_dir=str(data), llm="rules", embedding="usem3", catalog_url=catalog_db, kb_name=name)
    catalogs.configure_from(ctx)
    try:
        ingest(KnowledgeBase(data, "usem3", catalog_url=catalog_db, kb_name=name), [corpus_dir])
        assert catalogs.has_catalog(data, catalog_db, name) and not catalogs.has_catalog(data, catalog_db, "nope")
        out = graph.invoke({"question": "What is the default value of max_connections?"}, context=ctx)
        assert "100" in out["answer"]
    finally:
        catalogs._CONFIGURED.pop(catalogs._key(data), None)


@pytest.fixture()
def pg_env(monkeypatch, catalog_db, name) -> None:
    """The catalog settings in the environment, as a deployment sets them (the CLI subprocesses read them)."""
    monkeypatch.setenv("QUERYWEAVE_CATALOG_URL", catalog_db)
    monkeypatch.setenv("QUERYWEAVE_KB_NAME", name)


PG_KILL = ("from queryweave.tools.stores.catalog_pg import PgCatalog\n"
           "    PgCatalog.replace_document = killing(PgCatalog.replace_document)")
PG_KILL_IN_TRANSACTION = ("from queryweave.tools.stores.catalog_pg import PgCatalog\n"
                          "    PgCatalog._bump = killing(PgCatalog._bump)")


@pytest.mark.parametrize("patch", [PG_KILL, PG_KILL_IN_TRANSACTION], ids=["before-commit", "inside-transaction"])
def test_sigkill_mid_ingest_then_rerun_is_consistent(tmp_path, monkeypatch, pg_env, catalog_db, name, patch):
    """SIGKILL of `queryweave ingest` between a batch's vectors and its catalog transaction, or inside that
    transaction: PostgreSQL keeps no half document; the next run repairs Chroma and BM25 (test_crash_safety)."""
    monkeypatch.setattr(crash, "FAULTY_INGEST", crash.FAULTY_INGEST.replace(
        "catalog.Catalog.replace_document = killing(catalog.Catalog.replace_document)", patch))
    data, corpus = tmp_path / "kb", crash.write_corpus(tmp_path)
    crash.faulty_ingest(data, corpus, "catalog", 17)  # batch 2: its vectors are in Chroma, not in the catalog
    cat = PgCatalog(catalog_db, name, read_only=True)
    docs = list(cat.documents())
    assert 0 < len(docs) < crash.N_DOCS and all(len(cat.chunk_ids(d["source"])) == d["n_chunks"] for d in docs)
    assert not (data / "catalog.sqlite").exists()
    crash.forget(data)
    assert crash.rerun(data, corpus) == 0
    crash.assert_consistent(data, corpus)
    assert PgCatalog(catalog_db, name).counts()[0] == crash.N_DOCS


def test_crash_between_catalog_update_and_stale_vector_delete(tmp_path, pg_env, catalog_db, name):
    data, corpus = tmp_path / "kb", crash.write_corpus(tmp_path)
    before = crash.faulty_ingest(data, corpus, "stale", 1, modify="part1/note20.md")
    assert before["before"]
    crash.forget(data)
    assert crash.rerun(data, corpus) == 0
    crash.assert_consistent(data, corpus)
    assert PgCatalog(catalog_db, name).counts()[0] == crash.N_DOCS
    assert not (data / "catalog.sqlite").exists()


def test_two_names_in_one_database_do_not_see_each_other(catalog_db, name):
    a, b = PgCatalog(catalog_db, name), PgCatalog(catalog_db, name + "_b")
    a.replace_document("x.md", "fp", "X", {}, [ChunkRecord("c1", "x.md", 0, "one")])
    b.replace_document("x.md", "other", "X", {}, [ChunkRecord("c1", "x.md", 0, "two")])  # same source, same id
    a.set_meta("embedding", "usem3")
    assert a.document_fingerprint("x.md") == "fp" and b.document_fingerprint("x.md") == "other"
    assert a.get_chunks(["c1"])["c1"].text == "one" and b.get_chunks(["c1"])["c1"].text == "two"
    assert b.get_meta("embedding") is None
    assert a.delete_document("x.md") == ["c1"] and b.counts() == (1, 1) and a.counts() == (0, 0)
    assert PgCatalog(catalog_db, name + "_b", read_only=True).sources() == ["x.md"]
    rows = a._rows(f"SELECT DISTINCT kb FROM {DOCS} WHERE kb LIKE %s", (name + "%",))
    assert [r["kb"] for r in rows] == [name + "_b"]
