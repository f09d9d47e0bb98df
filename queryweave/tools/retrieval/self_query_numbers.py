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
number names the field by its unit. A field of money (its name or description says price, cost, fee, 价,
费 …) takes numbers said in a currency ("under $60", "30 dollars", 两百块以下, 30元) or right after the
unit it is counted per ("price per night": "一晚一百以内", "每晚不超过五百"), and a number said in a currency
counts for no other field; "一晚" itself is that unit, no value. A field whose description gives its
scale ("from 1 to 5 stars", "0 到 10 分") is named by the scale's unit (4星以上) and takes only numbers on
it. A number with a comparison or a currency goes before a bare one.
"""

from __future__ import annotations

import re

from langchain_core.structured_query import Comparator, Comparison

from queryweave.tools.common.numerals import number_value
from queryweave.tools.common.text import EN_STOPWORDS, zh_word_spans
from queryweave.tools.retrieval.self_query_schema import FieldSpec
from queryweave.tools.retrieval.self_query_words import clipped, split_words, stem

_EN_NUMBERS = "zero one two three four five six seven eight nine ten eleven twelve".split()
_NUMBER = (r"(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?(?:\s*(?:k|万|千)(?![A-Za-z]))?|[零〇一二两三四五六七八九十百千万]{1,6}|"
           r"\b(?:" + "|".join(_EN_NUMBERS) + r")\b)")
_GENERIC = {"number", "count", "amount", "total", "valu", "of", "in", "per", "the", "数量", "数目", "个数", "总数", "数",
            "数值", "每", "的"}
# (pattern before the number, pattern after it, comparator)
_BEFORE = [(r"(?:别|不要|不能|不可|不得)\s*(?:低于|少于|小于|不到)\s*$", "gte"),  # 评分别低于4分: not below 4
           (r"(?:别|不要|不能|不可|不得)\s*(?:超过|高于|多于|大于)\s*$", "lte"),
           (r"(?:at\s+least|no\s+(?:fewer|less)\s+than|minimum(?:\s+of)?|min\.?|至少|最少|不少于|不低于|起码)\s*$", "gte"),
           (r"(?:at\s+most|no\s+more\s+than|up\s+to|maximum(?:\s+of)?|max\.?|不超过|不多于|不高于|最多|至多)\s*$", "lte"),
           (r"(?:more\s+than|over|above|greater\s+than|faster\s+than|higher\s+than|bigger\s+than|longer\s+than|exceeding|超过|多于|高于|"
            r"大于|快于)\s*$", "gt"),
           (r"(?:fewer\s+than|less\s+than|under|below|slower\s+than|lower\s+than|smaller\s+than|shorter\s+than|少于|低于|不到|不足|小于|"
            r"慢于)\s*$", "lt")]
# the field's word may come first: "3 bedrooms or more", 五年以上 (no numeral: 一晚一百以内 is 100 that is 以内)
_BETWEEN = r"^\s*(?:[A-Za-z\-]+\s+|(?:(?![零〇一二两三四五六七八九十百千万])[\u3400-\u9fff]){1,3})?"
# 以上 / 以下 include the number in ordinary usage ("五年以上经验": five years or more)
_AFTER = [(_BETWEEN + r"(?:or\s+more|\+|(?:or|and)\s+(?:higher|above|greater|better|up|over)|&\s*up|及?以上)", "gte"),
          (_BETWEEN + r"(?:or\s+(?:fewer|less|below|lower|under|cheaper)|及?以下|以内|之内)", "lte")]
_RANGE_SEP = r"\s*(?:to|-|–|~|～|到|至|and)\s*"


# units of time, in seconds: a number said in one ("two hours") counts for a field kept in another (minutes)
_TIME_UNITS = ((r"seconds?|secs?|秒钟?", 1), (r"minutes?|mins?|分钟", 60), (r"hours?|hrs?|小时|钟头", 3600),
               (r"days?|天", 86400), (r"weeks?|星期|周", 604800))


# money: a field of prices or costs takes numbers said with a currency ("under $60", 两百块以下), and such a
# number counts for no other field
_MONEY_FIELD = re.compile(r"(?<![a-z])(?:price|prices|priced|cost|costs|fee|fees|fare|fares|salary|salaries|pay|wage|wages|"
                          r"budget|rent|spend|spending|amount paid)(?![a-z])|价|费|薪|钱|预算|租金|花销|消费", re.I)
_CURRENCY_BEFORE = re.compile(r"(?:US\$|\$|¥|￥|€|£|\b(?:RMB|CNY|USD|EUR|GBP)\s*)\s*$", re.I)
_CURRENCY_AFTER = re.compile(r"^\s*(?:dollars?\b|bucks?\b|usd\b|eur(?:os?)?\b|rmb\b|yuan\b|pounds?\b|quid\b|元|块钱?|"
                             r"美元|美金|欧元|英镑|人民币|刀)", re.I)


def money_field(spec: FieldSpec) -> bool:
    """The field holds an amount of money: its name or description says price, cost, fee, salary, 价, 费 …"""
    return bool(_MONEY_FIELD.search(f"{' '.join(split_words(spec.name))} {spec.description}"))


def _currency(before: str, after: str) -> tuple[bool, str]:
    """Whether a number is said in a currency, before it ("$", "¥", "RMB") or after it ("dollars", 块,
    元); and the text before it without a currency sign (where a comparison is read: "under $60")."""
    sign = _CURRENCY_BEFORE.search(before)
    if sign:
        return True, before[:sign.start()]
    return bool(_CURRENCY_AFTER.match(after)), before


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


_SCALE = re.compile(r"(?:from\s+)?(\d+(?:\.\d+)?)\s*(?:to|-|–|~|～|到|至)\s*(\d+(?:\.\d+)?)\s*(?:([A-Za-z]+)|([\u3400-\u9fff]))?")


def _scales(spec: FieldSpec) -> list[re.Match[str]]:
    """The scale a field's description declares, in each language it says it ("from 1 to 5 stars. 1 到 5
    星"): rising ranges that are no example ("e.g. 2-4 bedrooms" declares nothing; "2020-01" is no range),
    with the unit after each."""
    return [m for m in _SCALE.finditer(spec.description) if float(m.group(1)) < float(m.group(2)) and not re.search(
        r"(?:e\.\s?g\.|for example|such as|like|例如|比如)\s*$", spec.description[:m.start()], re.I)]


def declared_scale(spec: FieldSpec) -> tuple[float, float] | None:
    """(low, high) of the field's declared scale (`_scales`), None when it declares none."""
    found = _scales(spec)
    return (float(found[0].group(1)), float(found[0].group(2))) if found else None


def _fits(value: float, spec: FieldSpec) -> bool:
    """An integer field takes whole numbers only ("1.5 bathrooms" is no count of an integer field), and a
    field whose description gives its scale ("from 1 to 5", "0 到 10") only numbers on it ("rated 8" is
    no star rating of 1 to 5)."""
    scale = declared_scale(spec)
    if scale and not scale[0] <= value <= scale[1]:
        return False
    return spec.type != "integer" or value == int(value)


def field_words(spec: FieldSpec) -> tuple[frozenset[str], frozenset[str]]:
    """(English stems, Chinese words) that name an integer field: its name and its description's words, and
    the unit of its declared scale ("from 1 to 5 stars", "1 到 5 星": "4星以上" names it)."""
    en = {stem(w) for w in split_words(spec.name)}
    en |= {stem(w) for w in re.findall(r"[A-Za-z]+", spec.description)}
    en = {w for w in en if w not in _GENERIC and w not in EN_STOPWORDS and len(w) > 1}
    zh = set()
    for run in re.findall(r"[\u3400-\u9fff]+", spec.description):
        zh |= {run[a:b] for a, b in zh_word_spans(run)}
    zh = {w for w in zh if w not in _GENERIC and len(w) > 1}
    for scale in _scales(spec):
        if scale.group(3):
            en.add(stem(scale.group(3)))
        elif scale.group(4):
            zh.add(scale.group(4))
    return frozenset(en), frozenset(zh)


def per_units(spec: FieldSpec) -> tuple[frozenset[str], frozenset[str]]:
    """The units a field is counted per, from its description: "price per night", "for one night",
    每晚 -> ({"night"}, {"晚"}); a number said with one ("一晚", "1 night") is that unit, not the value."""
    text = spec.description
    en = {stem(w) for w in re.findall(r"\b(?:per|for\s+one|for\s+each|each|a)\s+([A-Za-z]+)", text, re.I)}
    zh = set(re.findall(r"每([\u3400-\u9fff])", text)) | ({"人"} if "人均" in text else set())
    return frozenset(w for w in en if w not in EN_STOPWORDS), frozenset(zh)


def _is_unit(after: str, units: tuple[frozenset[str], frozenset[str]]) -> bool:
    """The number is followed by the field's per-unit: "一晚" of a price per night."""
    m = re.match(r"^\s*(?:个)?([A-Za-z]+|[\u3400-\u9fff])", after)
    return bool(m) and (stem(m.group(1)) in units[0] or m.group(1) in units[1])


def _after_unit(before: str, units: tuple[frozenset[str], frozenset[str]]) -> bool:
    """The number follows the field's per-unit: "一晚一百", "每晚200", "per night 80", "人均一百"."""
    m = re.search(r"(?:(?:per|a|each|every|/)\s*([A-Za-z]+)|[每一]([\u3400-\u9fff])|(人)均)\s*[,，:：]?\s*$", before, re.I)
    return bool(m) and (stem(m.group(1) or "") in units[0] or (m.group(2) or m.group(3) or "") in units[1])


def _names_field(after: str, before: str, en: frozenset[str], zh: frozenset[str]) -> bool:
    """The words right after (or right before) a number name the field."""
    m = re.match(r"^\s*\+?\s*-?\s*(?:(?:per|a|an|each|every)\s+)?([A-Za-z]+)", after)  # "5+ years", "3-bed", "80 per night"
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
    money, found, units = money_field(spec), [], per_units(spec)
    for m in re.finditer(_NUMBER, text, re.I):
        value = number_value(m.group(1))
        before, after = text[:m.start()], text[m.end():]
        half = re.match(r"^\s*个?半(?=[\u3400-\u9fff])", after) if unit and value is not None else None
        said = _said_unit(after[half.end():] if half else after) if unit and value is not None else None
        if said:  # "longer than two hours" for a field in minutes: 120, and the unit names the field
            value = (value + (0.5 if half else 0)) * said / unit  # 一个半小时: 90
        if value is None or not _fits(value, spec) or re.fullmatch(r"(?:19|20)\d{2}", m.group(1)):
            continue
        paid, cue_text = _currency(before, after)
        if (paid and not money) or _is_unit(after, units):
            continue  # "under $500" is no count of pages or bedrooms; 一晚 is the night a price is per
        kind, start, end = "eq", m.start(), m.end()
        for pattern, comp in _BEFORE:
            cue = re.search(pattern, cue_text, re.I)
            if cue:
                kind, start = comp, cue.start()
                break
        paid = paid or _after_unit(cue_text[:start], units)  # "一晚一百以内", "每晚不超过五百": a price per night
        if not said and not paid and not _names_field(after, text[:start], en, zh):
            continue
        for pattern, comp in _AFTER if kind == "eq" else ():
            cue = re.search(pattern, after, re.I)
            if cue:
                kind, end = comp, m.end() + cue.end()
                break
        found.append((kind == "eq" and not paid, Comparison(comparator=Comparator(kind), attribute=spec.name,
                                                            value=cast(value)), (start, end)))
    # a number with a comparison or a currency beats a bare one that only sits next to the field's word
    # ("一晚一百块以内": 100, not the 一 of 一晚)
    for _, comparison, span in sorted(found, key=lambda x: x[0])[:1]:
        return [comparison], [span]
    return [], []
