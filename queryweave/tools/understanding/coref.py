"""Follow-up resolution: rewrite "它的默认值是多少？" / "what about its timeout?" into a standalone question.

Rule layer, Chinese and English, knowing nothing of the graph:
1. constraint-only turns ("只看 2023 年的", "only Kotlin") re-ask the previous question (the filter
   itself is carried by `accumulate_constraints`);
2. ellipsis ("那 Python 呢？", "what about its timeout?", "and in 2023?") re-uses the previous question
   with an entity, attribute or year swapped;
3. pronouns (它/它的/其/该X/这个/那个/这些, it/its/they/them/their/this/that/these) are replaced by the
   most salient mention of the recent turns (see `queryweave.tools.understanding.mentions`);
4. bare follow-ups ("为什么？", "tell me more") and subject-less attribute questions are joined to
   the previous question or its topic, flagged not confident.
Earlier user turns are resolved first, so chains of follow-ups keep their subject. `confident=False`
tells the caller to ask the LLM (prompts in `queryweave.prompts.understanding`, schema `CorefRewrite`).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from pydantic import BaseModel, Field

from queryweave.tools.common.text import detect_language
from queryweave.tools.understanding.constraints import accumulate_constraints, parse_constraints  # noqa: F401 (re-export)
from queryweave.tools.understanding.coref_rules import (
    Candidate,
    attribute_swap,
    entity_swap,
    find_ellipsis,
    is_vague_followup,
    plural_candidate,
    rank_candidates,
    year_swap,
)
from queryweave.tools.understanding.hints import depends_on_history, has_reference_word, history_hints
from queryweave.tools.understanding.history import normalize_history, summarize_history  # noqa: F401 (re-export)
from queryweave.tools.understanding.mentions import extract_mentions
from queryweave.tools.understanding.pronouns import replace_pronouns


@dataclass
class Resolution:
    """A follow-up rewritten (or not): the standalone `query`, whether it `changed`, whether the rules
    are `confident`, a short `reason`, the `antecedent` used when one was, and `hints`: phrases of the
    conversation that retrieval should search beside the question (see `tools/understanding/hints.py`);
    `dependent` when the question visibly leans on the conversation (otherwise the hints are optional)."""

    query: str
    changed: bool
    confident: bool
    reason: str
    antecedent: str | None = None
    hints: list[str] = field(default_factory=list)
    dependent: bool = False

    @property
    def search_text(self) -> str:
        """The question followed by its hints: what a retriever sees."""
        return " ".join([self.query, *self.hints]).strip()


class CorefRewrite(BaseModel):
    """LLM output for follow-up resolution."""

    standalone_question: str = Field(
        description="The user's last question rewritten so it can be understood without the conversation; "
        "same language as the question; unchanged if it already stands alone."
    )
    changed: bool = Field(description="True when the question was rewritten.")


def _concat(prev: str, question: str, lang: str) -> str:
    prev = prev.strip()
    if not prev:
        return question
    sep = "" if lang == "zh" or prev[-1:] in "?？。.!！" else ". "
    return f"{prev}{sep} {question}".replace("  ", " ").strip()


def _resolve_once(question: str, turns: list[tuple[str, str]], prev: str | None) -> Resolution:
    """Resolve one question against `turns` (user turns already resolved) and the previous question."""
    q = question.strip()
    lang = detect_language(q)
    if prev is None:
        return Resolution(q, False, True, "no earlier question")
    cands = rank_candidates(turns)
    top = cands[0] if cands else None

    ell = find_ellipsis(q)
    found, remainder = parse_constraints(q)
    if found and not remainder and (ell is None or ell[0] != "year"):
        return Resolution(prev, True, True, "constraint-only turn: re-asks the previous question")
    if ell is not None:
        kind, x, prep = ell
        if kind == "year":
            out, ok = year_swap(prev, x, prep, lang)
            return Resolution(out, True, ok, "ellipsis: year swapped into the previous question")
        if kind == "attr":
            if top is None:
                return Resolution(_concat(prev, q, lang), True, False, "ellipsis without an antecedent")
            if re.match(r"^(?:它们|他们|她们|these|those|they|them|their)", q.strip(), re.I) or "their" in q.lower():
                top = plural_candidate(turns, lang) or top
            out, ok = attribute_swap(prev, x, top.text, detect_language(prev))
            return Resolution(out, True, ok or top.clear, "ellipsis: attribute swapped", top.text)
        out, ok = entity_swap(prev, x, prep)
        if out is None:
            return Resolution(_concat(prev, q, lang), True, False, "ellipsis: nothing to swap, joined")
        return Resolution(out, True, ok, "ellipsis: entity swapped into the previous question", x)

    if top is not None:
        out, used = replace_pronouns(q, cands, lang, turns)
        if used:
            return Resolution(out, True, used.clear, "pronoun replaced by the last-mentioned entity", used.text)

    if is_vague_followup(q):
        return Resolution(_concat(prev, q, lang), True, False, "bare follow-up joined to the previous question")
    subjectless = _attach_subject(q, cands, lang)
    if subjectless is not None:
        return subjectless
    if top is not None and not extract_mentions(q) and (len(q.split()) <= 5 if lang == "en" else len(q) <= 8):
        core = re.sub(r"[\s?？。.!！]+$", "", q)
        out = f"{top.text} {core}？" if lang == "zh" else f"{core} {top.text}?"
        return Resolution(out, True, False, "short question without an object: topic attached", top.text)
    return Resolution(q, False, True, "standalone")


def _attach_subject(q: str, cands: list[Candidate], lang: str) -> Resolution | None:
    """A short question about an attribute or sub-topic with no subject of its own ("默认端口是多少？")."""
    top = next((c for c in cands if c.kind in ("name", "code") and c.score >= 0.5 * cands[0].score), None)
    ms = extract_mentions(q)
    if top is None or any(m.kind in ("name", "code", "chain") for m in ms):
        return None
    if len(q.split()) > 8 or (lang == "zh" and len(q) > 14):
        return None
    known = [c.text.lower() for c in cands if c.kind in ("noun", "phrase", "chain")]
    hooks = [m for m in ms if m.kind == "attr" or (m.kind in ("noun", "phrase") and any(
        m.text.lower() in k or k in m.text.lower() or len(set(m.text) & set(k)) >= 2 for k in known))]
    if not hooks:
        return None
    attr = hooks[0]
    if lang == "zh":
        start = attr.start
        lead = re.search(r"(默认|最大|最小|初始|当前|推荐|平均|总)$", q[:start])
        start = lead.start() if lead else start
        out = q[:start] + f"{top.text} 的" + q[start:]
    else:
        end = attr.start + len(attr.text)
        out = q[:end] + f" of {top.text}" + q[end:]
    return Resolution(out, True, False, "subject-less attribute question: topic attached", top.text)


def resolve_followup(question: str, history: list, max_lookback: int = 6) -> Resolution:
    """Rewrite a follow-up question into a standalone one from the conversation `history`.

    `history` is a list of (role, text) with role "user"/"assistant" (LangChain messages and
    "human"/"ai" roles are accepted; a "system" entry is treated as a summary of older turns).
    Returns a `Resolution`; `confident=False` means the rules guessed and an LLM should check.
    """
    turns = normalize_history(history)
    if not any(role == "user" for role, _ in turns):
        if not any(role == "assistant" for role, _ in turns):
            return Resolution(question.strip(), False, True, "no history")
    user_idx = [i for i, (role, _) in enumerate(turns) if role == "user"][-max_lookback:]
    resolved = list(turns)
    prev: str | None = None
    for i in user_idx:
        r = _resolve_once(turns[i][1], resolved[:i], prev)
        resolved[i] = ("user", r.query)
        prev = r.query
    prev_user = prev
    if prev is None:
        assistant = [t for role, t in turns if role == "assistant"]
        prev = assistant[-1] if assistant else None
    res = _guarded(question, _resolve_once(question, resolved, prev), prev)
    res.hints = history_hints(res.query, resolved, prev_user)
    res.dependent = res.changed or depends_on_history(question, resolved)
    return res


_CJK_CHAR = re.compile(r"[\u3400-\u9fff]")
_UNIT = re.compile(r"[\u3400-\u9fff]|[^\W_]+", re.UNICODE)


def _repeats(text: str) -> set[tuple[str, str]]:
    units = [u.lower() for u in _UNIT.findall(text)]
    grams = Counter(zip(units, units[1:], strict=False))
    return {g for g, c in grams.items() if c > 1 and not all(_CJK_CHAR.match(u) for u in g)}


def _guarded(question: str, res: Resolution, prev: str | None) -> Resolution:
    """Keep the question as asked when the rewrite is a guess that would read wrong: a subject the rules
    attached beside a reference word they could not replace ("第二个的默认端口"), or a splice that repeats a phrase ("what is what is
    its ...") neither the question nor the previous question repeats. The context then travels as hints."""
    if not res.changed:
        return res
    spliced = _repeats(res.query) - _repeats(question) - _repeats(prev or "")
    if spliced or (not res.confident and "topic attached" in res.reason and has_reference_word(question)):
        why = "a splice" if spliced else "a guessed subject"
        return Resolution(question.strip(), False, False, f"kept as asked ({why}); context carried as hints",
                          res.antecedent)
    return res

