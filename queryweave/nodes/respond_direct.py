"""`respond_direct`: answer without retrieval (greeting, chit-chat, general knowledge), and say so."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage

from queryweave.config import context_of
from queryweave.models import call_text, get_chat_model, resolve_backend
from queryweave.nodes.common import language_of, query_of, timed
from queryweave.prompts import pick
from queryweave.prompts.generate import DIRECT_SYSTEM, NO_RETRIEVAL


@timed("respond_direct")
def respond_direct(state: dict[str, Any], runtime: Any = None) -> dict[str, Any]:
    """A direct reply: the LLM's for general questions when one is configured, else the rule reply."""
    ctx = context_of(runtime)
    lang = language_of(state, ctx)
    answer = state.get("answer") or ""
    out: dict[str, Any] = {"backend": resolve_backend(ctx.model_settings()), "citations": [], "k": 0}
    llm = get_chat_model(ctx.model_settings()) if state.get("intent") == "general" or not answer else None
    if llm is not None:
        res = call_text(llm, [SystemMessage(pick(DIRECT_SYSTEM, lang)), HumanMessage(query_of(state))])
        if res.value:
            answer = res.value.strip()
            if pick(NO_RETRIEVAL, lang) not in answer:  # the rule replies say so already; the LLM's do not
                answer = f"{answer} {pick(NO_RETRIEVAL, lang)}"
        else:
            out |= {"degraded": True, "degraded_reasons": [f"respond_direct: LLM failed ({res.error})"]}
    if not answer:
        answer = pick(NO_RETRIEVAL, lang)
    return out | {"answer": answer, "confidence": 1.0 if state.get("intent") in {"greeting", "chitchat"} else 0.5}
