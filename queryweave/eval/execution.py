"""Execution accuracy: do two result sets hold the same rows? (Spider-style, also used for Cypher.)

Rows are compared as multisets, in order only when the gold query orders its results. Values are
normalised (2.0 == 2, floats to 4 places, nodes as their property sets), and a permutation of the
columns is accepted, as in Spider's test-suite evaluation.

`same_answer` (what the evaluations count) also accepts what the gold query's own result leaves to
chance: rows that tie on its ORDER BY keys in another order, and, at a LIMIT that cuts through tied
rows (or any rows, when it does not order), another choice among them — "the 3 actors with the most
films" when the third and fourth have as many. The strict comparison is reported beside (`exact`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import permutations
from typing import Any

_ORDER = re.compile(r"\bORDER\s+BY\b", re.I)


def normalize(value: Any) -> Any:
    """A hashable, comparison-friendly form of one result value."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, float):
        return int(value) if value.is_integer() else round(value, 4)
    if isinstance(value, dict):
        return tuple(sorted((k, normalize(v)) for k, v in value.items() if k != "_label"))
    if isinstance(value, list | tuple):
        return tuple(normalize(v) for v in value)
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return value


def orders(query: str) -> bool:
    """Whether the (gold) query orders its results at the top level."""
    return bool(_ORDER.search(query or ""))


def same_results(pred: Iterable[Sequence[Any]], gold: Iterable[Sequence[Any]], ordered: bool = False) -> bool:
    """True when the predicted rows equal the gold rows (as multisets unless `ordered`)."""
    p = [tuple(normalize(v) for v in row) for row in pred]
    g = [tuple(normalize(v) for v in row) for row in gold]
    if len(p) != len(g):
        return False
    if not g:
        return True
    width = len(g[0])
    if any(len(r) != width for r in p):
        return False
    perms = permutations(range(width)) if width <= 5 else [tuple(range(width))]
    gold_counter = Counter(g)
    for perm in perms:
        q = [tuple(r[i] for i in perm) for r in p]
        if (q == g) if ordered else (Counter(q) == gold_counter):
            return True
    return False


def summarize(items: list[dict[str, Any]]) -> dict[str, Any]:
    """`{"execution_accuracy", "n", "failed_to_run", "by_language": {lang: {...}}}` from per-item
    `correct`/`lang`/`error` (and `exact_accuracy` when every item has `exact`: the strict comparison)."""
    def block(rows: list[dict[str, Any]]) -> dict[str, Any]:
        n = len(rows)
        return {
            "execution_accuracy": round(sum(r["correct"] for r in rows) / n, 4) if n else 0.0,
            "n": n,
            "failed_to_run": round(sum(bool(r.get("error")) for r in rows) / n, 4) if n else 0.0,
        } | ({"exact_accuracy": round(sum(bool(r["exact"]) for r in rows) / n, 4)}
             if n and all("exact" in r for r in rows) else {})

    out = block(items)
    langs = sorted({r["lang"] for r in items})
    out["by_language"] = {lang: block([r for r in items if r["lang"] == lang]) for lang in langs}
    return out


_STRINGS = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")
_LIMIT = re.compile(r"\bLIMIT\s+\d+\b", re.I)
_LAST_ORDER = re.compile(r"\bORDER\s+BY\s+(.*?)(?:\bSKIP\b|\bOFFSET\b|\bLIMIT\b|\bRETURN\b|;|$)", re.I | re.S)
_DIRECTION = re.compile(r"\s+(?:ASC|DESC|ASCENDING|DESCENDING)(?:\s+NULLS\s+(?:FIRST|LAST))?\s*$", re.I)


def _masked(query: str) -> str:
    """`query` with its string literals' contents blanked (same length), so no keyword is found inside one."""
    return _STRINGS.sub(lambda m: "'" + "x" * (len(m.group(0)) - 2) + "'", query or "")


def without_limit(query: str, rows: int = 100000) -> str | None:
    """`query` with its one `LIMIT n` raised to `rows` (kuzu wants a LIMIT after a WITH's ORDER BY), or None
    when it has none, more than one, or a SKIP/OFFSET: the untruncated result a tie-aware comparison
    needs (string literals are never touched)."""
    masked = _masked(query)
    hits = list(_LIMIT.finditer(masked))
    if len(hits) != 1 or re.search(r"\b(?:SKIP|OFFSET)\b", masked, re.I):
        return None
    return f"{query[:hits[0].start()]}LIMIT {rows}{query[hits[0].end():]}"


def sort_columns(query: str, columns: Sequence[str]) -> list[int] | None:
    """Indexes in `columns` of the last ORDER BY's keys (matched by name or expression text, case and spaces
    ignored), or None when the query does not order or a key is not among the returned columns."""
    masked = _masked(query)
    found = list(_LAST_ORDER.finditer(masked))
    if not found:
        return None
    names = [re.sub(r"[\s`\"]", "", c).lower() for c in columns]
    out = []
    for item in found[-1].group(1).split(","):
        key = re.sub(r"[\s`\"]", "", _DIRECTION.sub("", item.strip())).lower()
        if key not in names:  # `T1.name` is returned as `name` by SQLite
            key = key.rsplit(".", 1)[-1]
        if names.count(key) != 1:
            return None
        out.append(names.index(key))
    return out


@dataclass
class Reference:
    """A gold query's result and what a tie-aware comparison needs (`same_answer`)."""

    rows: list[tuple]
    ordered: bool = False
    keys: list[int] | None = None
    untruncated: list[tuple] | None = None

    def matches(self, pred: Iterable[Sequence[Any]]) -> bool:
        """Whether `pred` answers like the gold query (ties and the LIMIT's arbitrary cut allowed)."""
        return same_answer(pred, self.rows, self.ordered, self.untruncated, self.keys)

    def exact(self, pred: Iterable[Sequence[Any]]) -> bool:
        """The strict comparison (`same_results`), reported beside."""
        return same_results(pred, self.rows, self.ordered)


def reference(query: str, rows: Sequence[Sequence[Any]], columns: Sequence[str],
              run: Callable[[str], Sequence[Sequence[Any]] | None]) -> Reference:
    """The `Reference` of gold `query` whose result is `rows` (named `columns`); `run` executes a query
    and gives its rows (None on an error) — used once, for the query without its LIMIT."""
    free = without_limit(query)
    untruncated = run(free) if free else None
    return Reference([tuple(r) for r in rows], orders(query), sort_columns(query, columns),
                     [tuple(r) for r in untruncated] if untruncated is not None else None)


def same_answer(pred: Iterable[Sequence[Any]], gold: Sequence[Sequence[Any]], ordered: bool = False,
                untruncated: Sequence[Sequence[Any]] | None = None, keys: Sequence[int] | None = None) -> bool:
    """`same_results`, tolerant of ties the gold query's own result depends on: rows that tie on the sort
    `keys` (gold column indexes) may come in any order, and when `untruncated` (the gold query without its
    LIMIT) is longer than `gold`, the rows kept at the cut may be any of the tied ones (any of the rows at
    all when the gold query does not order). Never more lenient than that: same width and row count."""
    p = [tuple(normalize(v) for v in row) for row in pred]
    if same_results(p, gold, ordered):
        return True
    g = [tuple(normalize(v) for v in row) for row in gold]
    full = [tuple(normalize(v) for v in row) for row in untruncated or []]
    cut = len(full) > len(g) and not Counter(g) - Counter(full)
    if not g or len(p) != len(g) or any(len(r) != len(g[0]) for r in p) or (ordered and keys is None) \
            or (not ordered and not cut):
        return False
    width = len(g[0])
    for perm in permutations(range(width)) if width <= 5 else [tuple(range(width))]:
        q = [tuple(r[i] for i in perm) for r in p]
        if not ordered:
            if not Counter(q) - Counter(full):
                return True
            continue
        sig = [tuple(r[k] for k in keys) for r in q]
        if sig != [tuple(r[k] for k in keys) for r in g]:
            continue
        last = sig[-1]
        groups_ok = all(Counter(r for r, s in zip(q, sig, strict=True) if s == k)
                        == Counter(r for r in g if tuple(r[i] for i in keys) == k) for k in set(sig) if k != last)
        mine = Counter(r for r, s in zip(q, sig, strict=True) if s == last)
        pool = Counter(r for r in (full if cut else g) if tuple(r[i] for i in keys) == last)
        if groups_ok and not mine - pool:
            return True
    return False
