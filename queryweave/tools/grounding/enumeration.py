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
from functools import lru_cache

from queryweave.tools.grounding.antecedent import POINTS_BACK, restates
from queryweave.tools.grounding.units import CODE_PREFIX, position

MAX_UNITS = 8
MAX_CHARS = 600
_COLON = re.compile(r"[：:](?!//)")  # a list a colon introduces (not a URL's "://")
_CN_NUM = "一二三四五六七八九十"
_KINDS = r"点|方面|项|种|条|类|步骤?|部分|状况|情况|情形|内容|方法|问题|特点|命令|配置|代码|示例|例子"
# "以下的状况。", "配置如下。", "The following two `run` calls are equivalent.", "… as follows." — not "5岁以下",
# "床下面", "the following year"
_ANNOUNCES = re.compile(rf"如下[。.]?$|(?:以下|下列|下面)的?(?:几|[二三四五六七八九十两\d]+)?个?(?:{_KINDS})[。.]?$|"
                        r"^\s*the following\b(?! (?:year|day|week|month|morning|night|season|decade|time)s?\b)|"
                        r"\b(?:the following|as follows)[.]?$", re.I)
_CODE_LIKE = re.compile(r"[{}]|=>|\)\s*;$")  # a unit holding code (its statements end in ";")
# a count the sentence announces ("有以下三点", "其职能有四个方面", "three steps"), not any number in it ("下午2点")
_COUNT = re.compile(rf"(?:以下|如下|下列|有|分为|包括|分成|共)的?([二三四五六七八九十两\d]+)个?(?:{_KINDS})|"
                    r"\b(two|three|four|five|six|seven|eight|nine|ten|\d+) (?:steps|points|ways|parts|stages|"
                    r"reasons|kinds|types)\b", re.I)
_FINAL = re.compile(r"(?:^|[：:，,；;。\s])(?:最后|\bfinally\b|\blastly\b)", re.I)  # the last point of a run
_EN_COUNT = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten".split())}
_EN_ORD = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"]


@lru_cache(maxsize=16)
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


def _clauses(following: list[str]) -> list[str]:
    """The clauses that end a list cut at its semicolons: up to the first unit that does not end in one."""
    out: list[str] = []
    for nxt in following[:MAX_UNITS]:
        out.append(nxt)
        if sum(map(len, out)) > MAX_CHARS:
            return []
        if not nxt.endswith(("；", ";")):
            return out
    return []


def continuation(unit: str, following: list[str]) -> list[str]:
    """The units of `following` (those after `unit` in its passage, under its heading) that complete the
    list `unit` opens: none when it opens none, or when the list does not end within the limits."""
    if not following or unit.startswith(CODE_PREFIX) or _CODE_LIKE.search(unit):
        return []  # code ends its lines with ";" and says "the following" in comments
    seen, want = _last_ordinal(unit), _count(unit)
    if not seen and not (want and _ordinal_patterns(1).search(following[0])):
        if unit.endswith(("；", ";")) and _COLON.search(unit[:-1]):
            return _clauses(following)  # "拆分成两家公司：一家名为…；"
        if _ANNOUNCES.search(unit) and not unit.endswith((":", "：")):
            return following[:1] if len(following[0]) <= MAX_CHARS else []
        return []
    if want is not None and seen >= want:
        return []  # the unit holds its whole list
    out: list[str] = []
    for i, nxt in enumerate(following):
        ahead = _ordinal_patterns(seen + 1)
        final = seen >= 1 and bool(_FINAL.search(nxt))
        coming = i + 1 < len(following) and bool(ahead.search(following[i + 1]) or _FINAL.search(following[i + 1]))
        if want is None and not final and not ahead.search(nxt) and not coming:
            break  # no count announced: the run ends where its next ordinal comes within neither of two units
        if i >= MAX_UNITS:
            return []  # the list does not end within the limits: shown whole or not at all
        out.append(nxt)
        if sum(map(len, out)) > MAX_CHARS:
            return []
        while seen < 10 and _ordinal_patterns(seen + 1).search(nxt):
            seen += 1
        if final or (want is not None and seen >= want):
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
        at = position(units, d, last, range(u, u + 3))
        if at is not None:
            following = []
            k = at + 1
            while (d, k) in units and headings.get((d, k)) == headings.get((d, at)) and len(following) < MAX_UNITS + 2:
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
