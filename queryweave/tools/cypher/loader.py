"""Load a Neo4j-style CREATE script into the embedded kuzu engine, inferring its schema.

kuzu needs tables before data: every label becomes a node table whose properties and types are
inferred from the script (STRING, INT64, DOUBLE, BOOLEAN and lists of them); the primary key is the
first property present and unique on every node of the label (`title`, `name`), else a hidden
`_qid`. Every relationship type becomes a rel table with all the label pairs it connects.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from queryweave.tools.cypher.script import ParsedGraph, parse_script
from queryweave.tools.cypher.store import KuzuStore

HIDDEN_KEY = "_qid"


@dataclass
class LoadReport:
    """What the loader created."""

    path: str
    nodes: int
    rels: int
    node_tables: dict[str, str]  # label -> primary key
    rel_tables: list[str]


def _kuzu_type(values: list[Any]) -> str:
    vals = [v for v in values if v is not None]
    if not vals:
        return "STRING"
    if all(isinstance(v, list) for v in vals):
        inner = _kuzu_type([x for v in vals for x in v])
        return f"{inner}[]"
    if all(isinstance(v, bool) for v in vals):
        return "BOOLEAN"
    if all(isinstance(v, int) and not isinstance(v, bool) for v in vals):
        return "INT64"
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in vals):
        return "DOUBLE"
    return "STRING"


def _coerce(value: Any, typ: str) -> Any:
    if value is None:
        return None
    if typ.endswith("[]"):
        return [_coerce(v, typ[:-2]) for v in (value if isinstance(value, list) else [value])]
    if typ == "STRING" and not isinstance(value, str):
        return str(value)
    if typ == "DOUBLE":
        return float(value)
    return value


def infer_schema(graph: ParsedGraph) -> tuple[dict[str, dict[str, str]], dict[str, str], dict[str, Any]]:
    """(label -> {property: type}, label -> primary key, rel type -> ({prop: type}, [(from, to)]))."""
    by_label: dict[str, list[dict[str, Any]]] = {}
    for label, props in graph.nodes:
        by_label.setdefault(label, []).append(props)
    node_types: dict[str, dict[str, str]] = {}
    keys: dict[str, str] = {}
    for label, items in by_label.items():
        names = list(dict.fromkeys(k for props in items for k in props))
        node_types[label] = {k: _kuzu_type([p.get(k) for p in items]) for k in names}
        keys[label] = HIDDEN_KEY
        for k in names:
            vals = [p.get(k) for p in items]
            if node_types[label][k] in {"STRING", "INT64"} and None not in vals and len(set(vals)) == len(vals):
                keys[label] = k
                break
    rels: dict[str, Any] = {}
    for rtype, a, b, props in graph.rels:
        entry = rels.setdefault(rtype, ({}, []))
        pair = (graph.nodes[a][0], graph.nodes[b][0])
        if pair not in entry[1]:
            entry[1].append(pair)
        for k, v in props.items():
            entry[0].setdefault(k, []).append(v)
    rel_types = {r: ({k: _kuzu_type(v) for k, v in props.items()}, pairs) for r, (props, pairs) in rels.items()}
    return node_types, keys, rel_types


_SCHEMA_TYPES = {"STRING": "STRING", "INTEGER": "INT64", "FLOAT": "DOUBLE", "BOOLEAN": "BOOLEAN",
                 "LIST": "STRING[]", "DATE": "DATE"}


def declared_properties(schema_text: str) -> dict[str, dict[str, str]]:
    """Node properties declared in a Neo4j schema description (`- **Label**` then `` - `prop`: TYPE``)."""
    import json
    import re

    try:
        schema_text = json.loads(schema_text).get("schema", schema_text)
    except (ValueError, AttributeError):
        pass
    section = schema_text.split("Relationship properties:")[0]
    out: dict[str, dict[str, str]] = {}
    label = None
    for line in section.splitlines():
        m = re.match(r"\s*-\s*\*\*(\w+)\*\*", line)
        if m:
            label = m.group(1)
            out[label] = {}
            continue
        m = re.match(r"\s*-\s*`(\w+)`:?\s*(\w+)", line)
        if m and label:
            out[label][m.group(1)] = _SCHEMA_TYPES.get(m.group(2).upper(), "STRING")
    return out


def load_script(script: str | Path, path: str | Path, overwrite: bool = False,
                schema_text: str | None = None) -> LoadReport:
    """Parse a CREATE script (text or file) and write it into a new kuzu database at `path`.

    `schema_text` (a Neo4j schema description) adds node properties that are declared but never set
    in the script, so queries naming them find NULL, as on Neo4j, instead of a binder error.
    """
    text = Path(script).read_text(encoding="utf-8") if isinstance(script, Path) or (
        isinstance(script, str) and "\n" not in script and Path(script).exists()) else str(script)
    graph = parse_script(text)
    target = Path(path)
    if target.exists():
        if not overwrite:
            raise FileExistsError(f"{target} exists (pass overwrite=True to rebuild it)")
        shutil.rmtree(target) if target.is_dir() else target.unlink()
    target.parent.mkdir(parents=True, exist_ok=True)
    node_types, keys, rel_types = infer_schema(graph)
    for label, props in declared_properties(schema_text or "").items():
        for prop, typ in props.items():
            if label in node_types:
                node_types[label].setdefault(prop, typ)
    store = KuzuStore(target, read_only=False)
    try:
        for label, props in node_types.items():
            cols = [f"`{k}` {t}" for k, t in props.items()]
            if keys[label] == HIDDEN_KEY:
                cols.insert(0, f"{HIDDEN_KEY} INT64")
            store.execute(f"CREATE NODE TABLE `{label}`({', '.join(cols)}, PRIMARY KEY(`{keys[label]}`))")
        for rtype, (props, pairs) in rel_types.items():
            ends = ", ".join(f"FROM `{a}` TO `{b}`" for a, b in pairs)
            cols = "".join(f", `{k}` {t}" for k, t in props.items())
            store.execute(f"CREATE REL TABLE `{rtype}`({ends}{cols})")
        key_of: list[Any] = []
        for i, (label, props) in enumerate(graph.nodes):
            row = {k: _coerce(v, node_types[label][k]) for k, v in props.items() if v is not None}
            if keys[label] == HIDDEN_KEY:
                row[HIDDEN_KEY] = i
            key_of.append(row[keys[label]])
            assigns = ", ".join(f"`{k}`: $p{j}" for j, k in enumerate(row))
            store.execute(f"CREATE (:`{label}` {{{assigns}}})", {f"p{j}": v for j, v in enumerate(row.values())})
        for rtype, a, b, props in graph.rels:
            la, lb = graph.nodes[a][0], graph.nodes[b][0]
            types = rel_types[rtype][0]
            row = {k: _coerce(v, types[k]) for k, v in props.items() if v is not None}
            assigns = ", ".join(f"`{k}`: $p{j}" for j, k in enumerate(row))
            params = {f"p{j}": v for j, v in enumerate(row.values())} | {"a": key_of[a], "b": key_of[b]}
            store.execute(
                f"MATCH (a:`{la}` {{`{keys[la]}`: $a}}), (b:`{lb}` {{`{keys[lb]}`: $b}}) "
                f"CREATE (a)-[:`{rtype}` {{{assigns}}}]->(b)", params)
    finally:
        store.close()
    return LoadReport(str(target), len(graph.nodes), len(graph.rels), keys, list(rel_types))
