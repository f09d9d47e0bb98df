"""IR metrics over ranked id lists and graded relevance judgements (qrels)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence


def ndcg_at(ranked: Sequence[str], rels: Mapping[str, float], k: int = 10) -> float:
    """nDCG@k with graded gains (2^rel - 1) and log2 discounts."""
    dcg = sum((2 ** rels.get(d, 0) - 1) / math.log2(i + 2) for i, d in enumerate(ranked[:k]))
    ideal = sorted((r for r in rels.values() if r > 0), reverse=True)[:k]
    idcg = sum((2**r - 1) / math.log2(i + 2) for i, r in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def recall_at(ranked: Sequence[str], rels: Mapping[str, float], k: int) -> float:
    """Share of relevant documents found in the top k."""
    relevant = {d for d, r in rels.items() if r > 0}
    return len(relevant & set(ranked[:k])) / len(relevant) if relevant else 0.0


def hit_rate_at(ranked: Sequence[str], rels: Mapping[str, float], k: int) -> float:
    """1 if any relevant document is in the top k."""
    return 1.0 if any(rels.get(d, 0) > 0 for d in ranked[:k]) else 0.0


def precision_at(ranked: Sequence[str], rels: Mapping[str, float], k: int) -> float:
    """Share of the top k that is relevant (divided by k)."""
    return sum(1 for d in ranked[:k] if rels.get(d, 0) > 0) / k


def mrr_at(ranked: Sequence[str], rels: Mapping[str, float], k: int = 10) -> float:
    """Reciprocal rank of the first relevant document within the top k."""
    for i, d in enumerate(ranked[:k]):
        if rels.get(d, 0) > 0:
            return 1.0 / (i + 1)
    return 0.0


def summarize(runs: Mapping[str, Sequence[str]], qrels: Mapping[str, Mapping[str, float]]) -> dict[str, float]:
    """Mean of every metric over the queries that have judgements."""
    names = {"ndcg@10": lambda r, q: ndcg_at(r, q, 10), "recall@10": lambda r, q: recall_at(r, q, 10),
             "recall@100": lambda r, q: recall_at(r, q, 100), "hit_rate@5": lambda r, q: hit_rate_at(r, q, 5),
             "precision@5": lambda r, q: precision_at(r, q, 5), "mrr@10": lambda r, q: mrr_at(r, q, 10),
             "recall@5": lambda r, q: recall_at(r, q, 5)}
    qids = [q for q in qrels if q in runs]
    if not qids:
        return {n: 0.0 for n in names}
    return {n: sum(f(runs[q], qrels[q]) for q in qids) / len(qids) for n, f in names.items()}
