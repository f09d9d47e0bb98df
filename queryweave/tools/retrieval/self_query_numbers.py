"""Counts and measures in a question for a schema's integer fields other than years (English and Chinese).

"homes with at least 4 bedrooms" -> bedrooms >= 4, "3-bed townhouses" -> bedrooms = 3, "两到四居室" ->
2 <= bedrooms <= 4, "每分钟超过120拍" -> tempo_bpm > 120. A number counts for a field only next to a
word that names the field: a word of its name or of its description (English words by stem, clipped
forms too: "bed" for "bedrooms"; Chinese words of the description, or their first or last
character: 室 of 卧室, 拍 of 节拍, 份 of 份数), so "2 kids" is no bedroom count. The comparison comes from the words around the
number ("at least", "more than", "under", "at most", 至少, 超过, 不到, 不超过, "or more", 以内); a
range "2 to 4" / "两到四" gives both ends. Numbers are read by `common.numerals.number_value` (digits,
English number words, Chinese numerals: 两, 十二). A field kept in a unit of time (its name or description says
"minutes", 分钟) takes numbers said in another ("longer than two hours", 一个半小时) converted, and such a
number names the field by its unit.
"""

from __future__ import annotations

import re

from langchain_core.structured_query import Comparator, Comparison

from queryweave.tools.common.numerals import number_value
from queryweave.tools.common.text import EN_STOPWORDS, zh_word_spans
from queryweave.tools.retrieval.self_query_schema import FieldSpec
from queryweave.tools.retrieval.self_query_words import clipped, split_words, stem

_EN_NUMBERS = "zero one two three four five six seven eight nine ten eleven twelve".split()
_NUMBER = r"(\d+(?:\.\d+)?|[零〇一二两三四五六七八九十]{1,3}|\b(?:" + "|".join(_EN_NUMBERS) + r")\b)"
_GENERIC = {"number", "count", "amount", "total", "valu", "of", "in", "per", "the", "数量", "数目", "个数", "总数", "数",
            "数值", "每", "的"}
# (pattern before the number, pattern after it, comparator)
_BEFORE = [(r"(?:at\s+least|no\s+(?:fewer|less)\s+than|minimum(?:\s+of)?|min\.?|至少|最少|不少于|不低于|起码)\s*$", "gte"),
           (r"(?:at\s+most|no\s+more\s+than|up\s+to|maximum(?:\s+of)?|max\.?|不超过|不多于|不高于|最多|至多)\s*$", "lte"),
           (r"(?:more\s+than|over|above|greater\s+than|faster\s+than|higher\s+than|bigger\s+than|longer\s+than|exceeding|超过|多于|高于|"
            r"大于|快于)\s*$", "gt"),
           (r"(?:fewer\s+than|less\s+than|under|below|slower\s+than|lower\s+than|smaller\s+than|shorter\s+than|少于|低于|不到|不足|小于|"
            r"慢于)\s*$", "lt")]
_BETWEEN = r"^\s*(?:[A-Za-z\-]+\s+|[\u3400-\u9fff]{1,3})?"  # the field's word may come first: "3 bedrooms or more"
# 以上 / 以下 include the number in ordinary usage ("五年以上经验": five years or more)
_AFTER = [(_BETWEEN + r"(?:or\s+more|\+|or\s+(?:higher|above|greater)|及?以上)", "gte"),
          (_BETWEEN + r"(?:or\s+(?:fewer|less|below|lower)|及?以下|以内|之内)", "lte")]
_RANGE_SEP = r"\s*(?:to|-|–|~|～|到|至|and)\s*"


# units of time, in seconds: a number said in one ("two hours") counts for a field kept in another (minutes)
_TIME_UNITS = ((r"seconds?|secs?|秒钟?", 1), (r"minutes?|mins?|分钟", 60), (r"hours?|hrs?|小时|钟头", 3600),
               (r"days?|天", 86400), (r"weeks?|星期|周", 604800))


def field_unit(spec: FieldSpec) -> int | None:
    """The unit of time a field is kept in, from its name's or description's words ("runtime_minutes",
    "in minutes", 分钟), in seconds; None when it names none."""
    text = f"{' '.join(split_words(spec.name))} {spec.description}"
    for pattern, seconds in _TIME_UNITS:
        if re.search(rf"(?<![A-Za-z])(?:{pattern})(?![A-Za-z])", text, re.I):
            return seconds
    return None


def _said_unit(after: str) -> int | None:
    """The unit of time a number is said in ("2 hours", "两个小时", "90 mins"), in seconds."""
    for pattern, seconds in _TIME_UNITS:
        if re.match(rf"^\s*个?\s*(?:{pattern})(?![A-Za-z])", after, re.I):
            return seconds
    return None


def _fits(value: float, spec: FieldSpec) -> bool:
    """An integer field takes whole numbers only ("1.5 bathrooms" is no count of an integer field)."""
    return spec.type != "integer" or value == int(value)


def field_words(spec: FieldSpec) -> tuple[frozenset[str], frozenset[str]]:
    """(English stems, Chinese words) that name an integer field: its name and its description's words."""
    en = {stem(w) for w in split_words(spec.name)}
    en |= {stem(w) for w in re.findall(r"[A-Za-z]+", spec.description)}
    en = {w for w in en if w not in _GENERIC and w not in EN_STOPWORDS and len(w) > 1}
    zh = set()
    for run in re.findall(r"[\u3400-\u9fff]+", spec.description):
        zh |= {run[a:b] for a, b in zh_word_spans(run)}
    return frozenset(en), frozenset(w for w in zh if w not in _GENERIC and len(w) > 1)


def _names_field(after: str, before: str, en: frozenset[str], zh: frozenset[str]) -> bool:
    """The words right after (or right before) a number name the field."""
    m = re.match(r"^\s*\+?\s*-?\s*([A-Za-z]+)", after)  # "5+ years", "3-bed"
    if m and (stem(m.group(1)) in en or any(clipped(m.group(1).lower(), w) for w in en)):
        return True
    m = re.search(r"([A-Za-z]+)\s*(?:of|:|=|is)?\s*$", before)
    if m and stem(m.group(1)) in en:
        return True
    m = re.search(r"([\u3400-\u9fff]{1,4})\s*$", before)  # 卧室不超过两间: the field's word before
    if m and any(m.group(1).endswith(w) for w in zh):
        return True
    head = re.match(r"^\s*(?:个|间|张|座|层|名|位)?\s*([\u3400-\u9fff]{1,4})", after)
    return bool(head) and any(head.group(1).startswith(w) or head.group(1)[:2].endswith(w[-1]) or
                              head.group(1)[0] in (w[0], w[-1]) for w in zh)  # 四份 of 份数, 两居室 of 卧室


def count_conditions(text: str, spec: FieldSpec) -> tuple[list[Comparison], list[tuple[int, int]]]:
    """Conditions on the integer field `spec` stated in `text`, and the spans they came from."""
    en, zh = field_words(spec)
    if not en and not zh:
        return [], []
    cast = int if spec.type == "integer" else float
    unit = field_unit(spec)
    rng = re.search(rf"(?:between\s+)?{_NUMBER}{_RANGE_SEP}{_NUMBER}", text, re.I)
    if rng:
        lo, hi = number_value(rng.group(1)), number_value(rng.group(2))
        said = _said_unit(text[rng.end():]) if unit and lo is not None and hi is not None else None
        if said:  # "between 1 and 2 hours": 60 to 120 minutes
            lo, hi = lo * said / unit, hi * said / unit
        if lo is not None and hi is not None and lo < hi and _fits(lo, spec) and _fits(hi, spec) \
                and (said or _names_field(text[rng.end():], text[:rng.start()], en, zh)):
            return [Comparison(comparator=Comparator.GTE, attribute=spec.name, value=cast(lo)),
                    Comparison(comparator=Comparator.LTE, attribute=spec.name, value=cast(hi))], [rng.span()]
    for m in re.finditer(_NUMBER, text, re.I):
        value = number_value(m.group(1))
        before, after = text[:m.start()], text[m.end():]
        half = re.match(r"^\s*个?半(?=[\u3400-\u9fff])", after) if unit and value is not None else None
        said = _said_unit(after[half.end():] if half else after) if unit and value is not None else None
        if said:  # "longer than two hours" for a field in minutes: 120, and the unit names the field
            value = (value + (0.5 if half else 0)) * said / unit  # 一个半小时: 90
        if value is None or not _fits(value, spec) or re.fullmatch(r"(?:19|20)\d{2}", m.group(1)):
            continue
        kind, start, end = "eq", m.start(), m.end()
        for pattern, comp in _BEFORE:
            cue = re.search(pattern, before, re.I)
            if cue:
                kind, start = comp, cue.start()
                break
        if not said and not _names_field(after, text[:start], en, zh):
            continue
        for pattern, comp in _AFTER if kind == "eq" else ():
            cue = re.search(pattern, after, re.I)
            if cue:
                kind, end = comp, m.end() + cue.end()
                break
        return [Comparison(comparator=Comparator(kind), attribute=spec.name, value=cast(value))], [(start, end)]
    return [], []
