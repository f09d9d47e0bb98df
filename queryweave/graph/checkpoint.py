"""Checkpointers for conversation memory: SQLite in the data dir by default, PostgreSQL when a URL is set.

`checkpoint_url` (or, without it, `database_url`) names a PostgreSQL database: every worker and host
pointing at it shares the threads, so a conversation started on one continues on another. The
`PostgresSaver` runs over a process-wide connection pool (`tools/stores/pg.py`) and is set up (tables
created or migrated) once per process and URL; a PostgreSQL restart costs a reconnect, not a thread.
"""

from __future__ import annotations

import sqlite3
import threading
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
            _SAVERS[url] = saver
        return _SAVERS[url]


def make_checkpointer(ctx: Context) -> Any:
    """A checkpointer for `ctx`: `PostgresSaver` if `checkpoint_url`/`database_url` is set, else `SqliteSaver`."""
    url = ctx.checkpoint_url or ctx.database_url
    if url:
        return postgres_saver(url)
    from langgraph.checkpoint.sqlite import SqliteSaver

    conn = sqlite3.connect(ctx.path / "checkpoints.sqlite", check_same_thread=False, timeout=30)
    conn.execute("PRAGMA journal_mode=WAL")
    return SqliteSaver(conn)
