"""`clarify`: pause the graph (LangGraph `interrupt`) to ask which meaning an ambiguous query has.

The options come from the knowledge base (titles and headings that match the bare term), plus
"other". Resuming with an option (its text or its number) or free text continues the same thread:
the choice sharpens the query and the graph goes back to `analyze`.
"""

from __future__ import annotations

from typing import Any

from langgraph.types import interrupt

from queryweave.nodes.common import language_of, query_of

QUESTION = {
    "en": "“{term}” matches several topics in the knowledge base. Which one do you mean?",
    "zh": "知识库中有多个与“{term}”相关的主题，你指的是哪一个？",
}
OTHER = {"other", "其他", "其它", "none", "都不是"}


def interpret_choice(choice: Any, options: list[str], term: str) -> str:
    """The sharpened query for a resume value: an option's text or number, or free text."""
    text = str(choice.get("choice", "") if isinstance(choice, dict) else choice or "").strip()
    if text.isdigit() and 1 <= int(text) <= len(options):
        text = options[int(text) - 1]
    if not text or text.lower() in OTHER:
        return term
    if term and term.lower() not in text.lower():
        return f"{term} {text}"
    return text


def clarify(state: dict[str, Any], runtime: Any = None) -> dict[str, Any]:
    """Ask the user to choose; on resume, rewrite the query with the choice."""
    amb = state.get("ambiguity") or {}
    term = amb.get("term") or query_of(state)
    options = list(amb.get("options") or [])
    lang = language_of(state)
    payload = {"question": QUESTION[lang if lang in QUESTION else "en"].format(term=term), "options": options,
               "term": term}
    choice = interrupt(payload)
    resolved = interpret_choice(choice, [o for o in options if o.lower() not in OTHER], term)
    return {"resolved_query": resolved, "clarification": None,
            "ambiguity": {"ambiguous": False, "resolved": True, "term": term, "choice": resolved}}
