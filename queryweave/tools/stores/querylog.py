"""The query logs: what users asked and how retrieval went.

- `RetrievalLog`: one row per retrieval (strategy, k, latency, result ids, optional user feedback), in
  `retrieval_log.sqlite` in the data dir (WAL, so the graph can log while `queryweave tune` reads), or
  in the `queryweave_retrieval_log` table of a PostgreSQL database (`url`, shared by workers and hosts).
  Feedback is attached later by query id (or by question text): +1 (helpful) / -1 (not helpful),
  optionally naming the result ids that were relevant. `queryweave tune` reads it to propose
  per-intent k and strategy settings.
- `PopularQueries`: counts of the questions users asked (case- and space-insensitive), behind search
  suggestions (`<data_dir>/suggest/popular.sqlite`; `path=None` keeps it in memory).
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from queryweave.tools.stores.prefix_index import normalize

SCHEMA = """
CREATE TABLE IF NOT EXISTS {t} (
  id TEXT PRIMARY KEY, ts {real} NOT NULL, query TEXT NOT NULL, intent TEXT, profile TEXT, strategy TEXT NOT NULL,
  k INTEGER NOT NULL, latency_ms {real} NOT NULL, result_ids TEXT NOT NULL, cached INTEGER NOT NULL DEFAULT 0,
  feedback INTEGER, relevant_ids TEXT);
CREATE INDEX IF NOT EXISTS {t}_intent ON {t}(intent);
"""
PG_TABLE = "queryweave_retrieval_log"
"""The retrieval log's table in a PostgreSQL database (one per deployment: every worker and host logs there)."""
_COLUMNS = ("id", "ts", "query", "intent", "profile", "strategy", "k", "latency_ms", "result_ids", "cached",
            "feedback", "relevant_ids")
_PG_READY: set[str] = set()


@dataclass
class LogEntry:
    """One logged retrieval."""

    query: str
    strategy: str
    k: int
    latency_ms: float
    result_ids: list[str]
    intent: str | None = None
    profile: str | None = None
    cached: bool = False
    feedback: int | None = None
    relevant_ids: list[str] = field(default_factory=list)
    id: str = ""
    ts: float = 0.0


class RetrievalLog:
    """The retrieval log: SQLite in a data dir, or a table in PostgreSQL when `url` names one (shared by
    several workers and hosts; the connection pool of `tools/stores/pg.py`)."""

    def __init__(self, data_dir: str | Path, url: str = "") -> None:
        self._lock = threading.Lock()
        self.url = url
        if url:
            from queryweave.tools.stores.pg import libpq_url, pool

            self.path = None
            self.table = PG_TABLE
            self._pool = pool(url)
            if libpq_url(url) not in _PG_READY:
                with self._pool.connection() as conn:
                    for statement in filter(str.strip, SCHEMA.format(t=self.table, real="DOUBLE PRECISION").split(";")):
                        conn.execute(statement)
                _PG_READY.add(libpq_url(url))
            return
        self.table = "queries"
        self.path = Path(data_dir).expanduser() / "retrieval_log.sqlite"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.conn = sqlite3.connect(self.path, check_same_thread=False, timeout=30)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.executescript(SCHEMA.format(t=self.table, real="REAL"))
        self.conn.row_factory = sqlite3.Row

    def close(self) -> None:
        """Close the connection (a PostgreSQL pool stays open for the process)."""
        if not self.url:
            self.conn.close()

    def _run(self, sql: str, params: tuple = ()) -> tuple[list[Any], int]:
        """Run one statement (`?` placeholders, `{t}` the table) in its own transaction: (rows, rowcount)."""
        sql = sql.format(t=self.table)
        if self.url:
            with self._pool.connection() as conn:
                cur = conn.execute(sql.replace("?", "%s"), params)
                return (cur.fetchall() if cur.description else []), cur.rowcount
        with self._lock, self.conn:
            cur = self.conn.execute(sql, params)
            return cur.fetchall(), cur.rowcount

    def log(self, entry: LogEntry) -> str:
        """Record a retrieval; returns its id (for feedback later)."""
        entry.id = entry.id or uuid.uuid4().hex[:16]
        entry.ts = entry.ts or time.time()
        updates = ", ".join(f"{c}=excluded.{c}" for c in _COLUMNS[1:])
        self._run(f"INSERT INTO {{t}} VALUES ({','.join('?' * len(_COLUMNS))}) ON CONFLICT(id) DO UPDATE SET {updates}",
                  (entry.id, entry.ts, entry.query, entry.intent, entry.profile, entry.strategy, int(entry.k),
                   float(entry.latency_ms), json.dumps(entry.result_ids), int(entry.cached), entry.feedback,
                   json.dumps(entry.relevant_ids) if entry.relevant_ids else None))
        return entry.id

    def feedback(self, query_id: str, value: int, relevant_ids: list[str] | None = None) -> bool:
        """Attach user feedback (+1 / -1, optionally the relevant result ids); False if the id is unknown."""
        _, n = self._run("UPDATE {t} SET feedback=?, relevant_ids=COALESCE(?, relevant_ids) WHERE id=?",
                         (1 if value > 0 else -1, json.dumps(relevant_ids) if relevant_ids else None, query_id))
        return n > 0

    def feedback_for_query(self, query: str, value: int, relevant_ids: list[str] | None = None) -> bool:
        """Attach feedback to the latest retrieval of this exact question (when the caller has no log id)."""
        rows, _ = self._run("SELECT id FROM {t} WHERE query=? ORDER BY ts DESC LIMIT 1", (query.strip(),))
        return self.feedback(rows[0]["id"], value, relevant_ids) if rows else False

    def entries(self, since: float = 0.0) -> Iterator[LogEntry]:
        """Every logged retrieval since a timestamp, oldest first."""
        rows, _ = self._run("SELECT * FROM {t} WHERE ts>=? ORDER BY ts", (since,))
        for r in rows:
            yield LogEntry(query=r["query"], strategy=r["strategy"], k=r["k"], latency_ms=r["latency_ms"],
                           result_ids=json.loads(r["result_ids"]), intent=r["intent"], profile=r["profile"],
                           cached=bool(r["cached"]), feedback=r["feedback"],
                           relevant_ids=json.loads(r["relevant_ids"]) if r["relevant_ids"] else [],
                           id=r["id"], ts=r["ts"])

    def count(self) -> int:
        """Number of logged retrievals."""
        rows, _ = self._run("SELECT COUNT(*) AS n FROM {t}")
        return int(rows[0]["n"])

    def summary(self) -> dict[str, Any]:
        """Per (intent, strategy): count, mean latency, feedback counts."""
        rows, _ = self._run(
            "SELECT COALESCE(intent,'') AS intent, strategy, COUNT(*) AS n, AVG(latency_ms) AS ms, "
            "SUM(CASE WHEN feedback=1 THEN 1 ELSE 0 END) AS up, SUM(CASE WHEN feedback=-1 THEN 1 ELSE 0 END) AS down "
            "FROM {t} GROUP BY 1, 2 ORDER BY 1, 2")
        return {f"{r['intent'] or '-'}/{r['strategy']}": {"n": r["n"], "mean_ms": round(r["ms"] or 0, 1),
                                                          "up": r["up"] or 0, "down": r["down"] or 0}
                for r in rows}


# -- popular queries (search suggestions) ----------------------------------------------------------

_POPULAR_SCHEMA = """CREATE TABLE IF NOT EXISTS popular_queries (
  norm TEXT PRIMARY KEY, text TEXT NOT NULL, count INTEGER NOT NULL DEFAULT 0, last_at REAL NOT NULL)"""


class PopularQueries:
    """Counts of the questions users asked (case- and space-insensitive), persisted in SQLite.

    `path=None` keeps the log in memory only.
    """

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = str(path) if path else ":memory:"
        if path:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self.conn = sqlite3.connect(self.path, timeout=10, check_same_thread=False)
        self.conn.execute(_POPULAR_SCHEMA)
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
