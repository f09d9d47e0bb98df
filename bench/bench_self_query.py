"""Exact-filter accuracy of the self-query rule layer on a labelled set (English and Chinese).

Usage: python bench/bench_self_query.py [--verbose]
Reads bench/data/self_query_schema.json (the declared metadata schema) and bench/data/self_query.jsonl
(`query`, `lang`, `filter`: [[field, comparator, value], ...], optional `operator`: "or" between tags).
A query counts as exact when the set of conditions (and the tag operator) equals the label.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from langchain_core.structured_query import Operation, Operator

from queryweave.tools.retrieval.self_query import MetadataSchema, conditions, extract

DATA = Path(__file__).resolve().parent / "data"


def _has_or(node) -> bool:
    return isinstance(node, Operation) and (node.operator == Operator.OR or any(_has_or(a) for a in node.arguments))


def main() -> int:
    """Print the accuracy table (and the misses with --verbose)."""
    schema = MetadataSchema.from_dict(json.loads((DATA / "self_query_schema.json").read_text(encoding="utf-8")))
    rows = [json.loads(x) for x in (DATA / "self_query.jsonl").read_text(encoding="utf-8").splitlines() if x.strip()]
    stats: dict[str, list[int]] = {}
    misses = []
    for row in rows:
        sq = extract(row["query"], schema).structured_query
        got = {(c.attribute, c.comparator.value, c.value) for c in conditions(sq)}
        want = {tuple(c) for c in row["filter"]}
        ok = got == want and _has_or(sq.filter) == (row.get("operator") == "or")
        for key in (row["lang"], "all"):
            stats.setdefault(key, [0, 0])
            stats[key][0] += ok
            stats[key][1] += 1
        if not ok:
            misses.append((row["query"], sorted(got - want), sorted(want - got)))
    print(f"{'set':<6}{'n':>5}{'exact':>8}{'accuracy':>10}")
    for key in ("en", "zh", "all"):
        if key in stats:
            k, n = stats[key]
            print(f"{key:<6}{n:>5}{k:>8}{k / n:>10.3f}")
    if "--verbose" in sys.argv:
        for q, extra, missing in misses:
            print(f"  miss: {q}\n    extra {extra}\n    missing {missing}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
