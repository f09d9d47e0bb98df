"""A SQLite file of blobs keyed by a tuple: reads straight from the file (WAL), writes queued and batched.

Shared by the vector caches (`text_vectors.py`, `tools/retrieval/query_vectors.py`): a lookup is a plain
read (no transaction), new rows are queued and written in one transaction every `flush_every` rows or
`flush_seconds` after the oldest queued one (and on `flush`). A failed write (a busy or read-only file)
only means no cache entry this time.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterable
from pathlib import Path


class BatchedBlobFile:
    """Table `table` of `columns` (the key columns, then the blob) in the SQLite file at `path`."""

    def __init__(self, path: str | Path, table: str, create_sql: str, n_columns: int, flush_every: int,
                 flush_seconds: float = 5.0, timeout: float = 30) -> None:
        self.path = Path(path)
        self.conn = sqlite3.connect(self.path, timeout=timeout, check_same_thread=False, isolation_level=None)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=NORMAL")
        self.conn.execute(create_sql)
        self._insert = f"INSERT OR REPLACE INTO {table} VALUES ({','.join('?' * n_columns)})"
        self.flush_every, self.flush_seconds = flush_every, flush_seconds
        self.pending: dict[tuple, bytes] = {}
        self.oldest_pending = 0.0
        self.lock = threading.Lock()

    def queue(self, items: Iterable[tuple[tuple, bytes]], flush: bool = False) -> None:
        """Queue (key, blob) rows; the queue is written when it is full, old enough, or `flush` is set."""
        with self.lock:
            if not self.pending:
                self.oldest_pending = time.monotonic()
            for key, blob in items:
                self.pending[key] = blob
            due = (flush or len(self.pending) >= self.flush_every
                   or time.monotonic() - self.oldest_pending >= self.flush_seconds)
        if due:
            self.flush()

    def flush(self) -> int:
        """Write the queued rows in one transaction; returns how many (0 when the file is busy)."""
        with self.lock:
            if not self.pending:
                return 0
            rows = [(*k, v) for k, v in self.pending.items()]
            try:
                self.conn.execute("BEGIN IMMEDIATE")
                self.conn.executemany(self._insert, rows)
                self.conn.execute("COMMIT")
            except sqlite3.Error:  # a cache: a busy or read-only file just means no write this time
                if self.conn.in_transaction:
                    self.conn.execute("ROLLBACK")
                return 0
            self.pending.clear()
            return len(rows)
