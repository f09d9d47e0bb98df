"""`retrieve`: hybrid BM25 + dense retrieval for the current queries, k sized by the analysis.

The intent picks the strategy: "reasoning" walks the entity graph from the top passages and the
question's entities and fuses it with hybrid search (when the graph exists); the others run the
hybrid pipeline with what the profile and features switch on (PRF, variants, title links, cache).
Rewrites and sub-questions from `rewrite` are fused in with per-query provenance. A few more than k
candidates are kept for `rerank`.
"""

from __future__ import annotations

from typing import Any

from queryweave.graph.context import context_of
from queryweave.nodes.common import knowledge_base, query_of, timed
from queryweave.tools.fusion import rrf
from queryweave.tools.retrieval import search, settings_for


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
    if state.get("intent") == "reasoning" and ctx.feature("entity_graph"):
        from queryweave.tools.graph_retrieval import graph_search

        candidates = graph_search(kb, queries[0], depth, settings, where=where)
        if len(queries) > 1:
            others = search(kb, queries[1:], depth, settings, where=where)
            candidates = rrf({"graph": [(c.id, c.score) for c in candidates],
                              "rewrites": [(c.id, c.score) for c in others]}, k=settings.rrf_k)[:depth]
    else:
        candidates = search(kb, queries, depth, settings, where=where)
    docs = [h.as_dict() for h in kb.hits(candidates)]
    return {"candidates": docs, "documents": docs[:k], "queries": queries}
