"""Helpers every reranker shares: the text a reranker reads of a candidate, and candidates ordered by scores."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

Candidates = list[dict[str, Any]]


def apply_scores(candidates: Candidates, scores: Sequence[float], top_n: int | None) -> Candidates:
    """Candidates by descending score (ties keep the retrieval order), each with its `rerank_score`."""
    order = sorted(range(len(candidates)), key=lambda i: (-scores[i], i))
    out = [dict(candidates[i], rerank_score=round(float(scores[i]), 6)) for i in order]
    return out[:top_n] if top_n else out


def candidate_text(c: dict[str, Any]) -> str:
    """Title, heading and text of a candidate, as a reranker reads it."""
    meta = c.get("metadata") or {}
    return "\n".join(p for p in (str(c.get("title") or meta.get("title") or ""), c.get("heading") or "",
                                 c.get("text") or "") if p)
