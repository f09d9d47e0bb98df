"""Self-query on labelled questions: does the filter built from each question equal the label?

A labelled file is JSON lines `{"query": str, "lang": "en"|"zh", "filter": [[field, comparator, value], ...]}`
(`"operator": "or"` when list tags are joined by OR; `[]` when the question names nothing in the schema), the
format of `bench/data/self_query*.jsonl`. A question is *exact* when the set of conditions, and the OR between
tags, equals the label; condition precision and recall are micro-averaged. `queryweave eval self-query` runs
this against the user's own schema (`<data dir>/metadata_schema.json` or `--schema`), rules alone and, with
a model configured, rules with LangChain's query constructor where the rules are unsure.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langchain_core.structured_query import Operation, Operator, StructuredQuery

from queryweave.eval.jsonl import read_records
from queryweave.tools.retrieval.self_query import MetadataSchema, conditions

_COMPARATORS = {"eq", "ne", "gt", "gte", "lt", "lte", "contain", "in", "nin", "like"}


@dataclass(frozen=True)
class SelfQueryItem:
    """One labelled question."""

    query: str
    lang: str
    filter: tuple[tuple[str, str, Any], ...]
    operator: str = "and"
    line: int = 0


@dataclass
class Scored:
    """A question's outcome: exact or not, and the conditions built that the label lacks / has and were not built."""

    item: SelfQueryItem
    exact: bool
    built: set[tuple] = field(default_factory=set)
    extra: set[tuple] = field(default_factory=set)
    missing: set[tuple] = field(default_factory=set)
    source: str = "rules"


def _item(rec: dict[str, Any], line: int) -> SelfQueryItem:
    conds = []
    for cond in rec["filter"]:
        name, comparator, value = cond
        if comparator not in _COMPARATORS:
            raise ValueError(f"unknown comparator {comparator!r}")
        conds.append((str(name), comparator, value))
    lang = str(rec.get("lang") or ("zh" if any("\u3400" <= ch <= "\u9fff" for ch in rec["query"]) else "en"))
    return SelfQueryItem(str(rec["query"]), lang, tuple(conds), str(rec.get("operator") or "and"), line)


def read_self_query(path: str | Path, limit: int | None = None) -> list[SelfQueryItem]:
    """Labelled questions of a JSONL file (a line that does not parse is an error naming it)."""
    return read_records(path, _item, "a labelled self-query question", limit)


def key(attribute: str, comparator: str, value: Any) -> tuple:
    """A condition as a comparable tuple (a list value as a sorted tuple: `in` / `nin` ignore order)."""
    return attribute, comparator, tuple(sorted(value, key=str)) if isinstance(value, list | tuple) else value


def has_or(node: Any) -> bool:
    """Whether a filter joins anything with OR."""
    return isinstance(node, Operation) and (node.operator == Operator.OR or any(has_or(a) for a in node.arguments))


def score(item: SelfQueryItem, sq: StructuredQuery, source: str = "rules") -> Scored:
    """Compare a built filter with the item's label."""
    got = {key(c.attribute, c.comparator.value, c.value) for c in conditions(sq)}
    want = {key(*c) for c in item.filter}
    exact = got == want and has_or(sq.filter) == (item.operator == "or")
    return Scored(item, exact, got, got - want, want - got, source)


def evaluate(items: Iterable[SelfQueryItem], systems: dict[str, Callable[[str], Any]],
             on_scored: Callable[[str, Scored], None] | None = None) -> dict[str, Any]:
    """Every system (question -> `SelfQuery`) on every item: per system and language, n, exact-filter
    accuracy, condition precision and recall, and how many filters the LLM built."""
    items = list(items)
    rows: dict[str, dict[str, dict[str, Any]]] = {}
    for name, build in systems.items():
        scored = []
        for item in items:
            result = build(item.query)
            s = score(item, result.structured_query, getattr(result, "source", "rules"))
            scored.append(s)
            if on_scored is not None:
                on_scored(name, s)
        rows[name] = {lang: _row([s for s in scored if lang == "all" or s.item.lang == lang])
                      for lang in [*sorted({i.lang for i in items}), "all"]}
    return {"n": len(items), "rows": rows}


def _row(scored: list[Scored]) -> dict[str, Any]:
    built = sum(len(s.built) for s in scored)
    labelled = sum(len(s.built) - len(s.extra) + len(s.missing) for s in scored)
    right = sum(len(s.built) - len(s.extra) for s in scored)
    return {"n": len(scored), "exact": round(sum(s.exact for s in scored) / len(scored), 3) if scored else None,
            "precision": round(right / built, 3) if built else None,
            "recall": round(right / labelled, 3) if labelled else None,
            "llm": sum(s.source == "llm" for s in scored)}


def check_labels(items: list[SelfQueryItem], schema: MetadataSchema) -> list[str]:
    """Labels naming a field the schema lacks (they can never be matched): one message each."""
    return [f"line {i.line}: field {c[0]!r} is not in the schema" for i in items for c in i.filter
            if schema.get(c[0]) is None]
