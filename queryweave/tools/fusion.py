"""Fusion of ranked lists from several strategies, keeping per-strategy provenance.

`rrf` is reciprocal-rank fusion (Cormack et al.), robust when scores are not comparable;
`weighted_fusion` min-max normalises each list's scores and sums them with weights. Both return
`Candidate`s that remember which strategies found them and at which rank ("matched by").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field


@dataclass
class Candidate:
    """A fused result: chunk id, fused score, and {strategy: (rank, raw score)} provenance."""

    id: str
    score: float
    matched_by: dict[str, tuple[int, float]] = field(default_factory=dict)

    def as_dict(self) -> dict:
        """JSON-friendly form."""
        return {"id": self.id, "score": round(self.score, 6),
                "matched_by": {k: {"rank": r, "score": round(s, 6)} for k, (r, s) in self.matched_by.items()}}


Ranking = Sequence[tuple[str, float]]


def rrf(rankings: Mapping[str, Ranking], weights: Mapping[str, float] | None = None, k: int = 60) -> list[Candidate]:
    """Reciprocal-rank fusion: score(d) = sum_s w_s / (k + rank_s(d)), ranks from 1."""
    fused: dict[str, Candidate] = {}
    for name, ranking in rankings.items():
        w = 1.0 if weights is None else float(weights.get(name, 1.0))
        for rank, (doc_id, raw) in enumerate(ranking, start=1):
            cand = fused.setdefault(doc_id, Candidate(doc_id, 0.0))
            cand.score += w / (k + rank)
            cand.matched_by[name] = (rank, float(raw))
    return sorted(fused.values(), key=lambda c: (-c.score, c.id))


def weighted_fusion(rankings: Mapping[str, Ranking], weights: Mapping[str, float] | None = None) -> list[Candidate]:
    """Sum of min-max normalised scores, each list weighted; missing = 0."""
    fused: dict[str, Candidate] = {}
    for name, ranking in rankings.items():
        if not ranking:
            continue
        w = 1.0 if weights is None else float(weights.get(name, 1.0))
        scores = [s for _, s in ranking]
        lo, hi = min(scores), max(scores)
        span = (hi - lo) or 1.0
        for rank, (doc_id, raw) in enumerate(ranking, start=1):
            cand = fused.setdefault(doc_id, Candidate(doc_id, 0.0))
            cand.score += w * ((raw - lo) / span if hi > lo else 1.0)
            cand.matched_by[name] = (rank, float(raw))
    return sorted(fused.values(), key=lambda c: (-c.score, c.id))
