"""The result shape a question asks for, and whether a query's result has it.

Read from the question's grammar alone (English and Chinese), nothing fitted to a database:

- `count`: "how many …", "the number of …", 多少 / 几个 / 数量 — one row holding a number (a Chinese
  count word only when it is asked alone: not compared, "数量超过", nor beside a name, "名称和语言数量");
- `one`: one thing or one aggregate — a singular question with a superlative ("Which country has
  the most singers?", "What is the name of the youngest singer?"), "what is the average/maximum …",
  最… without 哪些/所有/列出 — one row (ties allowed up to `TIES`);
- `top`: "the 3 oldest", "top 5", 前3 — at most N rows;
- `grouped`: "for each …", "per …", 每个 / 各个 / 分别 — one row per group, so more than one row;
- `rows`: anything else — at least one row.

An empty result fits no shape (a question is asked of data that holds its answer); when no candidate
fits, callers keep what they had. `TextToSQL` uses this to pick among sampled queries and to accept
a repair only when the repaired query answers the question's shape.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

TIES = 3  # a superlative may tie: up to this many rows still fit `one`

_NUM_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}
_ZH_NUM = {"一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}

_EN_GROUPED = re.compile(r"\b(for each|for every|in each|of each|by each|each of the|grouped by|"
                         r"for (?:all )?(?:the )?different|by different)\b|\beach\s+\w+", re.I)
_EN_COUNT = re.compile(r"^\s*(?:(?:please\s+)?(?:tell me|find|count|return|show|give(?: me)?|compute|"
                       r"what (?:is|are|was)|what's)\s+)?(?:how many|(?:the\s+)?(?:total\s+)?"
                       r"(?:number|count|amount)\s+of)\b", re.I)
_EN_AGG = re.compile(r"^\s*(?:(?:please\s+)?(?:tell me|find|return|show|give(?: me)?|compute|what (?:is|are|was)"
                     r"|what's)\s+)(?:the\s+)?(?:average|mean|total|sum|maximum|minimum|max|min|highest|lowest)"
                     r"\b", re.I)
_EN_SUPER = re.compile(r"\b(most|least|highest|lowest|largest|smallest|greatest|fewest|maximum|minimum|"
                       r"oldest|youngest|earliest|latest|newest|longest|shortest|biggest|best|worst|"
                       r"cheapest|heaviest|lightest|\w+est)\b", re.I)
_EN_NOT_SUPER = {"interest", "est", "west", "test", "best", "rest", "forest", "latest", "request", "contest", "guest",
                 "nest", "chest", "honest", "modest", "harvest", "protest", "invest", "suggest", "digest", "manifest"}
_EN_SUPER_OK = {"best", "latest"}
_EN_SINGULAR = re.compile(r"^\s*(?:which|what|who|whose)\b(?:\s+\w+){0,6}?\s+(?:is|was|has|had|does|did)\b|"
                          r"^\s*(?:find|return|show|give(?: me)?|tell me)\s+the\s+\w+(?:\s+\w+)?\s+of\s+the\s+\w+\s+"
                          r"(?:with|that|who|which)\b", re.I)
_EN_PLURAL = re.compile(r"\b(are|were|have|list|all|names|ids)\b", re.I)
_EN_TOP = re.compile(r"\b(?:top|first|last)\s+(\d+|" + "|".join(_NUM_WORDS) + r")\b|"
                     r"\bthe\s+(\d+|" + "|".join(_NUM_WORDS) + r")\s+(?:\w+est|most|least)\b", re.I)

_ZH_GROUPED = re.compile(r"每[个一种位名家年场次部类所条本座辆支门项张首届]|各个|各自|分别|按.{1,8}分组|对于每|"
                         r"(?:对于|按照?|根据|针对)不同|^不同")
_ZH_COMPARE = re.compile(r"低于|高于|超过|大于|小于|多于|少于|不到|以上|以下")
_ZH_COUNT = re.compile(r"有多少|多少(?![？?。！!，,]|$)|几[个位名种家次项部首条本座所辆]|数量|数目|总数|个数|总共有|一共有")
_ZH_BESIDE = re.compile(r"[和及与、]|以及|[？?]")  # before the count word: something else is asked too
_ZH_MANY = re.compile(r"哪些|所有|列出|全部|都有|都是|分别|各")
_ZH_SUPER = re.compile(r"最|平均|总和|总计")
_ZH_TOP = re.compile(r"前\s*(\d+|[一两二三四五六七八九十])|(\d+|[两二三四五六七八九十])\s*[个位名种家部首条本座所辆]?\s*最|"
                     r"最[^，,。？?]{0,6}?的\s*(\d+|[两二三四五六七八九十])\s*[个位名种家部首条本座所辆]")


@dataclass(frozen=True)
class Shape:
    """What a question's answer looks like: `kind` (count/one/top/grouped/rows) and, for `top`, N."""

    kind: str
    limit: int = 0

    def fits(self, rows: Sequence[Sequence[Any]]) -> bool:
        """Whether `rows` (a query's result) have this shape."""
        n = len(rows)
        if n == 0:
            return False
        if self.kind == "count":
            return n == 1 and any(_is_number(v) for v in rows[0])
        if self.kind == "one":
            return n <= TIES
        if self.kind == "top":
            return n <= self.limit
        if self.kind == "grouped":
            return n >= 2
        return True

    def describe(self, rows: Sequence[Sequence[Any]], lang: str = "en") -> str:
        """Feedback for the model when `rows` do not fit: what came back and what was asked for."""
        got = len(rows)
        want = {"count": ("one row with a number", "一行、一个数字"),
                "one": ("a single row", "一行"),
                "top": (f"at most {self.limit} rows", f"最多 {self.limit} 行"),
                "grouped": ("one row per group", "每组一行"),
                "rows": ("at least one row", "至少一行")}[self.kind]
        if lang == "zh":
            return f"结果有 {got} 行，但问题要求{want[1]}"
        return f"the result has {got} row{'s' if got != 1 else ''}, but the question asks for {want[0]}"


def _is_number(v: Any) -> bool:
    if isinstance(v, bool):
        return False
    if isinstance(v, int | float):
        return True
    try:
        float(str(v))
        return True
    except ValueError:
        return False


def _top_n(m: re.Match[str], table: dict[str, int]) -> int:
    raw = next(g for g in m.groups() if g)
    return int(raw) if raw.isdigit() else table.get(raw.lower(), 0)


def question_shape(question: str, lang: str | None = None) -> Shape:
    """The shape `question` asks for (see the module docstring); `rows` when nothing is certain."""
    zh = lang == "zh" or (lang is None and re.search(r"[\u4e00-\u9fff]", question) is not None)
    if zh:
        return _zh_shape(question)
    q = " ".join(question.split())
    grouped = _EN_GROUPED.search(q) is not None
    if grouped:
        return Shape("grouped")
    top = _EN_TOP.search(q)
    if top and _top_n(top, _NUM_WORDS) > 0:
        return Shape("top", _top_n(top, _NUM_WORDS))
    if _EN_COUNT.search(q):
        return Shape("count")
    if _EN_AGG.search(q) and not re.search(r"\b(whose|where|than|that|who|which)\b", q, re.I):
        return Shape("one")
    supers = [w.lower() for w in _EN_SUPER.findall(q)]
    supers = [w for w in supers if w in _EN_SUPER_OK or w not in _EN_NOT_SUPER]
    if supers and _EN_SINGULAR.search(q) and not _EN_PLURAL.search(q):
        return Shape("one")
    return Shape("rows")


def _count_asked(q: str, m: re.Match[str]) -> bool:
    """Whether the count word at `m` is what is asked: not inside a comparison ("产品数量超过平均产品数量的
    商店") and not one of several things asked ("国家名称和语言数量", "名字是什么？他们教了多少门课")."""
    if _ZH_COMPARE.match(q, m.end()) or "平均" in q[max(0, m.start() - 4):m.start()]:
        return False  # a count compared, or averaged: a condition or one value, not the count asked
    return not _ZH_BESIDE.search(q[:m.start()])


def _zh_shape(q: str) -> Shape:
    if _ZH_GROUPED.search(q):
        return Shape("grouped")
    top = _ZH_TOP.search(q)
    if top and _top_n(top, _ZH_NUM) > 1:
        return Shape("top", _top_n(top, _ZH_NUM))
    if "最" in q and not _ZH_MANY.search(q):
        return Shape("one")
    if any(_count_asked(q, m) for m in _ZH_COUNT.finditer(q)) and not _ZH_MANY.search(q):
        return Shape("count")
    if _ZH_SUPER.search(q) and not _ZH_MANY.search(q) and not (_ZH_COMPARE.search(q) and "最" not in q):
        return Shape("one")
    return Shape("rows")
