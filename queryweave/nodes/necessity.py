"""`necessity`: does this message need the knowledge base at all?

Greetings, thanks, chit-chat, arithmetic and general questions the knowledge base cannot be about
go to `respond_direct`; everything else goes on to analysis. Rules first, the LLM when unsure;
the rules err on the side of retrieving.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage

from queryweave.config import context_of
from queryweave.models import call_structured, get_chat_model
from queryweave.nodes.common import knowledge_base, query_of, timed
from queryweave.prompts import pick
from queryweave.tools.understanding.necessity import NecessityOutput, needs_retrieval

EMPTY = {"en": "Please type a question.", "zh": "请输入一个问题。"}


@timed("necessity")
def necessity(state: dict[str, Any], runtime: Any = None) -> dict[str, Any]:
    """Set `needs_retrieval` (and a direct reply when it is False)."""
    ctx = context_of(runtime)
    question = query_of(state)
    if not question and not state.get("image"):
        return {"needs_retrieval": False, "route": "direct", "intent": "empty",
                "answer": pick(EMPTY, state.get("language", "en"))}
    if not ctx.feature("necessity"):
        return {"needs_retrieval": True}
    kb = knowledge_base(ctx)
    decision = needs_retrieval(question, kb.vocabulary(), known=lambda name: kb.bm25().knows(name))  # loaded if asked
    needs, kind, reply, source = decision.needs, decision.kind, decision.reply, "rules"
    out: dict[str, Any] = {}
    if not decision.confident:
        llm = get_chat_model(ctx.model_settings())
        if llm is not None:
            from queryweave.prompts.understanding import NECESSITY_SYSTEM

            res = call_structured(llm, NecessityOutput, [SystemMessage(pick(NECESSITY_SYSTEM, state.get("language", "en"))),
                                                         HumanMessage(question)])
            if res.value is not None:
                needs, kind, reply, source = res.value.needs_retrieval, res.value.kind, res.value.reply, "llm"
            else:
                out |= {"degraded": True, "degraded_reasons": [f"necessity: LLM failed ({res.error}); used rules"]}
    if needs:
        return out | {"needs_retrieval": True}
    return out | {"needs_retrieval": False, "route": "direct", "intent": kind,
                  "answer": reply or "", "complexity": {"necessity": kind, "source": source}}
