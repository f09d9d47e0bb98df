"""`retrieve`: hybrid BM25 + dense retrieval for the current queries, k sized by the analysis.

The intent picks the strategy: "reasoning" walks the entity graph from the top passages and the
question's entities and fuses it with hybrid search (when the graph exists); the others run the
hybrid pipeline with what the profile and features switch on (PRF, variants, title links, cache).
Rewrites and sub-questions from `rewrite` are fused in with per-query provenance. A few more than k
candidates are kept for `rerank`.

While an ingest is still computing vectors (`vectors_pending` in the catalog: the BM25 index is
already complete) retrieval is BM25 alone too, flagged lexical-only. When the embedding endpoint
fails (after its retries, or while it cools down) retrieval falls back to BM25 alone, fused across the queries by RRF and still honouring a metadata filter; the turn is
flagged `degraded` with the reason.
"""

from __future__ import annotations

from typing import Any

from queryweave.config import context_of
from queryweave.nodes.common import knowledge_base, query_of, timed
from queryweave.tools.common.fusion import Candidate, rrf
from queryweave.tools.retrieval.pipeline import search, settings_for
from queryweave.tools.stores.embeddings import EmbeddingError
from queryweave.tools.stores.kb import KnowledgeBase


def bm25_only(kb: KnowledgeBase, queries: list[str], n: int, where: dict | None = None,
              rrf_k: int = 60, pool: int = 100) -> list[Candidate]:
    """Top `n` by BM25 alone for each query, fused by RRF (labels as in `search`: "original",
    "variant 1", ...; each with its ":bm25" retriever), restricted to chunks matching `where`.
    Needs no embedding model: the fallback when the embedding endpoint is down."""
    allowed = set(kb.vectors.collection.get(where=where, include=[])["ids"]) if where else None
    rankings: dict[str, list[tuple[str, float]]] = {}
    for i, q in enumerate(q for q in queries if q and q.strip()):
        hits = kb.bm25_search(q, max(pool, n) * (3 if where else 1))
        if allowed is not None:
            hits = [(d, s) for d, s in hits if d in allowed]
        rankings["original" if i == 0 else f"variant {i}"] = hits
    fused = rrf(rankings, k=rrf_k)
    for c in fused:
        c.matched_by.update({f"{label}:bm25": v for label, v in list(c.matched_by.items())})
    return fused[:n]


@timed("retrieve")
def retrieve(state: dict[str, Any], runtime: Any = None) -> dict[str, Any]:
    """Retrieve candidates (with provenance) for the query, its rewrites and sub-questions."""
    ctx = context_of(runtime)
    kb = knowledge_base(ctx)
    queries = list(dict.fromkeys([*(state.get("queries") or [query_of(state)]), *(state.get("sub_questions") or [])]))
    k = int(state.get("k") or 5)
    settings = settings_for(state.get("intent"), pool=ctx.candidate_pool, ctx=ctx)
    where = state.get("filters") or None
    depth = max(k, min(ctx.candidate_pool, 3 * k, 50))  # a few more than k, for the reranker to reorder
    out: dict[str, Any] = {}
    pending = kb.vectors_pending()
    try:
        if not pending and hasattr(kb.embeddings, "embed_queries"):  # the queries and the question, one call
            kb.embeddings.embed_queries(list(dict.fromkeys([*queries, query_of(state)])))
        if pending:  # an ingest is still embedding (or stopped before it finished): no dense ranking yet
            candidates = bm25_only(kb, queries, depth, where, settings.rrf_k, settings.pool)
            out = {"degraded": True, "degraded_reasons": [
                f"retrieve: {pending} chunks have no vector yet (an ingest is embedding them); lexical-only (BM25) retrieval"]}
        elif state.get("intent") == "reasoning" and ctx.feature("entity_graph"):
            from queryweave.tools.retrieval.graph_retrieval import graph_search

            candidates = graph_search(kb, queries[0], depth, settings, where=where)
            if len(queries) > 1:
                others = search(kb, queries[1:], depth, settings, where=where)
                candidates = rrf({"graph": [(c.id, c.score) for c in candidates],
                                  "rewrites": [(c.id, c.score) for c in others]}, k=settings.rrf_k)[:depth]
        else:
            candidates = search(kb, queries, depth, settings, where=where)
    except EmbeddingError as exc:  # the embedding endpoint is down: keyword retrieval still answers
        candidates = bm25_only(kb, queries, depth, where, settings.rrf_k, settings.pool)
        out = {"degraded": True, "degraded_reasons": [f"retrieve: {exc}; BM25-only retrieval"]}
    docs = [h.as_dict() for h in kb.hits(candidates)]
    return out | {"candidates": docs, "documents": docs[:k], "queries": queries}
