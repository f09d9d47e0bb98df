"""Months of the year for a schema's month field ("in December", "before June", "July or August",
"十一月的", "五月以后"), in English and Chinese.

A month field is an integer field named "month" ("month", "event_month"; not "age_months", which
counts months) or described as the month of the year (月份). English month names count in full ("may"
only capitalised: "May", not the verb) or as capitalised abbreviations ("Sept", "Dec"); Chinese months
as a numeral before 月 (十一月, 5月份), not a count of months (三个月). Comparisons follow the year rules:
before / 以前 / 之前 -> lt, after -> gt, since / from ... on / 以后 / 起 -> gte, until / through -> lte; two
months joined by "or" / 或 are alternatives (`in`), "between May and July" / 五到七月 a range.
"""

from __future__ import annotations

import re

from langchain_core.structured_query import Comparator, Comparison

from queryweave.tools.common.numerals import number_value
from queryweave.tools.retrieval.self_query_schema import FieldSpec, MetadataSchema
from queryweave.tools.retrieval.self_query_words import split_words

_NAMES = ("january february march april may june july august september october november december").split()
_ABBR = {"Jan": 1, "Feb": 2, "Mar": 3, "Apr": 4, "Jun": 6, "Jul": 7, "Aug": 8, "Sep": 9, "Sept": 9, "Oct": 10,
         "Nov": 11, "Dec": 12}
_EN = re.compile(r"\b(" + "|".join(n for n in _NAMES if n != "may") + r"|May|" + "|".join(_ABBR) + r")\b\.?",
                 re.I)
_ZH = re.compile(r"(?<![个\d零〇一二两三四五六七八九十])(十[一二]?|[一二三四五六七八九]|1[0-2]|0?[1-9])\s*月份?(?!份?[\d一二三四五六七八九十])")
_BEFORE = [(r"(?:before|earlier\s+than|prior\s+to)\s*$", "lt"), (r"(?:after|later\s+than)\s*$", "gt"),
           (r"(?:since|from|starting(?:\s+in)?)\s*$", "gte"), (r"(?:until|till|through|by|up\s+to)\s*$", "lte")]
_AFTER = [(r"^\s*(?:及|和)?\s*(?:以后|以来|起|开始|or\s+later|onwards?|and\s+later)", "gte"), (r"^\s*之?后", "gt"),
          (r"^\s*(?:及|和)\s*(?:以前|之前)", "lte"), (r"^\s*(?:以前|之前|前)", "lt"), (r"^\s*(?:or\s+earlier)", "lte")]
_EITHER = re.compile(r"^\s*(?:,|、|/|or|或者?|还是)\s*$", re.I)
_RANGE = re.compile(r"^\s*(?:to|-|–|~|～|到|至|and|through)\s*$", re.I)


def month_field(schema: MetadataSchema) -> FieldSpec | None:
    """The integer field that holds a month of the year: named "month" or described so (月份)."""
    for f in schema.fields:
        words = [w.lower() for w in split_words(f.name)]
        if f.type == "integer" and ("month" in words or re.search(r"\bmonth of the year\b|月份", f.description, re.I)):
            return f
    return None


def _months(text: str) -> list[tuple[int, int, int]]:
    """(start, end, month number) of each month named in `text`."""
    out = []
    for m in _EN.finditer(text):
        word = m.group(1)
        if word.lower() in _NAMES and (word.lower() != "may" or word == "May"):
            out.append((m.start(), m.end(), _NAMES.index(word.lower()) + 1))
        elif word in _ABBR:
            out.append((m.start(), m.end(), _ABBR[word]))
    for m in _ZH.finditer(text):
        value = number_value(m.group(1))
        if value and 1 <= value <= 12:
            out.append((m.start(), m.end(), int(value)))
    return sorted(out)


def month_conditions(text: str, spec: FieldSpec) -> tuple[list[Comparison], list[tuple[int, int]]]:
    """Conditions on the month field `spec` stated in `text`, and the spans they came from."""
    found = _months(text)
    if not found:
        return [], []
    attr = spec.name
    if len(found) >= 2:
        (a0, a1, lo), (b0, b1, hi) = found[:2]
        gap = text[a1:b0]
        if _EITHER.match(gap):
            return [Comparison(comparator=Comparator.IN, attribute=attr, value=sorted({lo, hi}))], [(a0, b1)]
        if _RANGE.match(gap) and lo < hi:
            start = a0 - len(re.search(r"(?:between|from)?\s*$", text[:a0], re.I).group(0))
            return [Comparison(comparator=Comparator.GTE, attribute=attr, value=lo),
                    Comparison(comparator=Comparator.LTE, attribute=attr, value=hi)], [(start, b1)]
    start, end, month = found[0]
    kind = "eq"
    for pattern, comp in _BEFORE:
        cue = re.search(pattern, text[:start], re.I)
        if cue:
            kind, start = comp, cue.start()
            break
    for pattern, comp in _AFTER if kind == "eq" else ():
        cue = re.match(pattern, text[end:], re.I)
        if cue:
            kind, end = comp, end + cue.end()
            break
    return [Comparison(comparator=Comparator(kind), attribute=attr, value=month)], [(start, end)]
