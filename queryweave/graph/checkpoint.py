"""Checkpointers for conversation memory: SQLite in the data dir by default, PostgreSQL when a URL is set.

`checkpoint_url` (or, without it, `database_url`) names a PostgreSQL database: every worker and host
pointing at it shares the threads, so a conversation started on one continues on another. The
`PostgresSaver` runs over a process-wide connection pool (`tools/stores/pg.py`) and is set up (tables
created or migrated) once per process and URL; a PostgreSQL restart costs a reconnect, not a thread.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import Any

from queryweave.config import Context

_SAVERS: dict[str, Any] = {}
_LOCK = threading.Lock()


def postgres_saver(url: str) -> Any:
    """The process-wide `PostgresSaver` for `url` (tables set up on first use)."""
    with _LOCK:
        if url not in _SAVERS:
            try:
                from langgraph.checkpoint.postgres import PostgresSaver
            except ImportError as exc:  # pragma: no cover
                raise ValueError("a PostgreSQL checkpointer needs `pip install 'queryweave[postgres]'`") from exc
            from queryweave.tools.stores.pg import pool

            saver = PostgresSaver(pool(url))
            saver.setup()
            _SAVERS[url] = (saver, None)
        return _SAVERS[url][0]


def sqlite_saver(path: Path) -> Any:
    """The process-wide `SqliteSaver` for the file at `path` (one connection, tables set up once; a new
    one when the file was replaced or removed since)."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    key = str(path)
    with _LOCK:
        saver, inode = _SAVERS.get(key, (None, None))
        if saver is None or not path.exists() or path.stat().st_ino != inode:
            conn = sqlite3.connect(path, check_same_thread=False, timeout=30)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")  # WAL: durable at each checkpoint, no fsync per commit
            saver = SqliteSaver(conn)
            saver.setup()
            _SAVERS[key] = (saver, path.stat().st_ino)
        return saver


def make_checkpointer(ctx: Context) -> Any:
    """A checkpointer for `ctx`: `PostgresSaver` if `checkpoint_url`/`database_url` is set, else `SqliteSaver`."""
    url = ctx.checkpoint_url or ctx.database_url
    if url:
        return postgres_saver(url)
    return sqlite_saver(ctx.path / "checkpoints.sqlite")
