"""A read-only SQL database behind any SQLAlchemy URL: limits, schema introspection, value lookup.

SQLite files are opened read-only (`file:...?mode=ro` URI), so even a query the guard missed cannot
write. Every query runs within limits (`tools/sql/limits.py`): rows and bytes of the result, the
longest value an expression may build and SQL text length (SQLite `setlimit`), time (a watchdog
thread calling `interrupt()`, plus the progress handler; PostgreSQL's `statement_timeout`) and
SQLite heap growth; PostgreSQL runs each query in a READ ONLY transaction on a session whose
default is read-only, through a server-side cursor. String amplification no limit can stop inside
one function call is refused first (`tools/sql/costs.py`). The schema is rendered compactly for
prompts: one line per table with column types, keys, foreign keys and a few sample rows.
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlglot
from sqlalchemy import create_engine, inspect, text
from sqlalchemy.engine import Engine, make_url

from queryweave.tools.sql.costs import check_costs
from queryweave.tools.sql.limits import (
    MB,
    ResultTooLarge,
    TextBudget,
    Watchdog,
    apply_limits,
    fetch_capped,
    friendly_error,
    sqlite_limits,
)


@dataclass
class QueryResult:
    """Rows of one query, or the error that stopped it."""

    columns: list[str] = field(default_factory=list)
    rows: list[tuple] = field(default_factory=list)
    error: str | None = None
    truncated: bool = False
    elapsed_s: float = 0.0


@dataclass
class TableInfo:
    """One table: columns with types, primary key, foreign keys and sample rows."""

    name: str
    columns: list[tuple[str, str]]
    primary_key: list[str]
    foreign_keys: list[tuple[str, str, str]]  # (column, referred table, referred column)
    samples: list[tuple] = field(default_factory=list)

    def render(self, values: dict[str, list[Any]] | None = None) -> str:
        """Compact prompt form: `name(col TYPE PK, col TYPE -> other.col, ...)` plus sample rows."""
        fks = {c: f"{t}.{rc}" for c, t, rc in self.foreign_keys}
        cols = []
        for col, typ in self.columns:
            part = f"{col} {typ}".strip()
            if col in self.primary_key:
                part += " PK"
            if col in fks:
                part += f" -> {fks[col]}"
            cols.append(part)
        lines = [f"{self.name}({', '.join(cols)})"]
        for col, vals in (values or {}).items():
            lines.append(f"  -- {col} values: {', '.join(repr(v) for v in vals)}")
        if self.samples:
            shown = "; ".join("(" + ", ".join(_short(v) for v in row) + ")" for row in self.samples)
            lines.append(f"  -- rows: {shown}")
        return "\n".join(lines)


_SQLITE_DENIED = {sqlite3.SQLITE_ATTACH, sqlite3.SQLITE_DETACH, sqlite3.SQLITE_PRAGMA,
                  sqlite3.SQLITE_CREATE_TEMP_TABLE, sqlite3.SQLITE_CREATE_TEMP_VIEW,
                  sqlite3.SQLITE_CREATE_TEMP_INDEX, sqlite3.SQLITE_CREATE_TEMP_TRIGGER}


def _sqlite_authorizer(action: int, *_: Any) -> int:
    """SQLite authorizer for `run`. A `mode=ro` file refuses writes to the database itself, but still
    lets ATTACH create a file, VACUUM INTO copy the database elsewhere (both also need an attach
    slot, and `run` allows none), PRAGMAs change the connection and TEMP objects be created."""
    return sqlite3.SQLITE_DENY if action in _SQLITE_DENIED else sqlite3.SQLITE_OK


def _short(value: Any, limit: int = 30) -> str:
    s = repr(value)
    return s if len(s) <= limit else s[: limit - 3] + "...'"


def _readonly_url(url: str) -> tuple[str, bool]:
    """Rewrite a SQLite file URL to a read-only URI; returns (url, is_sqlite)."""
    parsed = make_url(url)
    if not parsed.drivername.startswith("sqlite"):
        return url, False
    db = parsed.database or ""
    if not db or db == ":memory:" or db.startswith("file:"):
        return url, True
    path = Path(db).expanduser().resolve()
    if not path.exists():
        raise FileNotFoundError(f"SQLite database not found: {path}")
    return f"{parsed.drivername}:///file:{path}?mode=ro&uri=true", True


def postgres_session_sql(timeout_s: float) -> list[str]:
    """Statements opening each PostgreSQL query's transaction: read-only, with time limits."""
    ms = max(1, int(timeout_s * 1000))
    return ["SET TRANSACTION READ ONLY", f"SET LOCAL statement_timeout = {ms}",
            f"SET LOCAL idle_in_transaction_session_timeout = {ms * 2}"]


def _engine_options(url: str, timeout_s: float) -> dict[str, Any]:
    """Driver options: a PostgreSQL session that is read-only by default, with a statement timeout
    (libpq `options`), so even a statement outside `run` cannot write. The role itself should still
    be a SELECT-only one (see docs/structured_routing.md)."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "postgresql" and parsed.get_driver_name() in {"psycopg2", "psycopg", ""}:
        ms = max(1, int(timeout_s * 1000))
        return {"connect_args": {"options": f"-c default_transaction_read_only=on -c statement_timeout={ms}"}}
    return {}


def _resolve_dangling(tables: dict[str, TableInfo]) -> None:
    """Point foreign keys whose table does not exist at the table that has the referred column."""
    lower = {n.lower(): n for n in tables}
    for info in tables.values():
        fixed = []
        for col, ref, rcol in info.foreign_keys:
            if ref.lower() in lower:
                fixed.append((col, lower[ref.lower()], rcol))
                continue
            owners = [t for t in tables.values() if t.name != info.name
                      and rcol.lower() in {c.lower() for c, _ in t.columns}]
            owners.sort(key=lambda t: (rcol.lower() not in {p.lower() for p in t.primary_key}, t.name))
            if owners:
                fixed.append((col, owners[0].name, rcol))
        info.foreign_keys = fixed


class SqlDatabase:
    """A database opened for reading, with a row cap and a per-query time limit."""

    def __init__(self, url: str, max_rows: int = 1000, timeout_s: float = 10.0, sample_rows: int = 3,
                 max_result_bytes: int = 32 * MB, max_value_bytes: int = 2 * MB,
                 max_memory_bytes: int | None = 128 * MB, max_sql_chars: int = 20_000):
        """Open `url` (a SQLAlchemy URL or a path to a SQLite file) read-only.

        Limits per query: `max_rows` and `max_result_bytes` of result (beyond them `truncated`),
        `timeout_s`; for SQLite also `max_value_bytes` (longest string/blob), `max_sql_chars` and
        `max_memory_bytes` of SQLite heap growth (None: unchecked).
        """
        if "://" not in url:
            url = f"sqlite:///{url}"
        self.url, self.is_sqlite = _readonly_url(url)
        self.max_rows = max_rows
        self.timeout_s = timeout_s
        self.sample_rows = sample_rows
        self.max_result_bytes = max_result_bytes
        self.max_value_bytes = max_value_bytes
        self.max_memory_bytes = max_memory_bytes
        self.max_sql_chars = max_sql_chars
        self.engine: Engine = create_engine(self.url, **_engine_options(self.url, timeout_s))
        self._tables: dict[str, TableInfo] | None = None

    @property
    def dialect(self) -> str:
        """The sqlglot dialect name of this database."""
        name = self.engine.dialect.name
        return {"postgresql": "postgres", "mssql": "tsql"}.get(name, name)

    def close(self) -> None:
        """Release the connection pool."""
        self.engine.dispose()

    def run(self, sql: str, max_rows: int | None = None) -> QueryResult:
        """Execute one (already guarded) query within the limits; errors come back in `.error`."""
        cap = self.max_rows if max_rows is None else max_rows
        start = time.monotonic()
        if (problem := self._cost_problem(sql)) is not None:
            return QueryResult(error=f"query refused by the resource limits: {problem}")
        watchdog: Watchdog | None = None
        try:
            with self.engine.connect() as conn:
                raw = conn.connection.driver_connection
                if self.is_sqlite:
                    deadline = start + self.timeout_s
                    raw.set_progress_handler(lambda: 1 if time.monotonic() > deadline else 0, 1000)
                    previous = apply_limits(raw, sqlite_limits(self.max_value_bytes, self.max_sql_chars))
                    raw.set_authorizer(_sqlite_authorizer)
                    text_factory, raw.text_factory = raw.text_factory, TextBudget(self.max_result_bytes)
                elif self.engine.dialect.name == "postgresql":
                    for statement in postgres_session_sql(self.timeout_s):
                        conn.execute(text(statement))
                try:
                    watchdog = Watchdog(raw.interrupt if self.is_sqlite else (lambda: None), self.timeout_s,
                                        self.max_memory_bytes if self.is_sqlite else None)
                    with watchdog:
                        cur = conn.execution_options(stream_results=True).exec_driver_sql(self._driver_sql(sql))
                        columns = list(cur.keys())
                        rows, truncated = fetch_capped(cur, cap, self.max_result_bytes)
                        cur.close()
                finally:
                    if self.is_sqlite:
                        raw.set_progress_handler(None, 0)
                        raw.set_authorizer(None)
                        raw.text_factory = text_factory
                        apply_limits(raw, previous)
                    conn.rollback()
        except ResultTooLarge as exc:
            return QueryResult(error=str(exc), elapsed_s=time.monotonic() - start)
        except Exception as exc:
            msg = str(getattr(exc, "orig", None) or exc).splitlines()[0]
            msg = friendly_error(msg, watchdog.tripped if watchdog else None, self.timeout_s,
                                 self.max_value_bytes, self.max_memory_bytes)
            return QueryResult(error=msg, elapsed_s=time.monotonic() - start)
        return QueryResult(columns, rows, None, truncated, time.monotonic() - start)

    def _driver_sql(self, sql: str) -> str:
        """`sql` as the DB-API driver must see it: drivers with `format` placeholders (psycopg) read
        `%` as one even without parameters (`LIKE '%Hey%'` failed), so it is doubled for them."""
        return sql.replace("%", "%%") if self.engine.dialect.paramstyle in {"format", "pyformat"} else sql

    def _cost_problem(self, sql: str) -> str | None:
        """The resource rule `sql` breaks (`costs.check_costs`); None also when it does not parse."""
        try:
            parsed = [p for p in sqlglot.parse(sql, read=self.dialect) if p is not None]
        except Exception:  # noqa: BLE001 - the guard reports parse errors; the engine limits still hold
            return None
        return next((p for p in map(check_costs, parsed) if p), None)

    # ---- schema -------------------------------------------------------------------------------

    def tables(self) -> dict[str, TableInfo]:
        """Every table with columns, keys and sample rows (cached)."""
        if self._tables is None:
            insp = inspect(self.engine)
            out: dict[str, TableInfo] = {}
            for name in insp.get_table_names():
                if name.startswith("sqlite_"):
                    continue
                cols = [(c["name"], str(c["type"]) if c.get("type") is not None else "") for c in insp.get_columns(name)]
                pk = list(insp.get_pk_constraint(name).get("constrained_columns") or [])
                fks = []
                for fk in insp.get_foreign_keys(name):
                    for c, rc in zip(fk["constrained_columns"], fk["referred_columns"], strict=False):
                        fks.append((c, fk["referred_table"], rc))
                out[name] = TableInfo(name, cols, pk, fks)
            _resolve_dangling(out)
            for info in out.values():
                if self.sample_rows:
                    res = self.run(f"SELECT * FROM {self.quote(info.name)} LIMIT {self.sample_rows}",
                                   max_rows=self.sample_rows)
                    info.samples = res.rows
            self._tables = out
        return self._tables

    def quote(self, name: str) -> str:
        """Quote an identifier for this dialect."""
        return self.engine.dialect.identifier_preparer.quote(name)

    def text_columns(self, table: str) -> list[str]:
        """Columns of `table` whose declared type is textual."""
        info = self.tables()[table]
        return [c for c, t in info.columns if any(k in t.upper() for k in ("CHAR", "TEXT", "CLOB", "STRING"))
                or t == ""]

    def distinct_values(self, table: str, column: str, limit: int = 12,
                        scan_rows: int | None = None) -> list[Any] | None:
        """The column's distinct values when there are at most `limit` of them, else None; with `scan_rows`,
        among the table's first `scan_rows` rows only (a large table then costs no more than a small one)."""
        q = self.quote
        source = f"(SELECT {q(column)} FROM {q(table)} LIMIT {int(scan_rows)}) AS s" if scan_rows else q(table)
        res = self.run(f"SELECT DISTINCT {q(column)} FROM {source} WHERE {q(column)} IS NOT NULL "
                       f"LIMIT {limit + 1}", max_rows=limit + 1)
        if res.error or len(res.rows) > limit:
            return None
        return [r[0] for r in res.rows]

    def find_values(self, term: str, tables: list[str] | None = None, limit: int = 3) -> list[tuple[str, str, Any]]:
        """Database values that contain `term` (case-insensitive LIKE) in text columns: (table, column, value)."""
        if not term.strip():
            return []
        q = self.quote
        pattern = "%" + term.replace("'", "''").replace("%", "").replace("_", "") + "%"
        like = "ILIKE" if self.engine.dialect.name == "postgresql" else "LIKE"  # SQLite's LIKE ignores case
        hits: list[tuple[str, str, Any]] = []
        for table in tables or list(self.tables()):
            for col in self.text_columns(table):
                res = self.run(f"SELECT DISTINCT {q(col)} FROM {q(table)} WHERE {q(col)} {like} '{pattern}' "
                               f"LIMIT {limit}", max_rows=limit)
                hits.extend((table, col, r[0]) for r in res.rows if r[0] is not None)
        return hits

    def schema_text(self, tables: list[str] | None = None, low_cardinality: int = 0) -> str:
        """The schema of `tables` (all when None) rendered compactly for a prompt.

        With `low_cardinality > 0`, text columns with at most that many distinct values list them
        (helps when a question's values were translated, e.g. 法国 -> 'France').
        """
        infos = self.tables()
        blocks = []
        for name in tables or list(infos):
            info = infos[name]
            values = {}
            if low_cardinality:
                for col in self.text_columns(name):
                    vals = self.distinct_values(name, col, low_cardinality)
                    if vals and len(vals) > 1 and not all(str(v).strip().lstrip("-").isdigit() for v in vals):
                        values[col] = vals
            blocks.append(info.render(values))
        return "\n".join(blocks)
