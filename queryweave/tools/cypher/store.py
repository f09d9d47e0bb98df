"""Graph stores behind one small protocol: embedded kuzu (default) and Neo4j over bolt.

`query(cypher, params) -> list[dict]` returns plain rows (nodes and relationships as property
dicts, with `_label`), `schema()` describes labels, relationship types and properties (`.text()`
renders it for prompts), `close()` releases the store. Both adapters are read-only by
construction: kuzu is opened with `read_only=True`, Neo4j sessions use READ access mode. A kuzu
file held read-write by another process cannot be opened at all: that is reported as
`StoreBusyError` with a clear message.

kuzu opened read-only still runs `COPY (...) TO 'file'` and `EXPORT DATABASE` (file writes; kuzu has
no authorizer hook), so `KuzuStore.query` runs the read-only Cypher guard (`tools.cypher.guard`)
itself, whoever calls it: defence in depth behind Text-to-Cypher's own check. A refused query is a
`QueryBlockedError` naming the reason. `execute` is the unguarded path for the loader's DDL.

Resource limits of a read-only kuzu store: the engine's query timeout (`set_query_timeout`), a
buffer pool of `max_memory_mb` (joins, aggregates and results live there; a query that needs more
fails with "buffer pool is full"), variable-length paths capped at the guard's `MAX_PATH_HOPS`
(`var_length_extend_max_depth`), and rows and bytes of the result capped. Limit errors come back as
`QueryLimitError` with one readable line. Read-only stores run kuzu in a child process
(`tools.cypher.engine`): kuzu 0.11 segfaults on some valid read queries, which then end the child, not
the application (`EngineCrashError`), and a call past twice the timeout is killed there.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from queryweave.tools.cypher.engine import (  # the errors are re-exported: callers import them here
    MB,
    EngineCrashError,
    IsolatedEngine,
    LocalEngine,
    QueryLimitError,
    StoreBusyError,
)
from queryweave.tools.cypher.guard import check_cypher

__all__ = ["EngineCrashError", "GraphSchema", "GraphStore", "KuzuStore", "Neo4jStore", "QueryBlockedError",
           "QueryLimitError", "StoreBusyError", "open_store"]


class QueryBlockedError(PermissionError, RuntimeError):
    """The store's own read-only guard refused a query (a write, a file export, several statements)."""


@dataclass
class GraphSchema:
    """Labels with typed properties, relationship types with properties, and their end points."""

    nodes: dict[str, dict[str, str]] = field(default_factory=dict)
    rels: dict[str, dict[str, str]] = field(default_factory=dict)
    patterns: list[tuple[str, str, str]] = field(default_factory=list)  # (from label, type, to label)
    examples: dict[str, str] = field(default_factory=dict)  # "Label.prop" -> example text

    def text(self) -> str:
        """Compact prompt form in the style of the Neo4j schema strings."""
        lines = ["Node properties:"]
        for label, props in self.nodes.items():
            lines.append(f"- {label}: " + ", ".join(
                f"{p} {t}" + (f" (e.g. {self.examples[f'{label}.{p}']})" if f"{label}.{p}" in self.examples else "")
                for p, t in props.items()))
        lines.append("Relationship properties:")
        for rel, props in self.rels.items():
            if props:
                lines.append(f"- {rel}: " + ", ".join(f"{p} {t}" for p, t in props.items()))
        lines.append("Relationships:")
        lines += [f"(:{a})-[:{r}]->(:{b})" for a, r, b in self.patterns]
        return "\n".join(lines)


@runtime_checkable
class GraphStore(Protocol):
    """What Text-to-Cypher needs from a graph database."""

    dialect: str

    def query(self, cypher: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """Run a read-only query and return rows as dicts."""
        ...

    def schema(self) -> GraphSchema:
        """Labels, relationship types and properties."""
        ...

    def close(self) -> None:
        """Release connections and file locks."""
        ...


class KuzuStore:
    """The embedded kuzu engine; read-only unless `read_only=False` (the loader's case)."""

    dialect = "kuzu"

    def __init__(self, path: str | Path, read_only: bool = True, max_rows: int = 1000, timeout_s: float = 10.0,
                 max_memory_mb: int = 256, max_result_bytes: int = 32 * MB, isolated: bool | None = None):
        """Open the kuzu database at `path`; `StoreBusyError` when another process holds it.

        Read-only stores get a buffer pool of `max_memory_mb`; every query `timeout_s`, `max_rows`
        rows and `max_result_bytes` of result. `isolated` (default: read-only stores, on POSIX) runs kuzu in a
        child process, so an engine crash is an `EngineCrashError`, not the end of this process
        (`tools.cypher.engine`)."""
        self.path = str(path)
        if read_only and not Path(self.path).exists():
            raise FileNotFoundError(f"graph store not found: {self.path}")
        self.max_rows = max_rows
        self.timeout_s = timeout_s
        self.max_memory_mb = max_memory_mb
        self.max_result_bytes = max_result_bytes
        self.isolated = (read_only and os.name == "posix") if isolated is None else isolated  # pipes passed by fd
        if self.isolated and not read_only:
            raise ValueError("only a read-only kuzu store runs in a child process")
        self.engine = (IsolatedEngine(self.path, max_memory_mb, timeout_s, max_rows, max_result_bytes)
                       if self.isolated else
                       LocalEngine(self.path, read_only, max_memory_mb, timeout_s, max_rows, max_result_bytes))
        self._schema: GraphSchema | None = None

    def execute(self, cypher: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """Run any statement (the loader uses this for DDL); rows capped at `max_rows`."""
        return self.engine.execute(cypher, params)

    def query(self, cypher: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """Run a read-only query: the Cypher guard first (`QueryBlockedError` when it refuses; the
        read-only database refuses writes but not `COPY ... TO` / `EXPORT DATABASE` file writes)."""
        verdict = check_cypher(cypher)
        if not verdict.allowed:
            raise QueryBlockedError(f"blocked by the graph store's read-only guard: {verdict.reason}")
        try:
            return self.execute(cypher, params)
        except RuntimeError as exc:
            text = str(exc)
            if text.startswith("Interrupted") or "timeout" in text.lower():
                raise QueryLimitError(f"query exceeded the time limit of {self.timeout_s:g}s") from exc
            if "buffer pool is full" in text or "Unable to allocate memory" in text:
                raise QueryLimitError(f"query exceeded the memory limit of {self.max_memory_mb} MB "
                                      "(graph store buffer pool full)") from exc
            raise

    def schema(self) -> GraphSchema:
        """Node and rel tables with property types, rel end points and a few example values."""
        if self._schema is None:
            s = GraphSchema()
            tables = self.execute("CALL show_tables() RETURN *")
            for t in tables:
                name, kind = t["name"], t["type"]
                props = {r["name"]: r["type"] for r in self.execute(f"CALL table_info('{name}') RETURN *")}
                if kind == "NODE":
                    s.nodes[name] = props
                elif kind == "REL":
                    s.rels[name] = props
                    for c in self.execute(f"CALL show_connection('{name}') RETURN *"):
                        s.patterns.append((c["source table name"], name, c["destination table name"]))
            for label, props in s.nodes.items():
                for prop, typ in props.items():
                    if typ == "STRING":
                        rows = self.execute(f"MATCH (n:{label}) WHERE n.{prop} IS NOT NULL RETURN n.{prop} AS v LIMIT 2")
                        if rows:
                            s.examples[f"{label}.{prop}"] = ", ".join(repr(r["v"][:40]) for r in rows)
                    elif typ in {"INT64", "INT32", "DOUBLE", "FLOAT"}:
                        rows = self.execute(f"MATCH (n:{label}) RETURN min(n.{prop}) AS lo, max(n.{prop}) AS hi")
                        if rows and rows[0]["lo"] is not None:
                            s.examples[f"{label}.{prop}"] = f"{rows[0]['lo']}..{rows[0]['hi']}"
            self._schema = s
        return self._schema

    def close(self) -> None:
        """Close the connection and release the file lock (and stop the child process)."""
        self.engine.close()


class Neo4jStore:
    """A thin adapter over the `neo4j` bolt driver; every session is opened in READ access mode."""

    dialect = "neo4j"

    def __init__(self, url: str, auth: tuple[str, str] | None = None, database: str | None = None,
                 max_rows: int = 1000, timeout_s: float = 10.0, driver: Any = None):
        """Connect to `url` (bolt:// or neo4j://); `driver` lets tests pass a stand-in."""
        if driver is None:
            import neo4j

            driver = neo4j.GraphDatabase.driver(url, auth=auth)
        self.driver = driver
        self.database = database
        self.max_rows = max_rows
        self.timeout_s = timeout_s

    def query(self, cypher: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """Run `cypher` in a READ session with a timeout; rows capped at `max_rows`. The Cypher guard runs
        first, as for kuzu (`QueryBlockedError`): a READ session still runs `LOAD CSV` and procedures."""
        verdict = check_cypher(cypher)
        if not verdict.allowed:
            raise QueryBlockedError(f"blocked by the graph store's read-only guard: {verdict.reason}")
        return self._run(cypher, params, self.max_rows)

    def _run(self, cypher: str, params: dict[str, Any] | None, cap: int) -> list[dict[str, Any]]:
        import neo4j

        with self.driver.session(database=self.database, default_access_mode=neo4j.READ_ACCESS) as session:
            result = session.run(neo4j.Query(cypher, timeout=self.timeout_s), params or {})
            rows = []
            for record in result:
                rows.append(record.data())
                if len(rows) >= cap:
                    break
            return rows

    def schema(self) -> GraphSchema:
        """Labels, types and properties from the built-in `db.schema.*` procedures (no APOC needed)."""
        s = GraphSchema()
        for row in self._run("CALL db.schema.nodeTypeProperties()", None, 100000):
            for label in row.get("nodeLabels") or []:
                props = s.nodes.setdefault(label, {})
                if row.get("propertyName"):
                    props[row["propertyName"]] = "/".join(row.get("propertyTypes") or [])
        for row in self._run("CALL db.schema.relTypeProperties()", None, 100000):
            rel = str(row.get("relType", "")).strip(":`")
            props = s.rels.setdefault(rel, {})
            if row.get("propertyName"):
                props[row["propertyName"]] = "/".join(row.get("propertyTypes") or [])
        for row in self._run(
            "MATCH (a)-[r]->(b) WITH DISTINCT labels(a)[0] AS a, type(r) AS r, labels(b)[0] AS b "
            "RETURN a, r, b LIMIT 200", None, 200):
            s.patterns.append((row["a"], row["r"], row["b"]))
        return s

    def close(self) -> None:
        """Close the driver."""
        self.driver.close()


def open_store(url_or_path: str, **kwargs: Any) -> GraphStore:
    """A Neo4j store for bolt://, neo4j:// URLs, else an embedded kuzu store at that path."""
    if url_or_path.split("://")[0] in {"bolt", "neo4j", "bolt+s", "neo4j+s", "bolt+ssc", "neo4j+ssc"}:
        return Neo4jStore(url_or_path, **kwargs)
    return KuzuStore(url_or_path, **kwargs)
