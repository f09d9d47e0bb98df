"""`rerank`: reorder the retrieved candidates and keep the top k as `documents`; log the retrieval.

The reranker follows the profile and features (`rerank` on in `accurate`): a cross-encoder from a
configured local path, the LLM, or the offline feature reranker (which, like in `search`, only
reorders questions that name entities; descriptive questions keep the retrieval order). Any reranker failure keeps the
retrieval order (reported as degraded). Every turn is written to the query log (strategy, k,
latency, result ids) that `queryweave tune` reads.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from queryweave.config import context_of
from queryweave.nodes.common import knowledge_base, query_of, timed
from queryweave.tools.retrieval.expansion import names_entities
from queryweave.tools.retrieval.profiles import reranker_for_query, settings_for_context
from queryweave.tools.retrieval.rerank import get_reranker
from queryweave.tools.stores.querylog import LogEntry, RetrievalLog

log = logging.getLogger(__name__)


def _log(ctx: Any, state: dict[str, Any], strategy: str, docs: list[dict[str, Any]], k: int, ms: float) -> None:
    try:
        timings = state.get("timings") or {}
        latency = ms + sum(float(timings.get(n, 0.0)) for n in ("rewrite", "retrieve"))
        ql = RetrievalLog(ctx.data_dir, ctx.database_url)
        ql.log(LogEntry(query=query_of(state), strategy=strategy, k=k, latency_ms=latency,
                        result_ids=[d.get("chunk_id", "") for d in docs], intent=state.get("intent"),
                        profile=ctx.profile))
        ql.close()
    except Exception as exc:  # the log must never break an answer
        log.warning("query log failed: %s", exc)


@timed("rerank")
def rerank(state: dict[str, Any], runtime: Any = None) -> dict[str, Any]:
    """Reorder `candidates`; `documents` = the top `k`."""
    t = time.perf_counter()
    ctx = context_of(runtime)
    candidates = list(state.get("candidates") or [])
    k = int(state.get("k") or 5)
    out: dict[str, Any] = {}
    settings = settings_for_context(ctx, state.get("intent"))
    question = query_of(state)
    name = reranker_for_query(settings.rerank, question)  # English-only models: features for Chinese
    gate_out = name == "features" and settings.query_gate and not names_entities(question)
    if name != "none" and len(candidates) > 1 and not gate_out:
        try:
            reranker = get_reranker(name, kb=knowledge_base(ctx), llm=settings.llm)
            head, tail = candidates[: settings.rerank_depth], candidates[settings.rerank_depth :]
            candidates = reranker.rerank(question, head) + tail
            errors = getattr(reranker, "errors", [])
            if errors:
                out |= {"degraded": True, "degraded_reasons": [f"rerank: {errors[0]}; kept retrieval order"]}
        except Exception as exc:
            out |= {"degraded": True,
                    "degraded_reasons": [f"rerank: {type(exc).__name__}: {exc}; kept retrieval order"]}
    docs = candidates[:k]
    _log(ctx, state, "+".join(settings.strategies()), docs, k, (time.perf_counter() - t) * 1000)
    return out | {"candidates": candidates, "documents": docs}
