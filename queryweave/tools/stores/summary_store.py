"""Storage of the summary layer: `summaries.sqlite` in the data dir plus a Chroma collection of vectors.

The table holds every summary (id, level, title, text, body, summarised sources, fingerprint, how it
was written); the collection `summaries-<embedding>` holds their vectors, made with the knowledge
base's own embedding function or given with the row (`tools/ingest/summaries.py`). Vectors are
written before the table (idempotent upserts) and deleted after it, and vectors the table does not know are dropped, so a crash never leaves a
summary without its vector for long.
"""

from __future__ import annotations

import json
import sqlite3
import time
from typing import Any

from queryweave.tools.stores.kb import KnowledgeBase

SCHEMA = """
CREATE TABLE IF NOT EXISTS summaries (
  id TEXT PRIMARY KEY, level TEXT NOT NULL, title TEXT NOT NULL, text TEXT NOT NULL, body TEXT NOT NULL,
  sources TEXT NOT NULL, fingerprint TEXT NOT NULL, method TEXT NOT NULL, updated REAL NOT NULL);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


class SummaryStore:
    """Summaries in SQLite (`summaries.sqlite`) and their vectors in a Chroma collection."""

    def __init__(self, kb: KnowledgeBase) -> None:
        self.kb = kb
        self.conn = sqlite3.connect(kb.data_dir / "summaries.sqlite", check_same_thread=False, timeout=30)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.executescript(SCHEMA)
        self.conn.row_factory = sqlite3.Row
        self._chroma = None

    @property
    def collection(self) -> Any:
        """The Chroma collection of summary vectors (created on first use)."""
        if self._chroma is None:
            from langchain_chroma import Chroma

            from queryweave.tools.stores.embeddings import embedding_name
            from queryweave.tools.stores.vector_store import collection_name

            name = "summaries-" + collection_name(embedding_name(self.kb.embeddings))[len("chunks-"):]
            self._chroma = Chroma(client=self.kb.vectors.client, collection_name=name[:200],
                                  embedding_function=self.kb.embeddings, collection_metadata={"hnsw:space": "cosine"})
        return self._chroma._collection

    def close(self) -> None:
        """Close the SQLite connection."""
        self.conn.close()

    def all(self, level: str | None = None) -> dict[str, dict[str, Any]]:
        """Stored summaries by id (optionally of one level)."""
        q, args = ("SELECT * FROM summaries WHERE level=?", (level,)) if level else ("SELECT * FROM summaries", ())
        return {r["id"]: {**dict(r), "sources": json.loads(r["sources"])} for r in self.conn.execute(q, args)}

    def put(self, rows: list[dict[str, Any]]) -> None:
        """Insert or replace summaries: vectors first (idempotent upserts), then the table in one transaction."""
        if not rows:
            return
        texts = [f"{r['title']}\n{r['text']}" for r in rows]
        vectors = [r.get("vector") for r in rows]  # given (an extractive summary's content vector) or embedded
        todo = [i for i, v in enumerate(vectors) if v is None]
        for i, v in zip(todo, self.kb.embeddings.embed_documents([texts[i] for i in todo]) if todo else [],
                        strict=True):
            vectors[i] = v
        self.collection.upsert(ids=[r["id"] for r in rows], embeddings=vectors, documents=texts,
                               metadatas=[{"level": r["level"]} for r in rows])
        with self.conn:
            self.conn.executemany("INSERT OR REPLACE INTO summaries VALUES (?,?,?,?,?,?,?,?,?)", [
                (r["id"], r["level"], r["title"], r["text"], r.get("body", r["text"]),
                 json.dumps(r["sources"], ensure_ascii=False), r["fingerprint"], r["method"], time.time())
                for r in rows])

    def delete(self, ids: list[str]) -> None:
        """Remove summaries (table first), then their vectors and any vector the table does not know."""
        with self.conn:
            self.conn.executemany("DELETE FROM summaries WHERE id=?", [(i,) for i in ids])
        known = {r[0] for r in self.conn.execute("SELECT id FROM summaries")}
        orphans = sorted(set(ids) | (set(self.collection.get(include=[])["ids"]) - known))
        if orphans:
            self.collection.delete(ids=orphans)

    def version(self) -> str:
        """Changes whenever summaries were written."""
        row = self.conn.execute("SELECT value FROM meta WHERE key='version'").fetchone()
        return row[0] if row else "0"

    def touch(self) -> None:
        """Mark the store as changed."""
        with self.conn:
            self.conn.execute("INSERT OR REPLACE INTO meta VALUES ('version', ?)", (str(time.time()),))
