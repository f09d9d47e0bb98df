"""Fusion of ranked lists from several strategies, keeping per-strategy provenance.

`rrf` is reciprocal-rank fusion (Cormack et al.), robust when scores are not comparable;
`weighted_fusion` min-max normalises each list's scores and sums them with weights; `zscore_fusion`
standardises each list by its own mean and spread, so a retriever whose top hit stands far above the
rest of its list (a confident one) weighs more for that query, and fills the scores a list lacks with
exact ones when the caller can compute them (the hybrid search's default). Both return
`Candidate`s that remember which strategies found them and at which rank ("matched by").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
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


def zscore_fusion(rankings: Mapping[str, Ranking], weights: Mapping[str, float] | None = None,
                  fill: Callable[[str, list[str]], Mapping[str, float]] | None = None) -> list[Candidate]:
    """Weighted sum of z-scores, each list standardised by its own mean and standard deviation.

    An id missing from a list gets the score `fill(list_name, ids)` returns for it (e.g. its exact
    BM25 score or cosine similarity), else the list's minimum. Provenance records only real hits.
    """
    fused: dict[str, Candidate] = {}
    stats: dict[str, tuple[float, float, float]] = {}
    for name, ranking in rankings.items():
        scores = [s for _, s in ranking]
        if not scores:
            continue
        mean = sum(scores) / len(scores)
        sd = (sum((s - mean) ** 2 for s in scores) / len(scores)) ** 0.5 or 1.0
        stats[name] = (mean, sd, min(scores))
        for rank, (doc_id, raw) in enumerate(ranking, start=1):
            fused.setdefault(doc_id, Candidate(doc_id, 0.0)).matched_by[name] = (rank, float(raw))
    total = sum(float((weights or {}).get(n, 1.0)) for n in stats) or 1.0
    for name, (mean, sd, low) in stats.items():
        w = float((weights or {}).get(name, 1.0)) / total
        have = dict(rankings[name])
        missing = [i for i in fused if i not in have]
        filled = dict(fill(name, missing)) if fill is not None and missing else {}
        for doc_id, cand in fused.items():
            raw = have.get(doc_id, filled.get(doc_id, low))
            cand.score += w * (raw - mean) / sd
    return sorted(fused.values(), key=lambda c: (-c.score, c.id))


def fuse_candidate_dicts(lists: Mapping[str, Sequence[dict]], k: int | None = None, rrf_k: int = 60) -> list[dict]:
    """RRF over lists of candidate dicts (e.g. one per sub-question, retrieved in parallel).

    Each dict keeps its fields; `score` becomes the fused score and `matched_by` gains one entry per
    list that held it ({"rank", "score"}), so the answer can say "matched by: sub-question 2".
    """
    rankings = {label: [(str(c["chunk_id"]), float(c.get("score", 0.0))) for c in cands]
                for label, cands in lists.items()}
    by_id: dict[str, dict] = {}
    for cands in lists.values():
        for c in cands:
            by_id.setdefault(str(c["chunk_id"]), c)
    out = []
    for cand in rrf(rankings, k=rrf_k)[:k]:
        d = dict(by_id[cand.id])
        d["matched_by"] = {**(d.get("matched_by") or {}),
                           **{lb: {"rank": r, "score": round(s, 6)} for lb, (r, s) in cand.matched_by.items()}}
        d["score"] = round(cand.score, 6)
        out.append(d)
    return out
