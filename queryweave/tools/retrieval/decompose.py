"""Sub-question decomposition for comparison and multi-part questions (rules first, LLM when unsure).

`decompose(question, llm=None)` returns the sub-questions to retrieve for, in parallel; a simple
question comes back as `[question]`. The rules cover the common shapes in English and Chinese:
"Are X and Y both Z?", "Which is older, X or Y?", "compare X and Y", "X vs Y", "difference between
X and Y", "X和Y的区别", "比较X与Y", and several questions in one ("...? ...?", "...; and how ...").
An LLM (structured output) is asked only when the rules see a comparison/multi-part cue but cannot
split it.
"""

from __future__ import annotations

import re

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from queryweave.prompts import pick
from queryweave.prompts.rewrite import DECOMPOSE_SYSTEM
from queryweave.tools.common.text import detect_language

MAX_PARTS = 4


class SubQuestions(BaseModel):
    """The sub-questions a question splits into."""

    questions: list[str] = Field(description="self-contained sub-questions, in order")


_EN_BOTH = re.compile(
    r"^(?P<aux>are|were|is|was|do|does|did|have|has|can)\s+(?P<a>.+?)\s+and\s+(?P<b>.+?)\s+both\s+(?P<rest>.+?)\??$",
    re.I)
_EN_SAME = re.compile(
    r"^(?P<aux>are|were|is|was|do|does|did)\s+(?P<a>.+?)\s+and\s+(?P<b>.+?)\s+(?:of|from|in|at|on)?\s*the\s+same\s+"
    r"(?P<rest>.+?)\??$", re.I)
_EN_WHICH = re.compile(r"^(?P<head>(?:[Ww]hich|[Ww]ho|[Ww]hat)\b.*?)[,:]?\s+(?P<a>(?:the\s+)?[A-Z][^,]*?)\s+or\s+"
                       r"(?P<b>[^,?]+?)\s*\??$")
_EN_COMPARE = re.compile(
    r"\b(?:compare|comparison of|difference between|differences between|similarities between|"
    r"contrast)\s+(?P<a>.+?)\s+(?:and|with|to|vs\.?|versus)\s+(?P<b>.+?)(?:\s+(?:in terms of|regarding|on)\s+(?P<aspect>.+?))?\??$",
    re.I)
_EN_VS = re.compile(r"^(?P<a>.+?)\s+(?:vs\.?|versus)\s+(?P<b>.+?)(?:[:,]\s*(?P<aspect>.+?))?\??$", re.I)
_ZH_COMPARE = re.compile(
    r"^(?:请)?(?:比较|对比)?(?:一下)?(?P<a>[^，,和与跟及]+?)(?:和|与|跟|及|同)(?P<b>[^，,的]+?)"
    r"(?:的|之间的|相比|有什么|有何|在)(?P<aspect>.*)$")
_ZH_CUE = re.compile(r"区别|差异|不同|比较|对比|相比|哪个更|谁更|异同|优缺点")
_EN_CUE = re.compile(r"\b(?:both|either|compare|comparison|difference|differ|versus|vs\.?|which (?:is|was|one)"
                     r"|older|younger|larger|bigger|more|less|first)\b", re.I)
_MULTI_SPLIT = re.compile(r"(?<=[?？])\s+|[;；]\s*(?:and\s+)?|\s*,?\s+and\s+(?=(?:what|how|why|when|where)\s)", re.I)
_QUOTED = re.compile(r"\"[^\"]*\"|“[^”]*”|《[^》]*》")
_WH = re.compile(r"^(?:what|how|why|when|where|who|which|is|are|does|do|can|did|was|were)\b", re.I)


def _clean(parts: list[str]) -> list[str]:
    seen: dict[str, None] = {}
    for p in parts:
        p = re.sub(r"\s+", " ", p).strip(" ,;，；")
        if len(p) >= 2 and p.lower() not in {s.lower() for s in seen}:
            seen[p] = None
    return list(seen)[:MAX_PARTS]


def _split_names(a: str, b: str) -> list[str]:
    """'X, Y and Z' on the left side of a comparison -> [X, Y, Z]."""
    names = [n for n in re.split(r",\s*|\s+and\s+", a) if n.strip()]
    if re.search(r"[A-Z]", b):  # "Esma Sultan Mansion located" -> "Esma Sultan Mansion"
        b = re.sub(r"(?:\s+[a-z]+)+$", "", b) or b
    return names + [b]


_PRONOUN = re.compile(r"\b(?:it|its|they|them|their|this|that|these|those)\b", re.I)
_QWORDS = {"what", "how", "why", "when", "where", "who", "which", "is", "are", "does", "do", "can", "did", "was",
           "were", "the", "a", "an", "i", "of", "and", "to", "in"}


def _resolve_pronouns(parts: list[str]) -> list[str]:
    """Later parts that say "it"/"they" get the first part's key words appended, so they stand alone."""
    key = " ".join(w for w in re.findall(r"[\w.+#-]+", parts[0]) if w.lower() not in _QWORDS)
    return [parts[0]] + [f"{p.rstrip('?')} ({key})" if key and _PRONOUN.search(p) else p for p in parts[1:]]


def decompose_rules(question: str) -> tuple[list[str], bool]:
    """(sub-questions, confident). A single item means no split; confident=False means "ask an LLM"."""
    q = question.strip()
    if not q:
        return [], True
    if detect_language(q) == "zh":
        parts = [p for p in re.split(r"(?<=[？?])|[；;]", q) if p.strip()]
        if len(parts) > 1:
            return _clean(parts), True
        m = _ZH_COMPARE.match(q.rstrip("？?。"))
        if m and _ZH_CUE.search(q):
            aspect = m.group("aspect").strip()
            aspect = re.sub(r"^(?:区别|差异|不同|异同)(?:是什么|有哪些|在哪里|在哪)?", "", aspect)
            subs = [f"{x.strip()}{('的' + aspect) if aspect else ''}" for x in (m.group("a"), m.group("b"))]
            return _clean(subs), True
        return [q], not _ZH_CUE.search(q)
    m = _EN_BOTH.match(q)
    if m:
        aux, rest = m.group("aux").lower(), m.group("rest")
        one = {"are": "is", "were": "was", "have": "has", "do": "does"}.get(aux, aux)
        return _clean([f"{one.capitalize()} {n} {rest}?" for n in _split_names(m.group("a"), m.group("b"))]), True
    m = _EN_SAME.match(q)
    if m:
        rest = m.group("rest")
        return _clean([f"What is the {rest} of {n}?" for n in _split_names(m.group("a"), m.group("b"))]), True
    m = _EN_COMPARE.search(q)
    if m:
        aspect = (m.group("aspect") or "").strip()
        return _clean([f"{x} {aspect}".strip() for x in (m.group("a"), m.group("b"))]), True
    m = _EN_WHICH.match(q)
    if m and len(m.group("a").split()) <= 8 and len(m.group("b").split()) <= 8:
        head, a = m.group("head"), m.group("a")
        if " " not in a.strip() or a.lower().startswith("the "):
            pass
        else:  # "band was formed first The Exies": the name is the capitalised tail
            tail = re.search(r"((?:the\s+)?(?:[A-Z][\w'.&-]*\s*)+)$", a)
            if tail and tail.start() > 0:
                head, a = f"{head} {a[: tail.start()]}", tail.group(1)
        head = re.sub(r"^(?:which|who|what)\s+(?:one\s+)?", "", head, flags=re.I).strip(" ,")
        return _clean([f"{x.strip()} {head}".strip() for x in (a, m.group("b"))]), True
    m = _EN_VS.match(q)
    if m:
        aspect = (m.group("aspect") or "").strip()
        return _clean([f"{x} {aspect}".strip() for x in (m.group("a"), m.group("b"))]), True
    masked = _QUOTED.sub(lambda m_: "\x00" * len(m_.group()), q)  # never split inside quotes
    parts, start = [], 0
    for m_ in _MULTI_SPLIT.finditer(masked):
        if m_.end() > m_.start() or m_.start() > start:
            parts.append(q[start : m_.start()])
            start = m_.end()
    parts = [p.strip() for p in parts + [q[start:]] if p.strip()]
    if len(parts) > 1 and all(_WH.match(p.strip()) or p.strip().endswith("?") for p in parts):
        return _clean(_resolve_pronouns(parts)), True
    return [q], not _EN_CUE.search(q)


def decompose(question: str, llm: BaseChatModel | None = None, max_parts: int = MAX_PARTS) -> list[str]:
    """Sub-questions to retrieve for (the question itself when it does not split)."""
    from queryweave.models import structured

    parts, confident = decompose_rules(question)
    if confident or llm is None:
        return parts[:max_parts]
    lang = detect_language(question)
    out = structured(llm, SubQuestions, [SystemMessage(pick(DECOMPOSE_SYSTEM, lang).format(n=max_parts)),
                                         HumanMessage(question)], retries=1)
    if out is None:
        return parts[:max_parts]
    subs = _clean([s for s in out.questions if isinstance(s, str)])
    return subs[:max_parts] or parts[:max_parts]
