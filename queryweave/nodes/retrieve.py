"""`retrieve`: hybrid BM25 + dense retrieval for the current queries, k sized by the analysis."""

from __future__ import annotations

from typing import Any

from queryweave.graph.context import context_of
from queryweave.nodes.common import knowledge_base, query_of, timed
from queryweave.tools.retrieval import search, settings_for


@timed("retrieve")
def retrieve(state: dict[str, Any], runtime: Any = None) -> dict[str, Any]:
    """Retrieve the top-k chunks (with provenance) for the query and its rewrites."""
    ctx = context_of(runtime)
    kb = knowledge_base(ctx)
    queries = state.get("queries") or [query_of(state)]
    k = int(state.get("k") or 5)
    pool = ctx.candidate_pool
    settings = settings_for(state.get("intent"), pool=pool)
    where = state.get("filters") or None
    depth = max(k, min(pool, 3 * k, 50))  # a few more than k, for the reranker to reorder
    candidates = search(kb, queries, depth, settings, where=where)
    hits = kb.hits(candidates)
    docs = [h.as_dict() for h in hits]
    return {"candidates": docs, "documents": docs[:k]}
