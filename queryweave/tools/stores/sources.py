"""Structured sources registered by configuration: a SQL database and a Cypher graph, opened once.

Both are read-only by construction (SQLite `mode=ro`, PostgreSQL READ ONLY transactions, Kuzu
`read_only=True`, Neo4j READ sessions), behind the guards of `tools.sql.guard`/`tools.cypher.guard`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
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
    """Tokens of the database's table and column names, split on `_` and camelCase (`FlightNo`: flight, no)."""
    from queryweave.tools.sql.schema_select import identifier_tokens

    db = open_sql(url)
    vocab: set[str] = set()
    for name, table in db.tables().items():
        vocab.update(identifier_tokens(name))
        for col, _type in table.columns:
            vocab.update(identifier_tokens(col))
    return frozenset(vocab)


VALUE_COLUMN_LIMIT = 100  # a text column with more distinct values than this is not read
VALUE_SCAN_ROWS = 10000  # rows of a table looked at, so a large table costs no more than a small one
VALUE_MAX_COLUMNS = 200  # text columns read at most (the first ones of the schema)


def _value_tokens(values: Iterable[Any]) -> set[frozenset[str]]:
    """Each value's content tokens (words of three letters or more, no bare numbers), for values of four such
    words at most: a question names such a value whole."""
    out = set()
    for value in values:
        toks = frozenset(t for t in tokenize(str(value)) if len(t) >= 3 and not t.isdigit())
        if toks and len(toks) <= 4:
            out.add(toks)
    return out


@lru_cache(maxsize=8)
def sql_values(url: str) -> frozenset[frozenset[str]]:
    """The tokens of each value of the database's low-cardinality text columns (`PetType`: dog, cat;
    `City`: aberdeen), for questions that name the data rather than the schema ("the youngest dog").
    Read once per database, from the first rows of each table only."""
    db = open_sql(url)
    out: set[frozenset[str]] = set()
    columns = [(t, c) for t in db.tables() for c in db.text_columns(t)][:VALUE_MAX_COLUMNS]
    for table, col in columns:
        out |= _value_tokens(db.distinct_values(table, col, VALUE_COLUMN_LIMIT, scan_rows=VALUE_SCAN_ROWS) or [])
    return frozenset(out)


@lru_cache(maxsize=8)
def graph_vocabulary(url_or_path: str) -> frozenset[str]:
    """Tokens of the graph's labels, relationship types and property names, split on `_` and camelCase
    (`releaseYear`: release, year; `ACTED_IN`: act)."""
    from queryweave.tools.sql.schema_select import identifier_tokens

    schema = open_graph(url_or_path).schema()
    text = schema.text() if hasattr(schema, "text") else str(schema)
    return frozenset().union(*(identifier_tokens(w) for w in re.findall(r"[A-Za-z0-9_]+", text)))


@lru_cache(maxsize=8)
def graph_values(url_or_path: str) -> frozenset[frozenset[str]]:
    """The tokens of each value of the graph's string node properties with few values (a movie title,
    a genre), as `sql_values` for SQL: for questions that name the data rather than the schema."""
    store = open_graph(url_or_path)
    out: set[frozenset[str]] = set()
    props = [(label, p) for label, ps in store.schema().nodes.items() for p, kind in ps.items()
             if str(kind).upper() in ("STRING", "STR")][:VALUE_MAX_COLUMNS]
    for label, prop in props:
        try:
            rows = store.query(f"MATCH (n:{label}) WITH n LIMIT {VALUE_SCAN_ROWS} WHERE n.{prop} IS NOT NULL "
                               f"RETURN DISTINCT n.{prop} AS v LIMIT {VALUE_COLUMN_LIMIT + 1}")
        except Exception:  # a store that cannot answer: no values, the schema names still count
            continue
        if len(rows) <= VALUE_COLUMN_LIMIT:
            out |= _value_tokens(row.get("v") for row in rows)
    return frozenset(out)
