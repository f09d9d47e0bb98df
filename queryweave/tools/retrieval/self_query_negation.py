"""Which value mentions in a question are negated ("not a blog post", "除了博客", "不是教程", "德语除外").

A negation cue scopes over the first value mentioned after it in the same clause, within a few
words (English) or characters (Chinese), and over the values coordinated with that one ("no
videos or slides", "不要视频和幻灯片"); a postfix cue ("除外") over the value just before it and those coordinated with it ("困难和超难的不要", "X 的文档就不用了"), also
past one character of the same word and a 的 ("人力资源部以外": 部 "department"; "销售部的不要"). Values
side by side with no word between are coordinated only within one field ("non-Chinese soups" negates
the cuisine, not the course). A clause
boundary (punctuation, "but", "only", "just") ends the scope. The middle of a yes-no question ("有没有",
"是不是", "要不要") is no cue. "除了 X 还/也 …" ("besides X, also …")
includes X, so it is no negation, unless it asks what else there is ("除了 X 还有啥").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

_EN_CUE = re.compile(
    r"\b(?:not|no|non|never|neither|none\s+of|except(?:\s+for)?|excluding|exclude|without|other\s+than|apart\s+from|outside(?:\s+of)?|"
    r"nothing|any(?:thing|where|\s+time|\s+\w+)?\s+but|but\s+not|rather\s+than|instead\s+of|skip(?:ping)?|avoid(?:ing)?)\b|"
    r"n[’']t\b", re.I)
_ZH_CUE = re.compile(r"不是|不要|不含|不包括|不包含|不需要|不用|不看|不适合|排除|除了|除去|去掉|去除|非(?!常)|"
                     r"(?<![特区类级分识性派告])别(?![的人处样])|没有|不(?![错同少仅过断久管但论然止到足超])")  # 不到 / 不足 / 不超过: amounts
# words that reject what was just said ("就算了", "不用给我了", "别推"): a value before them is negated, a bound flips
# (`self_query_numbers.rejected`)
REJECTION = r"(?:就)?(?:不考虑|免了|算了|不用(?:给我|推给我|看)?了|别(?:推|看|给|发|找|要)|pass)"
_ZH_POST = re.compile(r"^\s*(?:[\u3400-\u9fff]?的?\s*(?:除外|以外|之外)|(?:[\u3400-\u9fff]?的\s*)?(?:就)?(?:不要|不算)|排除在外|"
                      rf"(?:[\u3400-\u9fff]?的\s*[\u3400-\u9fff]{{0,2}}?|[\u3400-\u9fff]?)\s*{REJECTION})", re.I)
# "CLI 和 Terraform 的文档就不用了": the thing of X is not wanted
_BOUNDARY = re.compile(r"[,;.!?，。；！？:：]|\b(?:but|only|just|and\s+also)\b|但|只", re.I)
_COORD = re.compile(r"^\s*(?:,|、|/|or|nor|and|或者?|和|与|及|还是)?\s*(?:the\s+|a\s+|an\s+)?$", re.I)
_INCLUSIVE = re.compile(r"还|也|另外")
# "除了 X 还有啥": what else there is, besides X: X is excluded after all
_OTHERS = re.compile(r"还有(?:啥|什么|哪些|别的|其他|其它|没有)|(?:别的|其他|其它)(?:的)?(?:吗|呢|么|？|\?|$)")


class _Span(Protocol):
    start: int
    end: int


def _field(hit: _Span) -> str | None:
    return getattr(hit, "field", None)


def _gap_ok(gap: str) -> bool:
    """Text between a cue and a value that still leaves the value in the cue's scope."""
    if _BOUNDARY.search(gap):
        return False
    if re.search(r"[\u3400-\u9fff]", gap):
        return len(re.sub(r"\s", "", gap)) <= 3
    return len(gap.split()) <= 3


def _a_not_a(text: str, start: int, cue: str) -> bool:
    """The cue is the middle of a yes-no question ("有没有", "是不是", "要不要", "能不能"): no negation."""
    if cue != "没有" and not cue.startswith("不"):
        return False
    verb = "有" if cue == "没有" else text[start + 1:start + 2]
    return start > 0 and text[start - 1] == verb


def negated(text: str, hits: Sequence[_Span]) -> set[int]:
    """Indices of `hits` (sorted by start) that a negation cue in `text` scopes over."""
    order = sorted(range(len(hits)), key=lambda i: hits[i].start)
    out: set[int] = set()
    cues = [(m.end(), m.group()) for rx in (_EN_CUE, _ZH_CUE) for m in rx.finditer(text)
            if not any(h.start <= m.start() < h.end for h in hits)  # a cue inside a value ("without nuts": `nut_free`)
            and not _a_not_a(text, m.start(), m.group())]
    for end, cue in cues:
        after = [i for i in order if hits[i].start >= end]
        if not after or not _gap_ok(text[end:hits[after[0]].start]):
            continue
        rest = re.split(r"[,，。;；?？]", text[hits[after[0]].end:])[0]
        if cue == "除了" and _INCLUSIVE.search(rest) and not _OTHERS.search(rest):
            continue
        out.add(after[0])
        prev = after[0]
        for i in after[1:]:  # "no videos or slides": coordinated values share the cue
            gap = text[hits[prev].end:hits[i].start]
            if not _COORD.match(gap) or (not gap.strip() and _field(hits[i]) != _field(hits[prev])):
                break  # "non-Chinese soups": a value of another field right after is what it modifies
            out.add(i)
            prev = i
    for k, i in enumerate(order):
        if _ZH_POST.match(text[hits[i].end:]):
            out.add(i)
            for j in reversed(order[:k]):  # "困难和超难的不要": values coordinated before it share the cue
                if not _COORD.match(text[hits[j].end:hits[i].start]) or _field(hits[j]) != _field(hits[i]):
                    break
                out.add(j)
                i = j
    return out
