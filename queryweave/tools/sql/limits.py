"""Resource limits for one SQL query: engine limits, a watchdog thread, a capped fetch.

- SQLite per-connection limits (`Connection.setlimit`): the longest string/blob any expression may
  build (`SQLITE_LIMIT_LENGTH`), the longest SQL text, expression depth, compound SELECTs, LIKE
  pattern length, function arguments, bound variables, no attached databases, no worker threads.
- `Watchdog`: a timer thread that calls `Connection.interrupt()` at the deadline (a progress handler
  alone never fires while one long function call runs), and interrupts as well when SQLite's own
  heap (`sqlite3_memory_used`, process RSS where that symbol cannot be reached) grows by more than
  the memory limit while the query runs.
- `fetch_capped`: rows are fetched in small batches up to a row cap and a cap on the result's size
  in bytes (Python object sizes), so a result is never materialised whole before it is capped;
  `TextBudget` (an SQLite `text_factory`) counts text as it is converted, inside a row.
- `friendly_error`: engine messages turned into one line a user can read.
"""

from __future__ import annotations

import ctypes
import os
import sqlite3
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

MB = 1024 * 1024


def sqlite_limits(max_value_bytes: int, max_sql_chars: int) -> dict[int, int]:
    """The per-connection SQLite limits `SqlDatabase.run` sets (`Connection.setlimit`)."""
    return {
        sqlite3.SQLITE_LIMIT_LENGTH: max_value_bytes,
        sqlite3.SQLITE_LIMIT_SQL_LENGTH: max_sql_chars,
        sqlite3.SQLITE_LIMIT_EXPR_DEPTH: 200,
        sqlite3.SQLITE_LIMIT_COMPOUND_SELECT: 64,
        sqlite3.SQLITE_LIMIT_LIKE_PATTERN_LENGTH: 1000,
        sqlite3.SQLITE_LIMIT_FUNCTION_ARG: 32,
        sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER: 256,
        sqlite3.SQLITE_LIMIT_ATTACHED: 0,
        sqlite3.SQLITE_LIMIT_WORKER_THREADS: 0,
    }


def apply_limits(raw: sqlite3.Connection, limits: dict[int, int]) -> dict[int, int]:
    """Set `limits` on `raw`; returns the previous values (to restore a pooled connection)."""
    return {k: raw.setlimit(k, v) for k, v in limits.items()}


def _sqlite_memory_probe() -> Callable[[], int] | None:
    try:
        import _sqlite3

        fn = ctypes.CDLL(_sqlite3.__file__).sqlite3_memory_used
        fn.restype, fn.argtypes = ctypes.c_int64, []
        fn()
        return fn
    except (ImportError, OSError, AttributeError):
        return None


def _rss_bytes() -> int:
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


_SQLITE_MEMORY = _sqlite_memory_probe()


def memory_in_use() -> int:
    """Bytes SQLite has allocated in this process (RSS when that counter is out of reach)."""
    return int(_SQLITE_MEMORY()) if _SQLITE_MEMORY is not None else _rss_bytes()


class Watchdog:
    """Interrupts `interrupt()` at `deadline_s` or when memory grows by `max_memory_bytes`.

    Use as a context manager around one query; `.tripped` is "time", "memory" or None afterwards.
    """

    def __init__(self, interrupt: Callable[[], Any], timeout_s: float, max_memory_bytes: int | None,
                 poll_s: float = 0.005):
        self._interrupt, self.timeout_s, self.max_memory = interrupt, timeout_s, max_memory_bytes
        self.poll_s = poll_s
        self.tripped: str | None = None
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="sql-watchdog", daemon=True)

    def _watch(self) -> None:
        deadline = time.monotonic() + self.timeout_s
        base = memory_in_use() if self.max_memory else 0
        while not self._done.wait(self.poll_s if self.max_memory else max(0.0, deadline - time.monotonic())):
            if time.monotonic() >= deadline:
                self.tripped = "time"
            elif self.max_memory and memory_in_use() - base > self.max_memory:
                self.tripped = "memory"
            else:
                continue
            while not self._done.is_set():  # keep interrupting: one flag may land between statements
                self._interrupt()
                self._done.wait(0.05)
            return

    def __enter__(self) -> Watchdog:
        self._thread.start()
        return self

    def __exit__(self, *_: Any) -> None:
        self._done.set()
        self._thread.join()


def _size(value: Any) -> int:
    return sys.getsizeof(value)


def fetch_capped(cursor: Any, max_rows: int, max_bytes: int, batch: int = 8) -> tuple[list[tuple], bool]:
    """Up to `max_rows` rows and `max_bytes` bytes of `cursor`; returns (rows, truncated)."""
    rows: list[tuple] = []
    used = 0
    while len(rows) <= max_rows:
        chunk = cursor.fetchmany(min(batch, max_rows + 1 - len(rows)))
        if not chunk:
            return rows, False
        for r in chunk:
            row = tuple(r)
            used += 56 + sum(_size(v) for v in row)
            if used > max_bytes:
                if not rows:
                    raise ResultTooLarge(f"a single result row is larger than the limit of {max_bytes / MB:g} MB")
                return rows, True
            rows.append(row)
    return rows[:max_rows], True


class ResultTooLarge(RuntimeError):
    """The result is over its size cap before a single row could be kept."""


class TextBudget:
    """An SQLite `text_factory` that counts the bytes of text values as they are converted and
    stops the fetch once `limit` is spent, so a wide row is refused before it is built whole."""

    def __init__(self, limit: int):
        self.limit, self.left = limit, limit

    def __call__(self, raw: bytes) -> str:
        self.left -= len(raw)
        if self.left < 0:
            raise ResultTooLarge(f"the result is larger than the limit of {self.limit / MB:g} MB")
        return str(raw, "utf-8")


def friendly_error(msg: str, tripped: str | None, timeout_s: float, max_value_bytes: int,
                   max_memory_bytes: int | None) -> str:
    """One readable line for an engine error, naming the limit that stopped the query."""
    low = msg.lower()
    if tripped == "memory":
        return f"query exceeded the memory limit of {(max_memory_bytes or 0) / MB:g} MB"
    if tripped == "time" or "interrupted" in low or "statement timeout" in low or "canceling statement" in low:
        return f"query exceeded the time limit of {timeout_s:g}s"
    if "string or blob too big" in low or "too big" in low:
        return f"query builds a value larger than the limit of {max_value_bytes / MB:g} MB (string or blob too big)"
    if "out of memory" in low:
        return "query ran out of memory"
    return msg
