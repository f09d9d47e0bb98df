"""An answer sentence that continues the one before it is shown with it.

A chosen unit that opens with a consequence ("因此……", "所以……", "As a result, …") states an effect whose
cause is the sentence before: alone it answers "why" with the question restated ("所以到了七、八月间，整个
草原呈现一片「碧草如茵」的景致" for "这景致形成的原因是什么？"). Such a unit is shown after the unit before
it in its passage, under the same heading. For a question that asks for a reason, a unit that opens with a
word pointing back ("这", "此", "It", "This") leans on the sentence before the same way. The usual repair of
dangling openings in extractive summaries, from the two languages' closed classes of connectives, not from
any evaluation set's sentences. A unit that only restates the question ("这次事件在动物学中是一次突破性的发现。"
for "在动物学中的一次突破性发现是什么？": `restates`) and points back leans on the sentence before the same way.
"""

from __future__ import annotations

import re

from queryweave.tools.common.text import tokenize
from queryweave.tools.grounding.units import CODE_PREFIX, position

_CONSEQUENCE = re.compile(r"^\s*(?:所以|因此|因而|于是|从而|由此|故而|故此|为此|在此背景下|"
                          r"(?:therefore|thus|hence|consequently|as a result|for this reason|because of this)\b)", re.I)
POINTS_BACK = re.compile(r"^\s*(?:这|此|其|它|该|(?:this|these|that|it|they)\b)", re.I)
_ASKS_REASON = re.compile(r"为什么|为何|原因|理由|缘故|背景|怎么会|\bwhy\b|\bhow come\b|\breasons?\b|\bcauses?\b", re.I)


_DIGIT = re.compile(r"\d")
_CJK = re.compile(r"[\u4e00-\u9fff]")
_LATIN = re.compile(r"[a-z_]", re.I)
RESTATED = 0.35  # at most this share of a unit's terms are not the question's: it says nothing new


def restates(unit: str, question: str) -> bool:
    """Whether `unit` only says what the question says ("印度野驴与非洲野驴有些分别。" for "印度野驴与非洲野驴
    的分别是什么？"): two or more terms, at most `RESTATED` of them new, none a number, no code."""
    terms = tokenize(unit)
    if len(terms) < 2 or "`" in unit or " | " in unit or unit.startswith(CODE_PREFIX):
        return False  # code and table rows state values
    asked = set(tokenize(question))
    new = [t for t in terms if t not in asked]
    # a number, or a Latin name in a Chinese sentence ("zh_HK"), is a value stated, not the question restated
    named = _DIGIT.search(" ".join(new)) or (_CJK.search(question) and any(_LATIN.match(t) for t in new))
    return len(new) <= RESTATED * len(terms) and not named


def opens_on_before(unit: str, question: str) -> bool:
    """Whether `unit` continues the sentence before it, for `question`."""
    return bool(_CONSEQUENCE.match(unit) or (POINTS_BACK.match(unit) and (
        _ASKS_REASON.search(question) or restates(unit, question))))


def with_antecedents(chosen: list, units: dict[tuple[int, int], str], headings: dict[tuple[int, int], str],
                     question: str) -> list:
    """`chosen` (extractive candidates: score, coverage, passage, unit, pieces, …) with the unit before
    each one that continues it, when that unit stands under the same heading and is not shown already."""
    shown = {p for item in chosen for p in item[4]}
    out = []
    for item in chosen:
        d, u, pieces = item[2], item[3], item[4]
        # where the item's first piece stands: its own unit, or the one before it that it is shown with
        # (a unit chosen alone and then shown with the unit after it that leans on it)
        at = position(units, d, pieces[0], (u, u - 1)) if pieces else None
        u = u if at is None else at
        before = units.get((d, u - 1))
        if (pieces and pieces[0] == units.get((d, u)) and before and before not in shown
                and headings.get((d, u - 1)) == headings.get((d, u)) and opens_on_before(pieces[0], question)):
            pieces = (before, *pieces)
            shown.add(before)
        out.append(item[:4] + (pieces,) + item[5:])
    return out
