"""`grade_documents`: are the retrieved passages enough to answer? (the seeds' dynamic stopping)

Enough -> generate. Not enough and a widening is left -> go back through rewrite/retrieve with a wider
k and query expansion switched on (a metadata filter the user asked for stays). Offline the grade is term coverage; across
languages (a Chinese question over English passages) lexical coverage says nothing, so it is skipped.
"""

from __future__ import annotations

from typing import Any

from queryweave.config import context_of
from queryweave.nodes.common import query_of, timed
from queryweave.tools.common.text import detect_language
from queryweave.tools.grounding.relevance import documents_sufficiency

MAX_WIDENINGS = 1


@timed("grade_documents")
def grade_documents(state: dict[str, Any], runtime: Any = None) -> dict[str, Any]:
    """Grade the passages; plan a widening when they fall short."""
    ctx = context_of(runtime)
    question = query_of(state)
    docs = state.get("documents") or []
    widenings = int((state.get("grade") or {}).get("widenings", 0))
    if not ctx.feature("grade_documents"):
        return {"grade": {"enough": True, "reason": "grading switched off", "widenings": widenings}}
    if docs and detect_language(question) != detect_language(" ".join(d.get("text", "")[:200] for d in docs[:3])):
        return {"grade": {"enough": True, "reason": "cross-language: lexical grading skipped", "widenings": widenings}}
    suff = documents_sufficiency(question, docs)
    grade = {"enough": suff.enough, "union_coverage": suff.union_coverage, "best_coverage": suff.best_coverage,
             "reason": suff.reason, "widenings": widenings}
    if suff.enough or widenings >= MAX_WIDENINGS:
        return {"grade": grade}
    k = min(ctx.k_max, max(int(state.get("k") or 5) * 2, 4))
    # A user's filter stays: widening means more candidates and expansion, not other documents.
    return {"grade": grade | {"widen": True, "widenings": widenings + 1}, "k": k,
            "reflection": {"action": "widen", "reason": suff.reason}}
