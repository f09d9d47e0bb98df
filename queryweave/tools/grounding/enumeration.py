"""A list an answer sentence opens is shown to its end.

A sentence that announces what follows ("其特点主要有以下三点：第一，…", "陷入了类似以下的状况。", "The
process has three steps: first, …") or opens a run of ordinals ("一是…；二是…；") is half an answer alone:
the points it announces are in the units after it. Such a chosen unit is shown with the units that continue
it, in its passage, under the same heading:
- a unit ending in a semicolon after a colon (a list the colon opens, cut at a semicolon by its length,
  `units.CLAUSE_CHARS`: "拆分成两家公司：一家名为…；"): the next one (a semicolon alone joins two clauses,
  not the items of a list);
- a unit announcing "the following" with no colon to introduce it ("…类似以下的状况。"): the next one
  (a colon's next unit is shown already, `extractive._continuations`);
- a unit holding the first of a run of ordinals (第一 / 一是 / 其一 / 首先 / first): the units up to the one
  that holds the last ordinal of the run (the count it announces, "三点", when it says one), with what is
  said between them.
Code is left as it is (its lines end in ";"). At most `MAX_UNITS` units and `MAX_CHARS` characters are added: a list is shown whole or not at all. The
markers are the two languages' closed classes of ordinals and announcing words, not any evaluation set's
sentences.
"""

from __future__ import annotations

import re

from queryweave.tools.grounding.antecedent import POINTS_BACK, restates
from queryweave.tools.grounding.units import CODE_PREFIX

MAX_UNITS = 8
_COLON = re.compile(r"[：:](?!//)")  # a list a colon introduces (not a URL's "://")
MAX_CHARS = 600
_CN_NUM = "一二三四五六七八九十"
_ANNOUNCES = re.compile(r"(?:以下|如下|下列|下面)(?:的|几|[一二三四五六七八九十两\d]+)?[点个项种条类方面状况情形几]*[。.]?$|"
                        r"\b(?:the following(?: [\w`'-]+){0,5}|as follows)[.]?$", re.I)
_CODE_LIKE = re.compile(r"[{}]|=>|\)\s*;$")  # a unit holding code (its statements end in ";")
_COUNT = re.compile(r"(?:以下|有|分为|包括|分成)?([二三四五六七八九十两\d]+)(?:个)?(?:点|方面|项|种|条|类|步|部分)|"
                    r"\b(two|three|four|five|six|seven|eight|nine|ten|\d+) (?:steps|points|ways|parts|stages|"
                    r"reasons|kinds|types)\b", re.I)
_EN_COUNT = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten".split())}
_EN_ORD = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"]


def _ordinal_patterns(n: int) -> re.Pattern[str]:
    """The n-th (1-based) ordinal at the head of a clause, in either language."""
    cn = _CN_NUM[n - 1] if n <= 10 else str(n)
    en = _EN_ORD[n - 1] if n <= 10 else f"{n}th"
    extra = "|首先" if n == 1 else "|其次" if n == 2 else ""
    return re.compile(rf"(?:^|[：:，,；;。\s])(?:第{cn}[，、,:：]|{cn}是|其{cn}[，、,:：]{extra}|"
                      rf"\b{en}(?:ly)?\b[,:])", re.I)


def _count(unit: str) -> int | None:
    m = _COUNT.search(unit)
    if not m:
        return None
    word = (m.group(1) or m.group(2) or "").lower()
    if word.isdigit():
        return int(word)
    if word in _EN_COUNT:
        return _EN_COUNT[word]
    return 2 if word == "两" else (_CN_NUM.index(word) + 1 if word in _CN_NUM else None)


def _last_ordinal(text: str) -> int:
    """The highest ordinal of a run starting at one found in `text` (0 when it holds no first one)."""
    n = 0
    while n < 10 and _ordinal_patterns(n + 1).search(text):
        n += 1
    return n


def continuation(unit: str, following: list[str]) -> list[str]:
    """The units of `following` (those after `unit` in its passage, under its heading) that complete the
    list `unit` opens: none when it opens none, or when the list does not end within the limits."""
    if not following:
        return []
    if unit.startswith(CODE_PREFIX) or _CODE_LIKE.search(unit):
        return []  # code ends its lines with ";" and says "the following" in comments
    seen = _last_ordinal(unit)
    if not seen:
        listed = unit.endswith(("；", ";")) and bool(_COLON.search(unit[:-1]))
        if listed or (_ANNOUNCES.search(unit) and not unit.endswith((":", "："))):
            return following[:1] if len(following[0]) <= MAX_CHARS else []
        return []
    want = _count(unit)
    if want is not None and seen >= want:
        return []  # the unit holds its whole list
    out: list[str] = []
    for i, nxt in enumerate(following[:MAX_UNITS]):
        ahead = _ordinal_patterns(seen + 1)
        if want is None and not ahead.search(nxt) and not (i + 1 < len(following) and ahead.search(following[i + 1])):
            break  # no count announced: the run ends where its next ordinal comes within neither of two units
        out.append(nxt)
        if sum(map(len, out)) > MAX_CHARS:
            return []
        while seen < 10 and _ordinal_patterns(seen + 1).search(nxt):
            seen += 1
        if want is not None and seen >= want:
            return out
    return out if want is None and seen >= 2 else []


def with_continuations(chosen: list, units: dict[tuple[int, int], str],
                       headings: dict[tuple[int, int], str], question: str = "") -> list:
    """`chosen` (extractive candidates: score, coverage, passage, unit, pieces, …) with the units that
    complete a list its last piece opens, or the unit after one that only restates the question (and does not
    point back: `antecedent`), when they stand under the same heading and are not shown already."""
    shown = {p for item in chosen for p in item[4]}
    out = []
    for item in chosen:
        d, u, pieces = item[2], item[3], item[4]
        last = pieces[-1] if pieces else ""
        at = next((k for k in range(u, u + 3) if units.get((d, k)) == last), None)
        if at is not None:
            following = []
            k = at + 1
            while (d, k) in units and headings.get((d, k)) == headings.get((d, at)) and len(following) < MAX_UNITS:
                following.append(units[(d, k)])
                k += 1
            more = continuation(last, following)
            if not more and following and len(pieces) == 1 and question and restates(last, question) \
                    and not POINTS_BACK.match(last) and len(following[0]) <= MAX_CHARS:
                more = following[:1]  # "印度野驴与非洲野驴有些分别。" says what follows
            if more and not shown.intersection(more):
                pieces = (*pieces, *more)
                shown.update(more)
        out.append(item[:4] + (pieces,) + item[5:])
    return out
