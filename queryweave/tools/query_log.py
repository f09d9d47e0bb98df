"""The popular-queries log behind search suggestions: a small SQLite table in the data dir."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from queryweave.tools.prefix_index import normalize

_SCHEMA = """CREATE TABLE IF NOT EXISTS popular_queries (
  norm TEXT PRIMARY KEY, text TEXT NOT NULL, count INTEGER NOT NULL DEFAULT 0, last_at REAL NOT NULL)"""


class QueryLog:
    """Counts of the questions users asked (case- and space-insensitive), persisted in SQLite.

    `path=None` keeps the log in memory only.
    """

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = str(path) if path else ":memory:"
        if path:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self.conn = sqlite3.connect(self.path, timeout=10, check_same_thread=False)
        self.conn.execute(_SCHEMA)
        self.conn.commit()

    def record(self, query: str, weight: int = 1) -> str | None:
        """Count one use of `query`; returns its normalised form, or None when it is not worth keeping."""
        text = " ".join(query.split())
        norm = normalize(text)
        if len(norm) < 2 or len(norm) > 200:
            return None
        self.conn.execute(
            "INSERT INTO popular_queries(norm, text, count, last_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT(norm) DO UPDATE SET count = count + excluded.count, last_at = excluded.last_at",
            (norm, text, weight, time.time()),
        )
        self.conn.commit()
        return norm

    def top(self, limit: int = 5000) -> list[tuple[str, str, int]]:
        """(norm, text, count) of the most used queries, most used first."""
        rows = self.conn.execute(
            "SELECT norm, text, count FROM popular_queries ORDER BY count DESC, last_at DESC LIMIT ?", (limit,))
        return [(r[0], r[1], int(r[2])) for r in rows]

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()
