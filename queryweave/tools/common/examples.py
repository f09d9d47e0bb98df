"""A pool of worked (question, query) examples and the nearest few to a new question.

Text-to-SQL and Text-to-Cypher can show labelled pairs from *other* databases or other kinds of
question as earlier turns. Which pairs a pool holds is the caller's business (an evaluation that
leaves a database out builds the pool from the others); `nearest` only ranks them by word overlap
with the question (Jaccard over `tokenize` terms, so stems and Chinese words count), ties in pool order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from queryweave.tools.common.text import tokenize


@dataclass(frozen=True)
class Example:
    """One worked pair and where it came from (a database id, a question type...)."""

    question: str
    query: str
    source: str = ""


def nearest(question: str, pool: Sequence[Example], k: int) -> list[Example]:
    """The `k` pool examples whose questions share most words with `question` (none when k <= 0)."""
    if k <= 0 or not pool:
        return []
    words = set(tokenize(question))

    def score(ex: Example) -> float:
        other = set(tokenize(ex.question))
        return len(words & other) / (len(words | other) or 1)

    ranked = sorted(range(len(pool)), key=lambda i: (-score(pool[i]), i))
    return [pool[i] for i in ranked[:k]]
