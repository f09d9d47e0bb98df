"""The retrieval pipeline shared by the graph's `retrieve` node and `queryweave eval retrieval`.

Hybrid BM25 + dense per query, fused with reciprocal-rank fusion; several queries (variants,
sub-questions) are fused again with per-query provenance ("original", "variant 1", ...). The
weights per intent realise the seeds' strategies: factual is dense-heavy with keyword refinement,
fuzzy leans on the expanded queries, and so on.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from queryweave.tools.fusion import Candidate, rrf, weighted_fusion
from queryweave.tools.kb import KnowledgeBase

STRATEGY_WEIGHTS: dict[str, dict[str, float]] = {
    "factual": {"dense": 1.0, "bm25": 1.0},
    "reasoning": {"dense": 1.0, "bm25": 1.0},
    "comprehensive": {"dense": 1.0, "bm25": 1.0},
    "fuzzy": {"dense": 1.2, "bm25": 0.8},
}


@dataclass
class RetrievalSettings:
    """How to retrieve: candidate pool per retriever, fusion method and weights."""

    pool: int = 100
    fusion: str = "rrf"
    weights: dict[str, float] = field(default_factory=lambda: {"dense": 1.0, "bm25": 1.0})
    rrf_k: int = 60


def settings_for(intent: str | None, pool: int = 100) -> RetrievalSettings:
    """Settings for an intent's strategy."""
    return RetrievalSettings(pool=pool, weights=dict(STRATEGY_WEIGHTS.get(intent or "", {"dense": 1.0, "bm25": 1.0})))


def hybrid(kb: KnowledgeBase, query: str, n: int, settings: RetrievalSettings,
           where: dict | None = None) -> list[Candidate]:
    """One query: BM25 and dense, fused."""
    return kb.hybrid_search(query, n, pool=settings.pool, weights=settings.weights,
                            method=settings.fusion, where=where)


def search(kb: KnowledgeBase, queries: list[str], k: int, settings: RetrievalSettings | None = None,
           where: dict | None = None, labels: list[str] | None = None) -> list[Candidate]:
    """Retrieve for one or more queries and fuse; the top `k` candidates with provenance."""
    settings = settings or RetrievalSettings()
    queries = [q for q in queries if q and q.strip()]
    if not queries:
        return []
    if len(queries) == 1:
        return hybrid(kb, queries[0], max(k, 1), settings, where)[:k]
    labels = labels or ["original"] + [f"variant {i}" for i in range(1, len(queries))]
    per_query = {}
    merged_prov: dict[str, dict[str, tuple[int, float]]] = {}
    for label, q in zip(labels, queries, strict=False):
        cands = hybrid(kb, q, settings.pool, settings, where)
        per_query[label] = [(c.id, c.score) for c in cands]
        for c in cands:
            merged_prov.setdefault(c.id, {}).update({f"{label}:{s}": v for s, v in c.matched_by.items()})
    fused = rrf(per_query, k=settings.rrf_k) if settings.fusion == "rrf" else weighted_fusion(per_query)
    for c in fused:
        c.matched_by = {**c.matched_by, **merged_prov.get(c.id, {})}
    return fused[:k]
