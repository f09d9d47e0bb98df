"""Execution accuracy: do two result sets hold the same rows? (Spider-style, also used for Cypher.)

Rows are compared as multisets, in order only when the gold query orders its results. Values are
normalised (2.0 == 2, floats to 4 places, nodes as their property sets), and a permutation of the
columns is accepted, as in Spider's test-suite evaluation.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
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
    """`{"execution_accuracy", "n", "by_language": {lang: {...}}}` from per-item `correct`/`lang`/`error`."""
    def block(rows: list[dict[str, Any]]) -> dict[str, Any]:
        n = len(rows)
        return {
            "execution_accuracy": round(sum(r["correct"] for r in rows) / n, 4) if n else 0.0,
            "n": n,
            "failed_to_run": round(sum(bool(r.get("error")) for r in rows) / n, 4) if n else 0.0,
        }

    out = block(items)
    langs = sorted({r["lang"] for r in items})
    out["by_language"] = {lang: block([r for r in items if r["lang"] == lang]) for lang in langs}
    return out
