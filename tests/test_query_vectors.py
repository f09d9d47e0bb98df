"""The query-vector cache stays cheap on the query path: one WAL connection per cache file, lookups
that never write, new vectors committed in batches (and at exit), and every vector still found."""

from __future__ import annotations

import sqlite3

import pytest

from queryweave.tools.retrieval import query_vectors as qv


class _Kb:
    """Just what `query_vector` needs: an embedding name and a counting `embed_query`."""

    embedding_name = "unit-emb"

    def __init__(self) -> None:
        self.embedded: list[str] = []
        self.embeddings = self

    def embed_query(self, text: str) -> list[float]:
        self.embedded.append(text)
        return [float(len(text)), 1.0, 0.5]


@pytest.fixture()
def store(tmp_path, monkeypatch):
    monkeypatch.setenv("QUERYWEAVE_CACHE_DIR", str(tmp_path / "cache"))
    with qv._QVEC_LOCK:
        qv._QVEC.clear()
    s = qv.query_store()
    statements: list[str] = []
    s.conn.set_trace_callback(statements.append)
    yield s, statements
    s.conn.set_trace_callback(None)
    with qv._STORES_LOCK:
        qv._STORES.pop(s.path, None)
    s.close()


def _writes(statements: list[str]) -> list[str]:
    return [x for x in statements if x.split()[0].upper() in {"INSERT", "COMMIT", "BEGIN", "UPDATE", "DELETE"}]


def test_new_questions_are_committed_in_batches_and_hits_never_write(store):
    s, statements = store
    kb = _Kb()
    questions = [f"question {i}" for i in range(qv.FLUSH_EVERY - 1)]
    for q in questions:
        qv.query_vector(kb, q)
    assert _writes(statements) == []  # one commit per question before; none until the batch is full
    with qv._QVEC_LOCK:
        qv._QVEC.clear()  # served from the store now (unsaved ones from its queue)
    assert qv.query_vector(kb, questions[0]) == [10.0, 1.0, 0.5] and len(kb.embedded) == len(questions)
    qv.query_vector(kb, "one more")  # fills the batch: one transaction for all of them
    writes = _writes(statements)
    kinds = [w.split()[0].upper() for w in writes]
    assert kinds[0] == "BEGIN" and kinds[-1] == "COMMIT" and kinds.count("COMMIT") == 1
    assert kinds.count("INSERT") == qv.FLUSH_EVERY
    statements.clear()
    with qv._QVEC_LOCK:
        qv._QVEC.clear()
    for q in questions:  # disk hits: reads only
        qv.query_vector(kb, q)
    assert _writes(statements) == [] and len(kb.embedded) == qv.FLUSH_EVERY


def test_a_partial_batch_is_flushed_at_exit_and_read_back(store):
    s, _ = store
    kb = _Kb()
    qv.query_vector(kb, "saved at exit")
    assert len(s.pending) == 1
    assert qv.flush_query_vectors() >= 1 and not s.pending  # what atexit runs (other stores may flush too)
    conn = sqlite3.connect(s.path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("SELECT count(*) FROM q WHERE text='saved at exit'").fetchone()[0] == 1
    conn.close()
    fresh = qv.QueryVectorStore(s.path)  # another process would find it
    assert fresh.get(("unit-emb", "saved at exit")) is not None
    fresh.close()


def test_an_old_pending_vector_is_flushed_on_the_next_put(store, monkeypatch):
    s, statements = store
    kb = _Kb()
    qv.query_vector(kb, "first")
    monkeypatch.setattr(s, "flush_seconds", 0.0)
    qv.query_vector(kb, "second")
    assert any(w.upper().startswith("COMMIT") for w in _writes(statements)) and not s.pending
