"""PostgreSQL connections for the shared state (checkpointer, query logs): one pool per URL per process.

A pooled connection is checked before it is handed out, so a PostgreSQL server that restarted (or a
dropped connection) costs a reconnect, not a failed request. Connections are autocommit, with
`dict_row` rows and no prepared statements (what `langgraph-checkpoint-postgres` expects; PgBouncer in
transaction mode accepts it too). Needs the postgres extra (`psycopg[binary]`, `psycopg-pool`).
"""

from __future__ import annotations

import threading
from typing import Any

_POOLS: dict[str, Any] = {}
_LOCK = threading.Lock()
POOL_MAX = 8
"""Connections per pool (per process and URL): a server worker runs at most this many queries at once."""


def is_postgres_url(url: str) -> bool:
    """Whether `url` is a PostgreSQL URL (libpq form, optionally with a SQLAlchemy driver suffix)."""
    return url.split("://", 1)[0].split("+", 1)[0] in {"postgresql", "postgres"}


def libpq_url(url: str) -> str:
    """`url` without a SQLAlchemy driver suffix (`postgresql+psycopg://` -> `postgresql://`)."""
    scheme, sep, rest = url.partition("://")
    return f"{scheme.split('+', 1)[0]}{sep}{rest}"


def pool(url: str) -> Any:
    """The process-wide connection pool for `url` (opened on first use, waits up to 30 s for a connection)."""
    url = libpq_url(url)
    with _LOCK:
        if url not in _POOLS:
            try:
                from psycopg.rows import dict_row
                from psycopg_pool import ConnectionPool
            except ImportError as exc:  # pragma: no cover - the extra is missing
                raise ValueError("PostgreSQL state needs the postgres extra: "
                                 "pip install -c constraints.txt 'queryweave[postgres]'") from exc
            p = ConnectionPool(url, min_size=1, max_size=POOL_MAX, open=False, check=ConnectionPool.check_connection,
                               kwargs={"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row},
                               name="queryweave")
            p.open(wait=True, timeout=30)
            _POOLS[url] = p
        return _POOLS[url]


def close_pools() -> None:
    """Close every pool of this process (tests, shutdown)."""
    with _LOCK:
        for p in _POOLS.values():
            p.close()
        _POOLS.clear()
