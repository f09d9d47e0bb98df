"""A result cache for repeated queries, invalidated by ingest, with hit/miss counts.

Entries live in `resultcache.sqlite` in the data dir, keyed by a hash of everything that shapes the
result (queries, k, settings, filter, embedding model). Each entry remembers the catalog's `version`
(which every ingest and deletion changes); an entry from another version is a miss and is dropped,
so a cached result never outlives the data it came from. Hits and misses are counted in the same
file, so `cache_stats(data_dir)` reports them across processes (`queryweave stats`).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS results (key TEXT PRIMARY KEY, version TEXT NOT NULL, value TEXT NOT NULL, ts REAL NOT NULL);
CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
"""
FILENAME = "resultcache.sqlite"


def cache_key(payload: Any) -> str:
    """A stable key for anything JSON-serialisable."""
    return hashlib.sha256(json.dumps(payload, sort_keys=True, ensure_ascii=False, default=str).encode()).hexdigest()


class ResultCache:
    """Cached retrieval results for one data dir."""

    def __init__(self, data_dir: str | Path, max_entries: int = 10_000) -> None:
        self.path = Path(data_dir).expanduser() / FILENAME
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.max_entries = max_entries
        self._lock = threading.Lock()
        self.conn = sqlite3.connect(self.path, check_same_thread=False, timeout=30)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.executescript(SCHEMA)

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()

    def _count(self, name: str) -> None:
        self.conn.execute("INSERT INTO counters VALUES (?, 1) ON CONFLICT(name) DO UPDATE SET value=value+1", (name,))

    def get(self, key: str, version: str) -> Any | None:
        """The cached value for `key` at catalog `version`, or None (counted as a hit or a miss)."""
        with self._lock, self.conn:
            row = self.conn.execute("SELECT version, value FROM results WHERE key=?", (key,)).fetchone()
            if row is not None and row[0] == version:
                self._count("hits")
                return json.loads(row[1])
            if row is not None:  # stale: the knowledge base changed since
                self.conn.execute("DELETE FROM results WHERE key=?", (key,))
                self._count("invalidated")
            self._count("misses")
            return None

    def put(self, key: str, version: str, value: Any) -> None:
        """Store a value; entries of older versions and the oldest beyond `max_entries` are dropped."""
        with self._lock, self.conn:
            self.conn.execute("DELETE FROM results WHERE version<>?", (version,))
            self.conn.execute("INSERT OR REPLACE INTO results VALUES (?,?,?,?)",
                              (key, version, json.dumps(value, ensure_ascii=False), time.time()))
            n = self.conn.execute("SELECT COUNT(*) FROM results").fetchone()[0]
            if n > self.max_entries:
                self.conn.execute("DELETE FROM results WHERE key IN (SELECT key FROM results ORDER BY ts LIMIT ?)",
                                  (n - self.max_entries,))

    def stats(self) -> dict[str, Any]:
        """Entries, hits, misses, invalidations and the hit rate."""
        counts = dict(self.conn.execute("SELECT name, value FROM counters").fetchall())
        hits, misses = int(counts.get("hits", 0)), int(counts.get("misses", 0))
        return {"entries": int(self.conn.execute("SELECT COUNT(*) FROM results").fetchone()[0]),
                "hits": hits, "misses": misses, "invalidated": int(counts.get("invalidated", 0)),
                "hit_rate": round(hits / (hits + misses), 4) if hits + misses else 0.0}


_CACHES: dict[str, ResultCache] = {}
_CACHES_LOCK = threading.Lock()


def result_cache(data_dir: str | Path) -> ResultCache:
    """The process-wide cache for a data dir."""
    key = str(Path(data_dir).expanduser().resolve())
    with _CACHES_LOCK:
        if key not in _CACHES:
            _CACHES[key] = ResultCache(key)
        return _CACHES[key]


def cache_stats(data_dir: str | Path) -> dict[str, Any]:
    """Hit/miss counts of a data dir's result cache (zeros when it was never used); for `queryweave stats`."""
    if not (Path(data_dir).expanduser() / FILENAME).exists():
        return {"entries": 0, "hits": 0, "misses": 0, "invalidated": 0, "hit_rate": 0.0}
    return result_cache(data_dir).stats()
