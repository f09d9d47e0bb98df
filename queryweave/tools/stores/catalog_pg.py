"""The catalog in PostgreSQL: the same methods as the SQLite `Catalog`, over the pool of `tools/stores/pg.py`.

Three tables (`queryweave_catalog_documents`, `_chunks`, `_meta`) hold every knowledge base of a database,
keyed by a `kb` column (`Context.kb_name`), so several knowledge bases can share one database and hosts
that set the same name share one. Writes for one document run in one transaction (a crash never leaves
half a document); sources and chunk ids sort by byte order (`COLLATE "C"`), as in SQLite.
A knowledge base that is empty here but has a `catalog.sqlite` in its data dir is imported from it once
(`import_sqlite`, one transaction; the SQLite file is left as it was).
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from queryweave.tools.stores.catalog import HEADINGS_SQL, ChunkRecord
from queryweave.tools.stores.pg import libpq_url, pool

log = logging.getLogger(__name__)
DOCS, CHUNKS, META = "queryweave_catalog_documents", "queryweave_catalog_chunks", "queryweave_catalog_meta"
SCHEMA = f"""
CREATE TABLE IF NOT EXISTS {DOCS} (
  kb TEXT NOT NULL, source TEXT COLLATE "C" NOT NULL, fingerprint TEXT NOT NULL, title TEXT, metadata TEXT NOT NULL,
  n_chunks INTEGER NOT NULL, ingested_at DOUBLE PRECISION NOT NULL, PRIMARY KEY (kb, source));
CREATE TABLE IF NOT EXISTS {CHUNKS} (
  kb TEXT NOT NULL, id TEXT COLLATE "C" NOT NULL, source TEXT COLLATE "C" NOT NULL, ord INTEGER NOT NULL,
  text TEXT NOT NULL, heading TEXT, metadata TEXT NOT NULL, expansion TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (kb, id));
CREATE INDEX IF NOT EXISTS {CHUNKS}_source ON {CHUNKS} (kb, source, ord);
CREATE TABLE IF NOT EXISTS {META} (kb TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (kb, key))
"""
UPSERT_DOC = (f"INSERT INTO {DOCS} VALUES (%s,%s,%s,%s,%s,%s,%s) ON CONFLICT (kb, source) DO UPDATE SET "
              "fingerprint=EXCLUDED.fingerprint, title=EXCLUDED.title, metadata=EXCLUDED.metadata, "
              "n_chunks=EXCLUDED.n_chunks, ingested_at=EXCLUDED.ingested_at")
UPSERT_CHUNK = (f"INSERT INTO {CHUNKS} VALUES (%s,%s,%s,%s,%s,%s,%s,%s) ON CONFLICT (kb, id) DO UPDATE SET "
                "source=EXCLUDED.source, ord=EXCLUDED.ord, text=EXCLUDED.text, heading=EXCLUDED.heading, "
                "metadata=EXCLUDED.metadata, expansion=EXCLUDED.expansion")
UPSERT_META = f"INSERT INTO {META} VALUES (%s,%s,%s) ON CONFLICT (kb, key) DO UPDATE SET value=EXCLUDED.value"
HAS_ROWS = f"SELECT EXISTS (SELECT 1 FROM {DOCS} WHERE kb=%s) OR EXISTS (SELECT 1 FROM {META} WHERE kb=%s) AS x"
PAGE = 1000
"""Rows per query when reading many chunks (bounded memory, no connection held between pages)."""
_READY: set[str] = set()
_READY_LOCK = threading.Lock()


def like_prefix(prefix: str) -> str:
    """A LIKE pattern matching strings that start with `prefix` literally (`%`, `_`, `\\` escaped)."""
    return prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def redact_url(url: str) -> str:
    """`url` without its password (for logs and `stats`)."""
    scheme, sep, rest = url.partition("://")
    creds, at, host = rest.rpartition("@")
    if not sep or not at or ":" not in creds:
        return url
    return f"{scheme}{sep}{creds.split(':', 1)[0]}:***@{host}"


def has_knowledge_base(url: str, kb_name: str, timeout_s: int = 5) -> bool:
    """Whether the database at `url` holds knowledge base `kb_name`, on a connection of its own (a database
    that is down answers False within `timeout_s`, rather than waiting for the pool)."""
    import psycopg

    try:
        with psycopg.connect(libpq_url(url), connect_timeout=timeout_s, autocommit=True) as conn:
            if conn.execute("SELECT to_regclass(%s)", (META,)).fetchone()[0] is None:
                return False
            return bool(conn.execute(HAS_ROWS, (kb_name, kb_name)).fetchone()[0])
    except psycopg.Error:
        return False


def _clean(text: str | None) -> str | None:
    """PostgreSQL text cannot hold NUL characters (SQLite can): they are dropped."""
    return text.replace("\x00", "") if text else text


class PgCatalog:
    """The catalog of one knowledge base (`kb_name`) in the PostgreSQL database at `url`."""

    def __init__(self, url: str, kb_name: str, read_only: bool = False, import_from: str | Path | None = None) -> None:
        self.url, self.kb = url, kb_name
        self._pool = pool(url)
        if read_only:
            if not self._schema_exists():
                raise FileNotFoundError(f"no knowledge base {kb_name!r} at {redact_url(url)} (run `queryweave ingest`)")
            return
        self._create_schema()
        if import_from is not None and Path(import_from).exists() and not self.has_rows():
            self.import_sqlite(import_from)

    def close(self) -> None:
        """Nothing to close: the connection pool is the process's (`pg.close_pools`)."""

    def describe(self) -> dict[str, Any]:
        """Where the catalog lives (for `stats`; no password)."""
        return {"url": redact_url(self.url), "kb": self.kb}

    # -- schema and the one-time import ------------------------------------------------------------
    def _lock(self, conn: Any, what: str) -> None:
        """A transaction-scoped advisory lock: concurrent workers create the tables / import once."""
        conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (f"queryweave_catalog:{what}",))

    def _create_schema(self) -> None:
        key = libpq_url(self.url)
        with _READY_LOCK:
            if key in _READY:
                return
            with self._pool.connection() as conn, conn.transaction():
                self._lock(conn, "schema")
                for statement in filter(str.strip, SCHEMA.split(";")):
                    conn.execute(statement)
            _READY.add(key)

    def _schema_exists(self) -> bool:
        with self._pool.connection() as conn:
            row = conn.execute("SELECT to_regclass(%s) AS t", (META,)).fetchone()
        return row["t"] is not None

    def has_rows(self, conn: Any = None) -> bool:
        """Whether this knowledge base has any document or setting here."""
        if conn is not None:
            return bool(conn.execute(HAS_ROWS, (self.kb, self.kb)).fetchone()["x"])
        with self._pool.connection() as c:
            return bool(c.execute(HAS_ROWS, (self.kb, self.kb)).fetchone()["x"])

    def import_sqlite(self, path: str | Path) -> tuple[int, int] | None:
        """Copy a SQLite catalog (documents, chunks, meta) into this empty knowledge base in one transaction;
        (documents, chunks) copied, or None when this knowledge base already had rows (nothing done)."""
        src = sqlite3.connect(f"file:{Path(path)}?mode=ro", uri=True, timeout=30)
        try:
            with self._pool.connection() as conn, conn.transaction():
                self._lock(conn, f"import:{self.kb}")
                if self.has_rows(conn):
                    return None
                with conn.cursor() as cur:
                    docs = src.execute("SELECT source, fingerprint, title, metadata, n_chunks, ingested_at FROM documents")
                    cur.executemany(UPSERT_DOC, [(self.kb, r[0], r[1], _clean(r[2]), *r[3:]) for r in docs])
                    rows = src.execute("SELECT id, source, ord, text, heading, metadata, expansion FROM chunks")
                    n_chunks = 0
                    while part := rows.fetchmany(PAGE):
                        cur.executemany(UPSERT_CHUNK, [(self.kb, r[0], r[1], r[2], _clean(r[3]), _clean(r[4]), r[5],
                                                        _clean(r[6]) or "") for r in part])
                        n_chunks += len(part)
                    cur.executemany(UPSERT_META, [(self.kb, k, v) for k, v in src.execute("SELECT key, value FROM meta")])
                n_docs = int(src.execute("SELECT COUNT(*) FROM documents").fetchone()[0])
        finally:
            src.close()
        log.warning("catalog: imported %s (%d documents, %d chunks) into %s as knowledge base %r; the SQLite file "
                    "is no longer read", path, n_docs, n_chunks, redact_url(self.url), self.kb)
        return n_docs, n_chunks

    # -- documents ---------------------------------------------------------------------------------
    def _rows(self, query: str, params: tuple = ()) -> list[dict[str, Any]]:
        with self._pool.connection() as conn:
            return conn.execute(query, params).fetchall()

    def _bump(self, conn: Any) -> None:
        conn.execute(UPSERT_META, (self.kb, "version", str(time.time())))

    def document_fingerprint(self, source: str) -> str | None:
        """The stored fingerprint of a document, or None if it is not in the catalog."""
        rows = self._rows(f"SELECT fingerprint FROM {DOCS} WHERE kb=%s AND source=%s", (self.kb, source))
        return rows[0]["fingerprint"] if rows else None

    def chunk_ids(self, source: str | None = None) -> list[str]:
        """Ids of all chunks, or of one document's chunks, in order."""
        if source is None:
            rows = self._rows(f"SELECT id FROM {CHUNKS} WHERE kb=%s ORDER BY source, ord", (self.kb,))
        else:
            rows = self._rows(f"SELECT id FROM {CHUNKS} WHERE kb=%s AND source=%s ORDER BY ord", (self.kb, source))
        return [r["id"] for r in rows]

    def replace_document(
        self, source: str, fingerprint: str, title: str, metadata: dict[str, Any], chunks: list[ChunkRecord]
    ) -> None:
        """Record a document and its chunks, replacing any older version, in one transaction."""
        with self._pool.connection() as conn, conn.transaction():
            conn.execute(f"DELETE FROM {CHUNKS} WHERE kb=%s AND source=%s", (self.kb, source))
            conn.execute(UPSERT_DOC, (self.kb, source, fingerprint, _clean(title),
                                      json.dumps(metadata, ensure_ascii=False), len(chunks), time.time()))
            with conn.cursor() as cur:
                cur.executemany(UPSERT_CHUNK, [
                    (self.kb, c.id, source, c.ord, _clean(c.text), _clean(c.heading),
                     json.dumps(c.metadata, ensure_ascii=False), _clean(c.expansion) or "") for c in chunks])
            self._bump(conn)

    def delete_document(self, source: str) -> list[str]:
        """Remove a document; returns the ids of the chunks it had."""
        with self._pool.connection() as conn, conn.transaction():
            rows = conn.execute(f"DELETE FROM {CHUNKS} WHERE kb=%s AND source=%s RETURNING id, ord",
                                (self.kb, source)).fetchall()
            conn.execute(f"DELETE FROM {DOCS} WHERE kb=%s AND source=%s", (self.kb, source))
            self._bump(conn)
        return [r["id"] for r in sorted(rows, key=lambda r: r["ord"])]

    def sources(self, prefix: str = "") -> list[str]:
        """Document sources, optionally only those starting with `prefix`."""
        rows = self._rows(f"SELECT source FROM {DOCS} WHERE kb=%s AND source LIKE %s ESCAPE '\\' ORDER BY source",
                          (self.kb, like_prefix(prefix)))
        return [r["source"] for r in rows]

    def documents(self) -> Iterator[dict[str, Any]]:
        """Every document: source, title, metadata, n_chunks."""
        rows = self._rows(f"SELECT source, title, metadata, n_chunks FROM {DOCS} WHERE kb=%s ORDER BY source", (self.kb,))
        for r in rows:
            yield {"source": r["source"], "title": r["title"], "metadata": json.loads(r["metadata"]),
                   "n_chunks": r["n_chunks"]}

    # -- chunks ------------------------------------------------------------------------------------
    @staticmethod
    def _record(r: dict[str, Any]) -> ChunkRecord:
        return ChunkRecord(r["id"], r["source"], r["ord"], r["text"], r["heading"], json.loads(r["metadata"]),
                           r["expansion"])

    def get_chunks(self, ids: Iterable[str]) -> dict[str, ChunkRecord]:
        """Chunks by id (missing ids are left out)."""
        ids = list(ids)
        out: dict[str, ChunkRecord] = {}
        for start in range(0, len(ids), PAGE):
            for r in self._rows(f"SELECT * FROM {CHUNKS} WHERE kb=%s AND id = ANY(%s)", (self.kb, ids[start:start + PAGE])):
                out[r["id"]] = self._record(r)
        return out

    def iter_chunks(self) -> Iterator[ChunkRecord]:
        """Every chunk, in document order (read a page at a time)."""
        after: tuple[str, int, str] | None = None
        while True:
            if after is None:
                rows = self._rows(f"SELECT * FROM {CHUNKS} WHERE kb=%s ORDER BY source, ord, id LIMIT %s", (self.kb, PAGE))
            else:
                rows = self._rows(f"SELECT * FROM {CHUNKS} WHERE kb=%s AND (source, ord, id) > (%s, %s, %s) "
                                  "ORDER BY source, ord, id LIMIT %s", (self.kb, *after, PAGE))
            yield from (self._record(r) for r in rows)
            if len(rows) < PAGE:
                return
            after = (rows[-1]["source"], rows[-1]["ord"], rows[-1]["id"])

    def set_expansion(self, chunk_id: str, expansion: str) -> None:
        """Store index-only text (e.g. Doc2Query questions) beside a chunk."""
        with self._pool.connection() as conn:
            conn.execute(f"UPDATE {CHUNKS} SET expansion=%s WHERE kb=%s AND id=%s", (_clean(expansion), self.kb, chunk_id))

    def headings(self) -> list[str]:
        """Distinct chunk headings, in the order of their first chunk (source, position)."""
        query = HEADINGS_SQL.replace("FROM chunks", f"FROM {CHUNKS}").format(where=" AND kb=%s")
        return [r["heading"] for r in self._rows(query, (self.kb,))]

    def first_chunk_texts(self) -> list[tuple[str | None, str | None]]:
        """(title, text of its first chunk) of every document (None where it has no chunk)."""
        rows = self._rows(f"SELECT d.title, (SELECT c.text FROM {CHUNKS} c WHERE c.kb = d.kb AND c.source = d.source "
                          f"ORDER BY c.ord LIMIT 1) AS text FROM {DOCS} d WHERE d.kb=%s ORDER BY d.source", (self.kb,))
        return [(r["title"], r["text"]) for r in rows]

    # -- meta --------------------------------------------------------------------------------------
    def get_meta(self, key: str, default: str | None = None) -> str | None:
        """A stored setting (e.g. the embedding model the index was built with)."""
        rows = self._rows(f"SELECT value FROM {META} WHERE kb=%s AND key=%s", (self.kb, key))
        return rows[0]["value"] if rows else default

    def set_meta(self, key: str, value: str) -> None:
        """Store a setting."""
        with self._pool.connection() as conn:
            conn.execute(UPSERT_META, (self.kb, key, value))

    def counts(self) -> tuple[int, int]:
        """(documents, chunks)."""
        row = self._rows(f"SELECT (SELECT COUNT(*) FROM {DOCS} WHERE kb=%s) AS d, "
                         f"(SELECT COUNT(*) FROM {CHUNKS} WHERE kb=%s) AS c", (self.kb, self.kb))[0]
        return int(row["d"]), int(row["c"])
