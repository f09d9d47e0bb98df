"""`begin` opens a turn (resets per-turn state, records the question); `resolve` rewrites a follow-up
question into a standalone one from the thread's history (rules first, the LLM when the rules are unsure),
and carries the user's earlier constraints ("只看 2023 年的", "only Kotlin") into this turn.

When the rules only guessed by attaching the last topic to a question that has no reference word
("What is the build cache?" after asyncio -> "... of asyncio.gather?") and no LLM can check, the
knowledge base decides: a passage with all of the question's content words that does not mention that
topic means the question stands alone (an unrelated later question in the same thread stays as asked).

The rules also return `search_hints` (`tools/understanding/hints.py`): the conversation's phrases that
`rewrite` searches beside the question. They are kept for a follow-up that leans on the conversation
(a reference word, an ellipsis, no name of its own), and for one that looks self-contained only when
no top passage holds all its words. When the rules are unsure the LLM rewrites the question, and its
rewrite is used only if it can stand in for the question (`tools/understanding/rewrite_check.py`: no
earlier turn echoed, no sentence added, the question's own words kept, no word from outside the conversation); the hints are
searched beside it either way.
"""

from __future__ import annotations

import logging
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from queryweave.config import context_of
from queryweave.models import call_structured, get_chat_model
from queryweave.nodes.common import knowledge_base, timed
from queryweave.tools.common.text import detect_language, tokenize
from queryweave.tools.common.validation import sanitize_question
from queryweave.tools.understanding.constraints import accumulate_constraints
from queryweave.tools.understanding.coref import CorefRewrite, Resolution, resolve_followup, summarize_history
from queryweave.tools.understanding.rewrite_check import refuse_rewrite

log = logging.getLogger(__name__)

TURN_RESET: dict[str, Any] = {
    "attempts": None, "degraded_reasons": None, "timings": None, "degraded": False, "clarification": None,
    "queries": [], "sub_questions": [], "filters": None, "filter_notes": [], "candidates": [], "documents": [],
    "sql": "", "cypher": "", "rows": [], "verdicts": [], "citations": [], "answer": "", "attempt": 0,
    "reflection": {}, "grade": {}, "route": "", "strategy": "", "ambiguity": {},
    "needs_retrieval": True, "intent": "", "k": 0, "confidence": 0.0, "confidence_features": {}, "low_confidence": False,
    "abstained": False, "missing_terms": [], "nearest": [], "image_text": "",
    "transcript": "", "search_hints": [],
}


def history_of(messages: list[BaseMessage], max_turns: int = 12) -> list[tuple[str, str]]:
    """(role, text) pairs of the conversation so far, older turns compressed."""
    pairs = []
    for m in messages or []:
        role = {"human": "user", "ai": "assistant", "system": "system"}.get(m.type, m.type)
        pairs.append((role, str(m.content)))
    if len(pairs) > max_turns * 2:
        return summarize_history(pairs, max_turns)
    return pairs


def _llm_rewrite(ctx: Any, question: str, history: list[tuple[str, str]]) -> tuple[str | None, str | None]:
    from queryweave.prompts import pick
    from queryweave.prompts.understanding import COREF_SYSTEM

    llm = get_chat_model(ctx.model_settings())
    if llm is None:
        return None, None
    lang = detect_language(question)
    transcript = "\n".join(f"{r}: {t}" for r, t in history[-8:])
    result = call_structured(llm, CorefRewrite, [SystemMessage(pick(COREF_SYSTEM, lang)),
                                                 HumanMessage(f"{transcript}\n\nfollow-up: {question}")])
    if result.value is None:
        return None, result.error
    return result.value.standalone_question.strip() or None, None


def checked_llm_rewrite(ctx: Any, question: str, history: list[tuple[str, str]],
                        res: Resolution) -> tuple[str | None, str | None]:
    """For a follow-up the rules are unsure of (`res`): the LLM's rewrite when it can stand in for the
    question, else None; and the model's error, if the call failed."""
    if res.confident:
        return None, None
    text, error = _llm_rewrite(ctx, question, history)
    if text:
        refused = refuse_rewrite(question, text, [t for _, t in history])
        if refused is None:
            return text, None
        log.info("resolve: LLM rewrite %r of %r refused: %s", text, question, refused)
    return None, error


def _passages_holding(ctx: Any, question: str) -> list[str]:
    """Texts (title, heading, body) of the top BM25 passages of `question` that hold every one of its
    content words (two or more); empty without a knowledge base or while its index is rebuilt."""
    terms = set(tokenize(question))
    if len(terms) < 2:
        return []
    try:
        kb = knowledge_base(ctx)
        chunks = kb.catalog.get_chunks([cid for cid, _ in kb.bm25_search(question, 3)])
    except Exception:  # no knowledge base (structured sources only), or an index being rebuilt
        return []
    texts = [" ".join([str(c.metadata.get("title", "")), c.heading or "", c.text]) for c in chunks.values()]
    return [t for t in texts if terms <= set(tokenize(t))]


def stands_alone(ctx: Any, question: str, topic: str | None) -> bool:
    """Whether a top passage holds all of `question`'s content words and does not mention `topic`: then
    attaching `topic` to it was a wrong guess."""
    return bool(topic) and any(topic.lower() not in t.lower() for t in _passages_holding(ctx, question))


def searchable_alone(ctx: Any, question: str) -> bool:
    """Whether a top passage holds every content word of `question`: a follow-up that looks
    self-contained and is answerable as asked then needs no conversation hints."""
    return bool(_passages_holding(ctx, question))


def begin(state: dict[str, Any], runtime: Any = None) -> dict[str, Any]:
    """Open a turn: clean the question (never raises) and clear what the previous turn left."""
    cleaned = sanitize_question(state.get("question") or "")
    return dict(TURN_RESET) | {"question": cleaned.text, "input_notes": cleaned.notes,
                               "language": detect_language(cleaned.text)}


@timed("resolve")
def resolve(state: dict[str, Any], runtime: Any = None) -> dict[str, Any]:
    """Resolve coreference against the history and accumulate constraints."""
    ctx = context_of(runtime)
    question = (state.get("question") or "").strip()
    out: dict[str, Any] = {}
    history = history_of(state.get("messages") or [])
    resolved = question
    if history and ctx.feature("coref"):
        res = resolve_followup(question, history)
        resolved = res.query
        hints = res.hints if res.dependent or not searchable_alone(ctx, question) else []
        if not res.confident:
            text, error = checked_llm_rewrite(ctx, question, history, res)
            if text:
                resolved = text
            else:
                if error and error != "no LLM configured":
                    out["degraded"] = True
                    out["degraded_reasons"] = [f"resolve: LLM failed ({error}); used the rule rewrite"]
                if "topic attached" in res.reason and stands_alone(ctx, question, res.antecedent):
                    resolved = question
        out["search_hints"] = hints
    out["resolved_query"] = resolved
    if ctx.feature("constraints"):
        out["constraints"] = accumulate_constraints(state.get("constraints"), question)
    out["messages"] = [HumanMessage(question)]
    return out
