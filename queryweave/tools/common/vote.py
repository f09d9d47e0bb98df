"""Execution-guided self-consistency: several sampled queries (SQL or Cypher) vote by their results.

Queries that return the same rows (in any order, duplicates counted) are one answer; the answer
most queries agree on wins, and a tie goes to the group holding the first (greedy) query; an empty
result counts only when every query returned nothing. Knows
nothing of the model or the query language: `TextToSQL` and `TextToCypher` sample the queries and
run them through their guards.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def result_key(rows: Sequence[Sequence[Any]]) -> tuple:
    """A result set as an order-free key: its rows as sorted tuples of text."""
    return tuple(sorted(tuple("" if v is None else str(v) for v in row) for row in rows))


def majority(results: Sequence[tuple[int, Sequence[Sequence[Any]]]]) -> tuple[int, int]:
    """`results`: (candidate index, rows) of the candidates that ran. The index of the winning
    candidate (the earliest of the largest group; ties go to the group of the earliest candidate)
    and the size of its group. (-1, 0) when nothing ran."""
    groups: dict[tuple, list[int]] = {}
    for i, rows in results:
        groups.setdefault(result_key(rows), []).append(i)
    if len(groups) > 1:  # an empty result votes only when no query found any row
        groups.pop((), None)
    if not groups:
        return -1, 0
    best = max(groups.values(), key=lambda members: (len(members), -min(members)))
    return min(best), len(best)
