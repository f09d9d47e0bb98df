"""Answer relevance and document sufficiency without an LLM.

`answer_relevance`: does the answer address the question? The IDF-free share of the question's
content terms that the answer mentions, blended with embedding similarity when a model is given.
An answer made of known parts (an extractive answer's rendered units, whose vectors are stored at
ingest) is compared by the length-weighted mean of its parts' unit vectors, so nothing new is embedded;
any other answer is embedded whole.
`documents_sufficiency`: do the retrieved passages together cover the question's content terms,
and does at least one passage cover most of them? Used to stop retrieval early or widen it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from queryweave.tools.common.text import tokenize

Embed = Callable[[list[str]], Any]


def term_coverage(question: str, text: str) -> float:
    """Share of the question's content terms found in `text` (1.0 when the question has none)."""
    q = set(tokenize(question))
    if not q:
        return 1.0
    return len(q & set(tokenize(text))) / len(q)


def answer_relevance(question: str, answer: str, embed: Embed | None = None,
                     parts: list[str] | None = None, titles: list[str] | None = None) -> float:
    """0..1: how much the answer addresses the question. `parts`: the texts the answer is made of
    (its vector is then their length-weighted mean, not a new embedding of the whole). `titles`: of
    the pages it cites, read with it lexically ("它的根部可用来当作催吐剂" cited from "大果西番莲")."""
    if not answer.strip():
        return 0.0
    lexical = term_coverage(question, " ".join([*(titles or []), answer]))
    if embed is None:
        return lexical
    parts = [p for p in parts or [] if p.strip()]
    try:
        vecs = np.asarray(embed([question, *(parts or [answer])]), dtype=np.float32)
        vecs /= np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-9)
        weights = np.array([len(p) for p in parts or [answer]], dtype=np.float32)
        whole = (weights[:, None] * vecs[1:]).sum(axis=0)
        sim = float(vecs[0] @ whole / (np.linalg.norm(whole) + 1e-9))
    except Exception:
        return lexical
    return 0.5 * lexical + 0.5 * max(0.0, sim)


@dataclass
class Sufficiency:
    """Whether the passages look sufficient, with the figures behind the decision."""

    enough: bool
    union_coverage: float
    best_coverage: float
    reason: str


def documents_sufficiency(question: str, documents: list[dict[str, Any]], min_union: float = 0.6,
                          min_best: float = 0.4) -> Sufficiency:
    """Are the retrieved passages enough to answer? (coverage of the question's terms)."""
    if not documents:
        return Sufficiency(False, 0.0, 0.0, "nothing retrieved")
    q = set(tokenize(question))
    if not q:
        return Sufficiency(True, 1.0, 1.0, "no content terms to check")
    seen: set[str] = set()
    best = 0.0
    for doc in documents:
        toks = set(tokenize(f"{doc.get('title', '')} {doc.get('text', '')}"))
        seen |= q & toks
        best = max(best, len(q & toks) / len(q))
    union = len(seen) / len(q)
    enough = union >= min_union and best >= min_best
    missing = sorted(q - seen)
    reason = "passages cover the question" if enough else f"terms not covered: {', '.join(missing[:6]) or '-'}"
    return Sufficiency(enough, round(union, 3), round(best, 3), reason)
