"""Conversation history helpers: normalise roles, and compress long histories.

`summarize_history(history, max_turns)` keeps the last `max_turns` user turns (with the replies that
follow them) verbatim and folds everything older into one ("system", summary) entry naming the key
entities and the constraints in force, so follow-up resolution and prompts stay short.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from queryweave.tools.common.text import detect_language
from queryweave.tools.understanding.constraints import accumulate_constraints, describe_constraints
from queryweave.tools.understanding.mentions import key_terms

_ROLES = {"user": "user", "human": "user", "assistant": "assistant", "ai": "assistant", "system": "system",
          "summary": "system"}


def normalize_history(history: Any) -> list[tuple[str, str]]:
    """(role, text) pairs with roles "user"/"assistant"/"system"; accepts tuples, dicts and LangChain messages."""
    out: list[tuple[str, str]] = []
    for item in history or []:
        if isinstance(item, tuple | list) and len(item) == 2:
            role, text = item
        elif isinstance(item, dict):
            role, text = item.get("role") or item.get("type", ""), item.get("content") or item.get("text", "")
        else:
            role, text = getattr(item, "type", ""), getattr(item, "content", "")
        role = _ROLES.get(str(role).lower())
        if role and isinstance(text, str) and text.strip():
            out.append((role, text.strip()))
    return out


def summarize_history(history: Any, max_turns: int = 4, max_entities: int = 8) -> list[tuple[str, str]]:
    """The history with all but the last `max_turns` user turns compressed into one summary entry.

    The summary (role "system", in the conversation's language) lists the most frequent entities of
    the older turns and the constraints the user set there (see `accumulate_constraints`).
    """
    turns = normalize_history(history)
    user_idx = [i for i, (role, _) in enumerate(turns) if role == "user"]
    if len(user_idx) <= max_turns:
        return turns
    cut = user_idx[-max_turns] if max_turns > 0 else len(turns)
    older, recent = turns[:cut], turns[cut:]
    counts: Counter[str] = Counter()
    names: dict[str, str] = {}
    constraints: dict = {}
    for role, text in older:
        weight = 2 if role == "user" else 1
        for term in key_terms(text, limit=6):
            counts[term.lower()] += weight
            names.setdefault(term.lower(), term)
        if role == "user":
            constraints = accumulate_constraints(constraints, text)
    lang = detect_language(" ".join(t for r, t in older if r == "user") or older[0][1])
    topics = [names[k] for k, _ in counts.most_common(max_entities)]
    cons = describe_constraints(constraints, lang)
    if lang == "zh":
        text = "早先对话摘要：涉及 " + "、".join(topics) if topics else "早先对话摘要：无具体主题"
        text += f"；条件：{cons}" if cons else ""
    else:
        text = "Earlier in this conversation: topics " + ", ".join(topics) if topics else "Earlier in this conversation: no specific topic"
        text += f"; constraints: {cons}" if cons else ""
    return [("system", text)] + recent
