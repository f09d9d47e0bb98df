"""A parser for Neo4j-style `CREATE` scripts: node and relationship patterns with literal properties.

Handles what dump scripts and examples (the Neo4j movies graph) are made of: `CREATE (v:Label {k: 'v',
n: 1, xs: ['a']})`, `CREATE (a)-[:TYPE {k: v}]->(b), (c)<-[:T]-(d)`, variables shared across clauses,
comments, and `CREATE CONSTRAINT/INDEX` statements (skipped). Anything else is reported, not guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any


@dataclass
class ParsedGraph:
    """Nodes as (label, properties), relationships as (type, from index, to index, properties)."""

    nodes: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    rels: list[tuple[str, int, int, dict[str, Any]]] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


class ScriptError(ValueError):
    """The script has a construct the parser does not understand."""


_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|`[^`]+`")
_NUMBER = re.compile(r"-?\d+(\.\d+)?([eE][-+]?\d+)?")


class _Parser:
    def __init__(self, text: str, graph: ParsedGraph, variables: dict[str, int]):
        self.s, self.i, self.g, self.vars = text, 0, graph, variables

    def ws(self) -> None:
        while self.i < len(self.s) and self.s[self.i].isspace():
            self.i += 1

    def peek(self, token: str) -> bool:
        self.ws()
        return self.s.startswith(token, self.i)

    def expect(self, token: str) -> None:
        if not self.peek(token):
            raise ScriptError(f"expected {token!r} at: {self.s[self.i:self.i + 40]!r}")
        self.i += len(token)

    def ident(self) -> str | None:
        self.ws()
        m = _IDENT.match(self.s, self.i)
        if not m:
            return None
        self.i = m.end()
        return m.group(0).strip("`")

    def value(self) -> Any:
        self.ws()
        c = self.s[self.i:self.i + 1]
        if c in {"'", '"'}:
            j, out = self.i + 1, []
            while j < len(self.s) and self.s[j] != c:
                if self.s[j] == "\\" and j + 1 < len(self.s):
                    out.append({"n": "\n", "t": "\t"}.get(self.s[j + 1], self.s[j + 1]))
                    j += 2
                else:
                    out.append(self.s[j])
                    j += 1
            self.i = j + 1
            return "".join(out)
        if c == "[":
            self.i += 1
            items = []
            while not self.peek("]"):
                items.append(self.value())
                if self.peek(","):
                    self.i += 1
            self.expect("]")
            return items
        if c == "{":
            return self.props()
        m = _NUMBER.match(self.s, self.i)
        if m:
            self.i = m.end()
            return float(m.group(0)) if (m.group(1) or m.group(2)) else int(m.group(0))
        word = (self.ident() or "").lower()
        if word in {"true", "false"}:
            return word == "true"
        if word == "null":
            return None
        raise ScriptError(f"unsupported value at: {self.s[self.i:self.i + 40]!r}")

    def props(self) -> dict[str, Any]:
        self.expect("{")
        out: dict[str, Any] = {}
        while not self.peek("}"):
            key = self.ident()
            if key is None:
                raise ScriptError(f"expected a property name at: {self.s[self.i:self.i + 40]!r}")
            self.expect(":")
            out[key] = self.value()
            if self.peek(","):
                self.i += 1
        self.expect("}")
        return out

    def node(self) -> int:
        self.expect("(")
        var = self.ident()
        labels = []
        while self.peek(":"):
            self.i += 1
            labels.append(self.ident())
        props = self.props() if self.peek("{") else {}
        self.expect(")")
        if var and var in self.vars and not labels:
            return self.vars[var]
        if not labels:
            raise ScriptError(f"node ({var}) has no label and was not created before")
        self.g.nodes.append((labels[0], props))
        index = len(self.g.nodes) - 1
        if var:
            self.vars[var] = index
        return index

    def rel(self) -> tuple[str, dict[str, Any], bool]:
        backward = self.peek("<-")
        self.expect("<-" if backward else "-")
        self.expect("[")
        self.ident() if not self.peek(":") else None
        self.expect(":")
        rtype = self.ident() or ""
        props = self.props() if self.peek("{") else {}
        self.expect("]")
        self.expect("-" if backward else "->")
        return rtype, props, backward

    def path(self) -> None:
        left = self.node()
        while self.peek("-") or self.peek("<-"):
            rtype, props, backward = self.rel()
            right = self.node()
            a, b = (right, left) if backward else (left, right)
            self.g.rels.append((rtype, a, b, props))
            left = right

    def clause(self) -> None:
        self.path()
        while self.peek(","):
            self.i += 1
            self.path()


def _split_outside_strings(text: str, sep: str) -> list[str]:
    parts, start, quote, i = [], 0, "", 0
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = ""
        elif c in "'\"":
            quote = c
        elif c == sep:
            parts.append(text[start:i])
            start = i + 1
        i += 1
    parts.append(text[start:])
    return parts


_CREATE = re.compile(r"\bCREATE\b", re.I)


def parse_script(text: str) -> ParsedGraph:
    """Parse a Neo4j CREATE script into nodes and relationships (constraints and indexes skipped)."""
    text = "\n".join(line for line in text.splitlines() if not line.strip().startswith("//"))
    graph = ParsedGraph()
    variables: dict[str, int] = {}
    for statement in _split_outside_strings(text, ";"):
        body = statement.strip()
        if not body:
            continue
        if re.match(r"CREATE\s+(CONSTRAINT|INDEX|(RANGE|TEXT|POINT|FULLTEXT|VECTOR|LOOKUP)\s+INDEX)\b", body, re.I):
            graph.skipped.append(body.splitlines()[0][:80])
            continue
        if not _CREATE.match(body):
            raise ScriptError(f"only CREATE statements are supported: {body[:60]!r}")
        # split into CREATE clauses (the keyword never occurs inside the literal maps of such scripts
        # except in strings, which the clause parser consumes whole)
        p = _Parser(body, graph, variables)
        while p.i < len(body):
            p.ws()
            if p.i >= len(body):
                break
            m = _CREATE.match(body, p.i)
            if not m:
                raise ScriptError(f"expected CREATE at: {body[p.i:p.i + 40]!r}")
            p.i = m.end()
            p.clause()
    return graph
