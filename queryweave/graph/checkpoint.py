"""Checkpointers for conversation memory: SQLite in the data dir by default, PostgreSQL when a URL is set."""

from __future__ import annotations

import sqlite3
from typing import Any

from queryweave.config import Context


def make_checkpointer(ctx: Context) -> Any:
    """A checkpointer for `ctx`: `PostgresSaver` if `checkpoint_url` is set, else `SqliteSaver`."""
    if ctx.checkpoint_url:
        try:
            from langgraph.checkpoint.postgres import PostgresSaver
            from psycopg import Connection
        except ImportError as exc:  # pragma: no cover
            raise ValueError("a PostgreSQL checkpointer needs `pip install 'queryweave[postgres]'`") from exc
        conn = Connection.connect(ctx.checkpoint_url, autocommit=True, prepare_threshold=0)
        saver = PostgresSaver(conn)
        saver.setup()
        return saver
    from langgraph.checkpoint.sqlite import SqliteSaver

    conn = sqlite3.connect(ctx.path / "checkpoints.sqlite", check_same_thread=False, timeout=30)
    conn.execute("PRAGMA journal_mode=WAL")
    return SqliteSaver(conn)
