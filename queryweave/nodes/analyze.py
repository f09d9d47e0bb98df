"""`analyze`: intent (factual / reasoning / comprehensive / fuzzy), scope × depth -> k, ambiguity.

Rules first (`queryweave.tools.understanding.intent`); when they are unsure and a model is configured, the LLM
classifies. k is clamped by the configuration's `k_min`/`k_max`.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage

from queryweave.config import context_of
from queryweave.models import call_structured, get_chat_model
from queryweave.nodes.common import knowledge_base, query_of, timed
from queryweave.prompts import pick
from queryweave.tools.understanding.ambiguity import detect_ambiguity
from queryweave.tools.understanding.intent import STRATEGIES, IntentOutput, classify_intent, k_for


def _llm_intent(ctx: Any, question: str, lang: str) -> tuple[Any, str | None]:
    llm = get_chat_model(ctx.model_settings())
    if llm is None:
        return None, None
    from queryweave.prompts.understanding import INTENT_SYSTEM

    res = call_structured(llm, IntentOutput, [SystemMessage(pick(INTENT_SYSTEM, lang)), HumanMessage(question)])
    return res.value, res.error


@timed("analyze")
def analyze(state: dict[str, Any], runtime: Any = None) -> dict[str, Any]:
    """Classify the query and size k."""
    ctx = context_of(runtime)
    question = query_of(state)
    lang = state.get("language") or "en"
    result = classify_intent(question)
    intent, scope, depth, source = result.intent, result.scope, result.depth, "rules"
    out: dict[str, Any] = {}
    if not result.confident:
        llm_out, error = _llm_intent(ctx, question, lang)
        if llm_out is not None:
            intent, scope, depth, source = llm_out.intent, llm_out.scope, llm_out.depth, "llm"
        elif error and error != "no LLM configured":
            out |= {"degraded": True, "degraded_reasons": [f"analyze: LLM failed ({error}); used rules"]}
    k = k_for(scope, depth, ctx.k_min, ctx.k_max)
    ambiguity = state.get("ambiguity") or {}
    if ctx.feature("clarify") and not ambiguity.get("resolved"):
        amb = detect_ambiguity(question, knowledge_base(ctx).topic_titles(), lang=lang)
        ambiguity = {"ambiguous": amb.ambiguous, "term": amb.term, "options": amb.options, "reason": amb.reason}
    return out | {
        "ambiguity": ambiguity,
        "intent": intent,
        "strategy": STRATEGIES[intent].name if intent in STRATEGIES else "",
        "k": k,
        "complexity": {"scope": scope, "depth": depth, "k": k, "source": source,
                       "confident": bool(result.confident)},
    }
