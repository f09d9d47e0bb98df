"""`summary_retrieve`: answer macro questions from the summary layer (root, group, document summaries).

For "总结这个知识库的核心主题" / "what are the main topics" the documents are summaries, shaped like
`Hit.as_dict()` (chunk_id = the summary id, `matched_by` = {"summaries": rank/score}, the level and
the summarised sources in `metadata`). When the knowledge base has no summaries (feature off, or
built before the layer existed) or the question is not a macro one, it falls back to plain chunk
retrieval, so the route never answers from nothing. When the embedding endpoint is down, it falls
back to BM25 over the chunks and flags the turn `degraded`.
"""

from __future__ import annotations

from typing import Any

from queryweave.config import context_of
from queryweave.nodes.common import knowledge_base, query_of, timed
from queryweave.nodes.retrieve import bm25_only
from queryweave.tools.ingest.summaries import is_macro_question, search_summaries
from queryweave.tools.retrieval.pipeline import search, settings_for
from queryweave.tools.stores.embeddings import EmbeddingError


def summary_documents(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Summary search results as state documents (the shape of `Hit.as_dict()`)."""
    docs = []
    for rank, r in enumerate(results, start=1):
        sources = list(r.get("sources") or [])
        docs.append({
            "chunk_id": r["id"],
            "source": sources[0] if len(sources) == 1 else "",
            "title": r["title"],
            "heading": r["level"],
            "text": r["text"],
            "metadata": {"level": r["level"], "sources": sources[:50], "n_sources": len(sources), "title": r["title"]},
            "score": r["score"],
            "matched_by": {"summaries": {"rank": rank, "score": r["score"]}},
        })
    return docs


@timed("summary_retrieve")
def summary_retrieve(state: dict[str, Any], runtime: Any = None) -> dict[str, Any]:
    """Set `documents` from the summary layer for a macro question (chunk retrieval otherwise)."""
    ctx = context_of(runtime)
    kb = knowledge_base(ctx)
    query = query_of(state)
    k = int(state.get("k") or 5)
    docs: list[dict[str, Any]] = []
    out: dict[str, Any] = {}
    try:
        if ctx.feature("summaries", True) and is_macro_question(query):
            docs = summary_documents(search_summaries(kb, query, k))
        if not docs:
            hits = kb.hits(search(kb, [query], k, settings_for(state.get("intent"), pool=ctx.candidate_pool)))
            docs = [h.as_dict() for h in hits]
    except EmbeddingError as exc:
        docs = [h.as_dict() for h in kb.hits(bm25_only(kb, [query], k))]
        out = {"degraded": True, "degraded_reasons": [f"summary_retrieve: embedding endpoint failed ({exc}); "
                                                      "answered from BM25 over the chunks"]}
    return out | {"candidates": docs, "documents": docs}
