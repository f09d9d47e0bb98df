"""Ambiguity: a bare, underspecified query ("Gradle", "内存") that matches several distinct KB topics.

`detect_ambiguity(question, topic_titles)` returns the options a clarification step can offer:
3 to 5 entries — up to four distinct matching titles (shortest and most different first) plus
"other"/"其他". A query with its own question (what/how/为什么/怎么…), more than a few words, or at most
one matching topic is not ambiguous: retrieval (or query expansion) can handle it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from queryweave.tools.common.text import detect_language, tokenize

_LEAD = re.compile(r"^(?:关于|有关|查一下|查查|查|搜索|搜一下|找|search(?: for)?|find|about|re:|info on|docs? on)\s*", re.I)
_TAIL = re.compile(r"\s*(?:相关|方面|的问题|问题|的事|相关的?|stuff|things?|docs?|information|info)?\s*[?？!！.。…]*$", re.I)
_QUESTIONY = re.compile(r"[吗呢]|什么|怎么|如何|为什么|为何|哪|谁|几|多少|是否|能否|可以|\b(?:what|how|why|when|where|who|which|"
                        r"is|are|does|do|can|should|could|would)\b", re.I)


@dataclass
class Ambiguity:
    """Whether the query is ambiguous, the bare term, and the options to offer (last one "other")."""

    ambiguous: bool
    term: str | None = None
    options: list[str] = field(default_factory=list)
    reason: str = ""


def bare_term(question: str) -> str | None:
    """The term of a bare-keyword query ("Gradle", "关于内存", "memory?"), or None for a real question."""
    q = _TAIL.sub("", _LEAD.sub("", question.strip()))
    if not q or _QUESTIONY.search(q):
        return None
    if detect_language(q) == "zh":
        core = re.sub(r"\s+", "", q)
        return q if len(core) <= 8 and len(tokenize(q)) <= 3 else None
    words = q.split()
    return q if 1 <= len(words) <= 3 and len(tokenize(q)) <= 3 else None


def _matches(term: str, title: str) -> bool:
    t, s = term.lower(), title.lower()
    if re.search(r"[\u4e00-\u9fff]", t):
        return t.replace(" ", "") in s.replace(" ", "")
    if re.search(rf"(?<![a-z0-9]){re.escape(t)}(?![a-z0-9])", s):
        return True
    want = set(tokenize(term))
    return bool(want) and want <= set(tokenize(title))


def _diverse(titles: list[str], term: str, limit: int) -> list[str]:
    """Up to `limit` titles, shortest first, skipping near-duplicates (same remaining words)."""
    term_toks = set(tokenize(term))
    chosen: list[str] = []
    chosen_rest: list[set[str]] = []
    for title in sorted(titles, key=lambda t: (len(t), t.lower())):
        rest = set(tokenize(title)) - term_toks
        if any(rest == r or (rest and r and len(rest & r) / len(rest | r) >= 0.6) for r in chosen_rest):
            continue
        chosen.append(title)
        chosen_rest.append(rest)
        if len(chosen) == limit:
            break
    return chosen


def detect_ambiguity(question: str, topic_titles: list[str] | None, max_options: int = 4,
                     lang: str | None = None) -> Ambiguity:
    """Is `question` a bare term matching at least two distinct topics in `topic_titles`?

    Options are drawn from the matching titles (at most `max_options`), followed by "other"/"其他"
    (in `lang`, detected from the question when None).
    """
    term = bare_term(question)
    if term is None:
        return Ambiguity(False, None, [], "a specific question")
    titles = list(dict.fromkeys(t.strip() for t in (topic_titles or []) if t and t.strip()))
    matching = [t for t in titles if _matches(term, t)]
    options = _diverse(matching, term, max(2, max_options))
    if len(options) < 2:
        return Ambiguity(False, term, options, f"{len(options)} distinct matching topic(s)")
    other = "其他" if (lang or detect_language(question)) == "zh" else "other"
    return Ambiguity(True, term, options + [other], f"{len(matching)} matching topics")
