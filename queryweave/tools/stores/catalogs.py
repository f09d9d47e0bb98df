"""Which catalog a data dir uses: `catalog.sqlite` in it, or a knowledge base in PostgreSQL.

`Context.catalog_database` (`catalog_url`, else `database_url`) names the PostgreSQL database and
`Context.kb_name` the knowledge base's key in it (default: `default_kb_name` of the data dir). Callers
that do not pass them (`open_kb(data_dir, ...)`) get what `configure` recorded for the data dir in this
process (the server records its `Context`), else the environment's settings (`QUERYWEAVE_CATALOG_URL`,
`QUERYWEAVE_DATABASE_URL`, `QUERYWEAVE_KB_NAME`), so every part of a process reads one catalog.
"""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from queryweave.tools.stores.catalog import Catalog
from queryweave.tools.stores.pg import is_postgres_url

if TYPE_CHECKING:
    from queryweave.tools.stores.catalog_pg import PgCatalog

SQLITE_NAME = "catalog.sqlite"
_CONFIGURED: dict[str, tuple[str, str]] = {}
_KNOWN: set[tuple[str, str]] = set()
_LOCK = threading.Lock()


def _key(data_dir: str | Path) -> str:
    return str(Path(data_dir).expanduser().resolve())


def default_kb_name(data_dir: str | Path) -> str:
    """The knowledge base's key when none is set: the data dir's name and a hash of its absolute path
    (two data dirs never share one; hosts sharing a knowledge base set `QUERYWEAVE_KB_NAME`)."""
    path = _key(data_dir)
    return f"{Path(path).name or 'root'}-{hashlib.sha1(path.encode()).hexdigest()[:10]}"


def configure(data_dir: str | Path, url: str, kb_name: str = "") -> None:
    """Record where this process keeps the catalog of `data_dir` (for callers that do not say)."""
    _check(url)
    with _LOCK:
        _CONFIGURED[_key(data_dir)] = (url, kb_name)


def configure_from(ctx: Any) -> None:
    """`configure` with a `queryweave.config.Context`'s settings."""
    configure(ctx.data_dir, ctx.catalog_database, ctx.kb_name)


def settings(data_dir: str | Path, url: str | None = None, kb_name: str | None = None) -> tuple[str, str]:
    """(database URL or '' for SQLite, knowledge base name) for `data_dir`: the arguments where given, else
    what `configure` recorded, else the environment's settings."""
    if url is None:
        with _LOCK:
            configured = _CONFIGURED.get(_key(data_dir))
        if configured is None:  # the environment, as `Context.catalog_database` / `Context.kb_name` read it
            env = os.environ.get
            configured = (env("QUERYWEAVE_CATALOG_URL") or env("QUERYWEAVE_DATABASE_URL") or "",
                          env("QUERYWEAVE_KB_NAME") or "")
        url, kb_name = configured[0], kb_name or configured[1]
    _check(url)
    return url, (kb_name or default_kb_name(data_dir)) if url else ""


def _check(url: str) -> None:
    if url and not is_postgres_url(url):
        raise ValueError(f"the catalog needs a PostgreSQL URL (postgresql://...), not {url.split('://', 1)[0]}://")


def open_catalog(data_dir: str | Path, url: str = "", kb_name: str = "", read_only: bool = False) -> Catalog | PgCatalog:
    """The catalog of `data_dir`: SQLite in it when `url` is empty, else the PostgreSQL knowledge base
    `kb_name` (imported once from the data dir's `catalog.sqlite` when it is empty there)."""
    folder = Path(data_dir).expanduser()
    if not url:
        return Catalog(folder / SQLITE_NAME, read_only=read_only)
    from queryweave.tools.stores.catalog_pg import PgCatalog

    return PgCatalog(url, kb_name or default_kb_name(folder), read_only=read_only,
                     import_from=None if read_only else folder / SQLITE_NAME)


def has_catalog(data_dir: str | Path, url: str = "", kb_name: str = "") -> bool:
    """Whether `data_dir` has a knowledge base: its `catalog.sqlite` (which a PostgreSQL catalog imports
    on first use), or rows for `kb_name` in the PostgreSQL catalog (once found, remembered for the process).
    Cheap; False when the database is down."""
    folder = Path(data_dir).expanduser()
    if (folder / SQLITE_NAME).exists():
        return True
    if not url:
        return False
    from queryweave.tools.stores.catalog_pg import has_knowledge_base

    key = (url, kb_name or default_kb_name(folder))
    if key not in _KNOWN and has_knowledge_base(*key):
        _KNOWN.add(key)  # a knowledge base found stays found: asked per question, a connection each time is waste
    return key in _KNOWN
