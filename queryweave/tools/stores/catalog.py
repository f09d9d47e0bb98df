"""The catalog: a SQLite record of every ingested document and chunk, the source of truth.

Chroma and the BM25 index are derived from it; `stats`, deletion, crash recovery and the suggestions
index read it. Writes for one document happen in one transaction, so a crash never leaves half a
document recorded. WAL mode lets readers go on while a writer ingests.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS documents (
  source TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, title TEXT, metadata TEXT NOT NULL,
  n_chunks INTEGER NOT NULL, ingested_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS chunks (
  id TEXT PRIMARY KEY, source TEXT NOT NULL, ord INTEGER NOT NULL, text TEXT NOT NULL,
  heading TEXT, metadata TEXT NOT NULL, expansion TEXT NOT NULL DEFAULT '');
CREATE INDEX IF NOT EXISTS chunks_source ON chunks(source);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
HEADINGS_SQL = """SELECT heading FROM (SELECT heading, source, ord,
  ROW_NUMBER() OVER (PARTITION BY heading ORDER BY source, ord) AS n FROM chunks WHERE heading IS NOT NULL{where})
  AS firsts WHERE n = 1 ORDER BY source, ord"""
"""Distinct headings in document order (shared by the SQLite and PostgreSQL catalogs; `where` adds a filter)."""


@dataclass
class ChunkRecord:
    """One chunk as stored: id (content hash), its document, position, text and metadata."""

    id: str
    source: str
    ord: int
    text: str
    heading: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    expansion: str = ""


class Catalog:
    """SQLite catalog of documents and chunks (`catalog.sqlite` in the data dir)."""

    def __init__(self, path: str | Path, read_only: bool = False) -> None:
        self.path = Path(path)
        if read_only:
            if not self.path.exists():
                raise FileNotFoundError(f"no knowledge base at {self.path.parent} (run `queryweave ingest` first)")
            self.conn = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, check_same_thread=False, timeout=10)
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.conn = sqlite3.connect(self.path, check_same_thread=False, timeout=30)
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.executescript(SCHEMA)
        self.conn.row_factory = sqlite3.Row

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()

    # -- documents -------------------------------------------------------------------------
    def document_fingerprint(self, source: str) -> str | None:
        """The stored fingerprint of a document, or None if it is not in the catalog."""
        row = self.conn.execute("SELECT fingerprint FROM documents WHERE source=?", (source,)).fetchone()
        return row["fingerprint"] if row else None

    def chunk_ids(self, source: str | None = None) -> list[str]:
        """Ids of all chunks, or of one document's chunks, in order."""
        if source is None:
            return [r[0] for r in self.conn.execute("SELECT id FROM chunks ORDER BY source, ord")]
        return [r[0] for r in self.conn.execute("SELECT id FROM chunks WHERE source=? ORDER BY ord", (source,))]

    def replace_document(
        self, source: str, fingerprint: str, title: str, metadata: dict[str, Any], chunks: list[ChunkRecord]
    ) -> None:
        """Record a document and its chunks, replacing any older version, in one transaction."""
        with self.conn:
            self.conn.execute("DELETE FROM chunks WHERE source=?", (source,))
            self.conn.execute(
                "INSERT OR REPLACE INTO documents VALUES (?,?,?,?,?,?)",
                (source, fingerprint, title, json.dumps(metadata, ensure_ascii=False), len(chunks), time.time()),
            )
            self.conn.executemany(
                "INSERT OR REPLACE INTO chunks VALUES (?,?,?,?,?,?,?)",
                [
                    (c.id, source, c.ord, c.text, c.heading, json.dumps(c.metadata, ensure_ascii=False), c.expansion)
                    for c in chunks
                ],
            )
            self.conn.execute("INSERT OR REPLACE INTO meta VALUES ('version', ?)", (str(time.time()),))

    def delete_document(self, source: str) -> list[str]:
        """Remove a document; returns the ids of the chunks it had."""
        ids = self.chunk_ids(source)
        with self.conn:
            self.conn.execute("DELETE FROM chunks WHERE source=?", (source,))
            self.conn.execute("DELETE FROM documents WHERE source=?", (source,))
            self.conn.execute("INSERT OR REPLACE INTO meta VALUES ('version', ?)", (str(time.time()),))
        return ids

    def sources(self, prefix: str = "") -> list[str]:
        """Document sources, optionally only those starting with `prefix` (literally: case and `%`/`_` count)."""
        rows = self.conn.execute("SELECT source FROM documents WHERE substr(source, 1, ?) = ? ORDER BY source",
                                 (len(prefix), prefix))
        return [r[0] for r in rows]

    def documents(self) -> Iterator[dict[str, Any]]:
        """Every document: source, title, metadata, n_chunks."""
        for r in self.conn.execute("SELECT source, title, metadata, n_chunks FROM documents ORDER BY source"):
            yield {"source": r["source"], "title": r["title"], "metadata": json.loads(r["metadata"]),
                   "n_chunks": r["n_chunks"]}

    # -- chunks ----------------------------------------------------------------------------
    def _record(self, r: sqlite3.Row) -> ChunkRecord:
        return ChunkRecord(r["id"], r["source"], r["ord"], r["text"], r["heading"], json.loads(r["metadata"]),
                           r["expansion"])

    def get_chunks(self, ids: Iterable[str]) -> dict[str, ChunkRecord]:
        """Chunks by id (missing ids are left out)."""
        ids = list(ids)
        out: dict[str, ChunkRecord] = {}
        for start in range(0, len(ids), 500):
            part = ids[start : start + 500]
            q = f"SELECT * FROM chunks WHERE id IN ({','.join('?' * len(part))})"
            for r in self.conn.execute(q, part):
                out[r["id"]] = self._record(r)
        return out

    def iter_chunks(self) -> Iterator[ChunkRecord]:
        """Every chunk, in document order."""
        for r in self.conn.execute("SELECT * FROM chunks ORDER BY source, ord"):
            yield self._record(r)

    def set_expansion(self, chunk_id: str, expansion: str) -> None:
        """Store index-only text (e.g. Doc2Query questions) beside a chunk."""
        with self.conn:
            self.conn.execute("UPDATE chunks SET expansion=? WHERE id=?", (expansion, chunk_id))

    # -- meta ------------------------------------------------------------------------------
    def get_meta(self, key: str, default: str | None = None) -> str | None:
        """A stored setting (e.g. the embedding model the index was built with)."""
        row = self.conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else default

    def set_meta(self, key: str, value: str) -> None:
        """Store a setting."""
        with self.conn:
            self.conn.execute("INSERT OR REPLACE INTO meta VALUES (?,?)", (key, value))

    def headings(self) -> list[str]:
        """Distinct chunk headings, in the order of their first chunk (source, position)."""
        return [r[0] for r in self.conn.execute(HEADINGS_SQL.format(where=""))]

    def first_chunk_texts(self) -> list[tuple[str | None, str | None]]:
        """(title, text of its first chunk) of every document (None where it has no chunk)."""
        return [(r[0], r[1]) for r in self.conn.execute(
            "SELECT d.title, (SELECT c.text FROM chunks c WHERE c.source = d.source ORDER BY c.ord LIMIT 1) "
            "FROM documents d ORDER BY d.source")]

    def describe(self) -> dict[str, Any]:
        """Where the catalog lives (for `stats`)."""
        return {"path": str(self.path)}

    def counts(self) -> tuple[int, int]:
        """(documents, chunks)."""
        d = self.conn.execute("SELECT COUNT(*) FROM documents").fetchone()[0]
        c = self.conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
        return int(d), int(c)
