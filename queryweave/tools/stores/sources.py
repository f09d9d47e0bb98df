"""Structured sources registered by configuration: a SQL database and a Cypher graph, opened once.

Both are read-only by construction (SQLite `mode=ro`, PostgreSQL READ ONLY transactions, Kuzu
`read_only=True`, Neo4j READ sessions), behind the guards of `tools.sql.guard`/`tools.cypher.guard`.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache
from typing import Any

from queryweave.tools.common.text import tokenize


@lru_cache(maxsize=4)
def open_sql(url: str) -> Any:
    """The `SqlDatabase` at `url` (SQLAlchemy URL or SQLite path)."""
    from queryweave.tools.sql.database import SqlDatabase

    return SqlDatabase(url)


@lru_cache(maxsize=4)
def open_graph(url_or_path: str) -> Any:
    """The graph store: Neo4j for bolt:// URLs (credentials from the environment), else embedded Kuzu."""
    from queryweave.tools.cypher.store import open_store

    if "://" in url_or_path:
        user = os.environ.get("QUERYWEAVE_NEO4J_USER", "")
        password = os.environ.get("QUERYWEAVE_NEO4J_PASSWORD", "")
        return open_store(url_or_path, auth=(user, password) if user else None)
    return open_store(url_or_path)


def redact(url: str) -> str:
    """A URL without its password, for display."""
    return re.sub(r"(://[^:/@]+):[^@]+@", r"\1:***@", url)


@lru_cache(maxsize=8)
def sql_vocabulary(url: str) -> frozenset[str]:
    """Tokens of the database's table and column names."""
    db = open_sql(url)
    vocab: set[str] = set()
    for name, table in db.tables().items():
        vocab.update(tokenize(name.replace("_", " ")))
        for col, _type in table.columns:
            vocab.update(tokenize(col.replace("_", " ")))
    return frozenset(vocab)


@lru_cache(maxsize=8)
def graph_vocabulary(url_or_path: str) -> frozenset[str]:
    """Tokens of the graph's labels, relationship types and property names."""
    schema = open_graph(url_or_path).schema()
    text = schema.text() if hasattr(schema, "text") else str(schema)
    return frozenset(tokenize(re.sub(r"[_:()\[\]{}<>-]", " ", text)))
