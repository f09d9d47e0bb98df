"""`rewrite`: the question's search queries (LLM variants) and sub-questions, before `retrieve`.

Rules first: a comparison or multi-part question is split by `decompose` (rules; the LLM only when
the rules see a cue they cannot split). With an LLM and the `multi_query` feature (on in the
`accurate` profile), 3-5 rephrasings are added. In a bilingual knowledge base the search query gets
keywords in the other language appended (feature `cross_lingual`, on): the question's names plus
glossary translations of its question words, so "HikariCP 连接池默认大小" searches as "HikariCP
连接池默认大小 HikariCP connection pool default size" — BM25 cannot match across languages and the
embedding favours its own language. Answers still read the question as asked. A follow-up's
`search_hints` (from `resolve`) add a query of the question plus the conversation's phrases: first when
the question was kept as asked ("Did she go on tour?"), after the rewrite when the rules rewrote it. Offline strategies that need the index (PRF,
keyword/neighbour variants, HyDE) run inside `retrieve` itself.
"""

from __future__ import annotations

from typing import Any

from queryweave.config import context_of
from queryweave.nodes.common import knowledge_base, language_of, query_of, timed
from queryweave.tools.retrieval.decompose import decompose
from queryweave.tools.retrieval.expansion import dedup, llm_variants
from queryweave.tools.retrieval.profiles import profile_of, settings_for_context
from queryweave.tools.understanding.glossary import cross_lingual_query

DECOMPOSE_INTENTS = {"comprehensive", "reasoning"}


@timed("rewrite")
def rewrite(state: dict[str, Any], runtime: Any = None) -> dict[str, Any]:
    """Return `queries` (the question first) and `sub_questions` (empty when it does not split)."""
    ctx = context_of(runtime)
    question = query_of(state)
    if not question:
        return {"queries": [], "sub_questions": []}
    settings = settings_for_context(ctx, state.get("intent"))
    out: dict[str, Any] = {}
    queries = [question]
    if settings.llm_variants and settings.llm is not None:
        variants = llm_variants(settings.llm, question, settings.llm_variants, language_of(state, ctx))
        if not variants:
            out |= {"degraded": True, "degraded_reasons": ["rewrite: LLM variants failed; used the question only"]}
        queries = dedup(queries + variants)
    if ctx.feature("cross_lingual"):
        other = _cross_lingual(ctx, question)
        if other:  # appended to the question itself: as a separate variant it would rank below the anchors
            queries = [f"{question} {other}", *queries[1:]]
    hints = state.get("search_hints") or []
    if hints:  # a follow-up: the question with the conversation's phrases, fused with the question as asked
        hinted = " ".join([question, *hints])
        asked_as_is = question == (state.get("question") or "").strip()
        queries = [hinted, *queries] if asked_as_is else [queries[0], hinted, *queries[1:]]
    subs: list[str] = []
    want_split = ctx.feature("decompose", profile_of(ctx).decompose or state.get("intent") in DECOMPOSE_INTENTS)
    if want_split:
        parts = decompose(question, settings.llm)
        subs = parts if len(parts) > 1 else []
    return out | {"queries": queries, "sub_questions": subs}


def _cross_lingual(ctx: Any, question: str) -> str | None:
    """The other-language keyword query when the knowledge base holds both languages (None on any store error)."""
    try:
        mix = knowledge_base(ctx).language_mix()
    except Exception:  # a missing or busy store is retrieve's to report, not rewrite's
        return None
    return cross_lingual_query(question, mix)
