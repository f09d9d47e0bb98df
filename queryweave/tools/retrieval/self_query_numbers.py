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

import math
import re
from functools import lru_cache

from langchain_core.structured_query import Comparator, Comparison

from queryweave.tools.common.numerals import number_value
from queryweave.tools.common.text import EN_STOPWORDS, zh_word_spans
from queryweave.tools.retrieval.self_query_levels import scale_labels
from queryweave.tools.retrieval.self_query_negation import REJECTION
from queryweave.tools.retrieval.self_query_schema import FieldSpec
from queryweave.tools.retrieval.self_query_words import clipped, split_words, stem

_EN_NUMBERS = "zero one two three four five six seven eight nine ten eleven twelve".split()
_NUMBER = (r"((?<!个)半(?=个?(?:岁|年|小时|天|斤|公里|英里))|\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?(?:\s*(?:k|万|千)(?![A-Za-z]))?|[零〇一二两三四五六七八九十百千万]{1,6}|"
           r"\b(?:(?:a|one|two|three|four|five|six|seven|eight|nine)\s+)?(?:hundred|thousand)\b|"
           r"\b(?:" + "|".join(_EN_NUMBERS) + r")\b)")
_GENERIC = {"number", "count", "amount", "total", "valu", "of", "in", "per", "the", "数量", "数目", "个数", "总数", "数",
            "数值", "每", "的"}
# (pattern before the number, pattern after it, comparator)
_BEFORE = [(r"(?:别|不要|不能|不可|不得)\s*(?:低于|少于|小于|不到)\s*$", "gte"),  # 评分别低于4分: not below 4
           (r"\b(?:nothing|none|not\s+anything)\s+(?:over|above|more\s+than|higher\s+than|pricier\s+than)\s*$", "lte"),
           (r"\b(?:nothing|none|not\s+anything)\s+(?:under|below|less\s+than|lower\s+than|cheaper\s+than)\s*$", "gte"),
           (r"(?:别|不要|不能|不可|不得)\s*(?:超过|高于|多于|大于)\s*$", "lte"),
           (r"(?:at\s+least|no\s+(?:fewer|less)\s+than|minimum(?:\s+of)?|min\.?|至少|最少|不少于|不低于|起码)\s*$", "gte"),
           (r"(?:at\s+most|no\s+more\s+than|up\s+to|maximum(?:\s+of)?|max\.?|不超过|不多于|不高于|最多|至多)\s*$", "lte"),
           (r"(?:more\s+than|over|above|greater\s+than|faster\s+than|higher\s+than|bigger\s+than|longer\s+than|heavier\s+than|older\s+than|larger\s+than|pricier\s+than|exceeding|超过|多于|高于|"
            r"大于|快于)\s*$", "gt"),
           (r"(?:fewer\s+than|less\s+than|under|below|slower\s+than|lower\s+than|smaller\s+than|shorter\s+than|lighter\s+than|younger\s+than|cheaper\s+than|少于|低于|不到|不足|小于|"
            r"慢于)\s*$", "lt")]
# the field's word may come first: "3 bedrooms or more", 五年以上 (no numeral: 一晚一百以内 is 100 that is 以内)
_BETWEEN = r"^\s*(?:(?:[A-Za-z\-]+\s*){1,3}|(?:(?![零〇一二两三四五六七八九十百千万])[\u3400-\u9fff]){1,4})?"
# 以上 / 以下 include the number in ordinary usage ("五年以上经验": five years or more)
_AFTER = [(_BETWEEN + r"(?:or\s+more|\+|(?:or|and)\s+(?:higher|above|greater|better|up|over|older|longer|heavier|bigger|"
                     r"larger|newer)|&\s*up|min(?:imum)?\b|at\s+least|及?以上)", "gte"),
          (_BETWEEN + r"(?:or\s+(?:fewer|less|below|lower|under|cheaper|younger|shorter|lighter|smaller)|max(?:imum)?\b|tops\b|at\s+most|"
                r"及?以下|以内|之内)",
           "lte"),
          (_BETWEEN + r"(?:还?不到|不足)", "lt")]  # 五百美元不到: under 500
_RANGE_SEP = r"\s*(?:to|-|–|~|～|到|至|and)\s*"


# units of measure, by dimension, in a base unit of each: a number said in one ("two hours", "20 lbs", "5
# miles") counts for a field kept in another of the same dimension (minutes, kg, km), converted
_YEAR = 365.25 * 86400
_UNITS = {
    "time": ((r"seconds?|secs?|秒钟?", 1), (r"minutes?|mins?|分钟", 60), (r"hours?|hrs?|小时|钟头", 3600),
             (r"days?|天", 86400), (r"weeks?|星期|周", 604800), (r"months?|mos?|个月", _YEAR / 12),
             (r"years?|yrs?|岁|年", _YEAR)),
    "mass": ((r"kg|kgs|kilos?|kilograms?|kilogrammes?|公斤|千克", 1.0), (r"斤", 0.5), (r"lbs?|pounds?|磅", 0.45359237),
             (r"g|grams?|grammes?|克", 0.001)),
    "length": ((r"km|kms|kilometers?|kilometres?|公里|千米", 1000.0), (r"mi|miles?|英里", 1609.344),
               (r"m|meters?|metres?|米", 1.0), (r"ft|feet|foot|英尺", 0.3048),
               (r"in\.|inch|inches|英寸|寸|\"|″|”|''", 0.0254), (r"cm|centimeters?|centimetres?|厘米|公分", 0.01),
               (r"里(?![面边头])", 500.0)),  # 十里: the Chinese li, half a kilometre
    "data": ((r"kb|kilobytes?", 2.0 ** 10), (r"mb|megs?|megabytes?|兆", 2.0 ** 20), (r"gb|gigs?|gigabytes?|g", 2.0 ** 30),
             (r"tb|terabytes?|t", 2.0 ** 40)),
}
# a field's own unit, read from its name or description: the Chinese year (年) only as "in years" (（年）,
# 年数) and the month as 月 in brackets or 月龄, never inside words such as 年龄 "age" or 年份 "year"
_FIELD_ONLY = {r"years?|yrs?|岁|年": r"years?|yrs?|岁|（年）|\(年\)|年数", r"months?|mos?|个月": r"months?|个月|（月）|\(月\)|月龄",
               r"minutes?|mins?|分钟": r"minutes?|mins|分钟"}  # "min_experience_years": min is no minute there
_PERCENT_FIELD = re.compile(r"(?<![A-Za-z])(?:percent|percentage|per\s+cent)(?![A-Za-z])|%|百分比|百分数", re.I)
_PERCENT_SAID = re.compile(r"^\s*(?:%|percent\b|per\s+cent\b)", re.I)
_HALF = re.compile(r"^\s*个?半(?=[\u3400-\u9fff])")


# money: a field of prices or costs takes numbers said with a currency ("under $60", 两百块以下), and such a
# number counts for no other field
_MONEY_FIELD = re.compile(r"(?<![a-z])(?:price|prices|priced|cost|costs|fee|fees|fare|fares|salary|salaries|pay|wage|wages|"
                          r"budget|rent|spend|spending|amount paid)(?![a-z])|价|费|薪|钱|预算|租金|花销|消费", re.I)
_CURRENCY_BEFORE = re.compile(r"(?:US\$|\$|¥|￥|€|£|\b(?:RMB|CNY|USD|EUR|GBP)\s*)\s*$", re.I)
_CURRENCY_AFTER = re.compile(r"^\s*(?:dollars?\b|bucks?\b|usd\b|eur(?:os?)?\b|rmb\b|yuan\b|pounds?\b|quid\b|元|块钱?|"
                             r"美元|美金|欧元|英镑|人民币|刀)", re.I)


_MONEY_BEFORE = re.compile(r"(?:budget|spend|预算|价格|价钱|价位|售价|花费|费用|花)\s*(?:of|is|at|about|around|:|：|在|是|为|大概|控制在)?\s*$", re.I)
_COUNTED = re.compile(r"^\s*(?:只|个|位|本|辆|件|条|头|匹|张|台|瓶|杯|家|间|套|部|双|盒|箱|袋|棵|朵|次|名|人)")
_REJECTED = re.compile(rf"^\s*[\u3400-\u9fff]{{0,2}}?(?:的[\u3400-\u9fff]{{0,3}}?)?\s*(?:(?:就)?(?:不看|不要|不行)|{REJECTION})", re.I)
FLIP = {"gt": "lte", "gte": "lt", "lt": "gte", "lte": "gt"}
# nothing after the number (but a comparison) names a unit or a thing counted: "五百以上的", "under 30?"
_BARE_END = re.compile(r"^\s*(?:及?以上|及?以下|以内|之内|or\s+(?:more|less|above|below|over|under|higher|lower))?\s*"
                       r"(?:的|左右|[,，。.!?？！;；]|$)", re.I)
_FREE = re.compile(r"(?P<en>\bfree\b(?!\s+of\b))|(?P<zh>免费|不收费|不要钱|零费用)|\bfor\s+free\b|\bfree\s+of\s+charge\b|"
                   r"\bno[\s-](?:[A-Za-z]+\s+)?(?:fee|fees|charge|cost)\b|\b(?:fee|cost|charge)[\s-]free\b", re.I)


def count_cue(before: str) -> bool:
    """The text before a number ends with a comparison of amounts ("more than", 超过, "at least"): a
    four-digit number after it is a count ("浏览量超过 2000"), not a year (one says "after 2000")."""
    return any(re.search(pattern, before, re.I) for pattern, _ in _BEFORE)


def rejected(after: str) -> bool:
    """The text after a bound rejects it ("超过两百块的不看", "2021 年之前的就别推给我了"): the bound flips."""
    return bool(_REJECTED.match(after))


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


def _unit_pattern(pattern: str, field: bool) -> str:
    """A unit's pattern as a whole word; in a field's name or description a one-character Chinese unit
    counts only in brackets ("（天）"), not inside a word (天然 "natural", 米饭 "rice")."""
    if field:
        pattern = _FIELD_ONLY.get(pattern, pattern)
        pattern = "|".join(rf"[（(]{p}[）)]" if re.fullmatch(r"[\u3400-\u9fff]", p) else p for p in pattern.split("|"))
    return rf"(?<![A-Za-z])(?:{pattern})(?![A-Za-z])"


def field_unit(spec: FieldSpec) -> tuple[str, float] | None:
    """(dimension, size in the dimension's base unit) of the unit a field is kept in, from its name's or
    description's words ("runtime_minutes", "in minutes", 分钟, "weight_kg", "（公里）"); the first one
    said; None when it names none."""
    return _unit_of(f"{' '.join(split_words(spec.name))} {spec.description}")


@lru_cache(maxsize=1024)
def _unit_of(text: str) -> tuple[str, float] | None:
    """`field_unit` of a field's name and description (cached: it is asked for each number and rival)."""
    found = [(m.start(), dim, size) for dim, units in _UNITS.items() for pattern, size in units
             for m in [re.search(_unit_pattern(pattern, True), text, re.I)] if m]
    return min(found)[1:] if found else None


def said_units(after: str) -> list[tuple[str, float]]:
    """(dimension, size) of each unit a number may be said in ("2 hours", "两个小时", "90 mins", "20 lbs",
    二十斤; "16G" is gigabytes or grams: the field decides)."""
    return [(dim, size) for dim, units in _UNITS.items() for pattern, size in units
            if re.match(rf"^\s*个?\s*(?:{pattern})(?![A-Za-z])", after, re.I)]


def percent_field(spec: FieldSpec) -> bool:
    """The field is kept in percent (its name or description says percent, %, 百分比)."""
    return bool(_PERCENT_FIELD.search(f"{' '.join(split_words(spec.name))} {spec.description}"))


def _nearest(said: tuple[str, float], spec: FieldSpec, rivals: tuple[FieldSpec, ...]) -> bool:
    """Of the fields kept in the said unit's dimension, `spec` is the one whose unit is nearest in size
    ("5 miles" is a trail's length in km, not its climb in metres; "500 feet" the climb)."""
    own = field_unit(spec)
    if own is None or own[0] != said[0]:
        return False
    gap = abs(math.log(own[1] / said[1]))
    return all(gap <= abs(math.log(u[1] / said[1])) for u in map(field_unit, rivals) if u and u[0] == said[0])


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
    zh |= {w[:2] for w in zh if len(w) >= 4} | {w[-2:] for w in zh if len(w) >= 4}  # 内存容量: 内存, 容量
    zh = {w for w in zh if w not in _GENERIC and len(w) > 1}
    for scale in _scales(spec):
        if scale.group(3):
            en.add(stem(scale.group(3)))
        elif scale.group(4):
            zh.add(scale.group(4))
    for label, (_, others) in scale_labels(spec).items():  # "1 (beginner)": a label names a value, not the field
        en -= {stem(w) for w in split_words(label)}
        zh -= set(others)
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
    m = re.search(r"([\u3400-\u9fff]{1,4})\s*$", before)  # 卧室不超过两间, 浏览量超过 (浏览次数): the field's word before
    if m and any(m.group(1).endswith(w) or m.group(1)[-3:-1] == w for w in zh):
        return True
    head = re.match(r"^\s*(?:个|间|张|座|层|名|位)?\s*([\u3400-\u9fff]{1,4})", after)
    return bool(head) and any(head.group(1).startswith(w) or head.group(1)[:2].endswith(w[-1]) or
                              head.group(1)[0] in (w[0], w[-1]) for w in zh)  # 四份 of 份数, 两居室 of 卧室


def _measure(after: str, value: float, spec: FieldSpec, rivals: tuple[FieldSpec, ...]) -> tuple[float, bool] | None:
    """The number said before `after` in the field's own unit, and whether its unit names the field ("two
    hours" for minutes: 120; 二十斤 for kg: 10; "40%" for a field in percent); None when it is said in a
    unit that is another field's or of another dimension than this field's."""
    if _PERCENT_SAID.match(after):
        return (value, True) if percent_field(spec) else None
    half = _HALF.match(after)
    units = said_units(after[half.end():] if half else after)
    if not units:
        return value, False
    own = field_unit(spec)
    said = next((u for u in units if own is not None and u[0] == own[0]), units[0])
    # "16G" is a weight in grams or memory in gigabytes: with both fields, only a word beside it names one
    shared = any(u and u[0] != said[0] and u[0] in {d for d, _ in units} for u in map(field_unit, rivals))
    if own is not None and own[0] == said[0]:
        if not _nearest(said, spec, rivals):
            return None
        converted = (value + (0.5 if half else 0)) * said[1] / own[1]  # 一个半小时: 90 minutes
        # as a person would write it: whole for an integer field ("1,500 ft": 457 m), else to 2 decimals
        return float(round(converted)) if spec.type == "integer" else round(converted, 2), not shared
    if own is not None or any(u and u[0] in {d for d, _ in units} for u in map(field_unit, rivals)):
        return None  # "20 kg" is no age; a weight field's number is none of this field's
    return value, False


def free_of_charge(text: str, spec: FieldSpec, tagged: bool = False) -> tuple[int, int] | None:
    """Where the question asks for no charge on a field of money ("no adoption fee", "for free", 免费领养,
    不收费): the span; "free parking" or 免费停车 (free of another thing) is not about the field. With
    `tagged` (the schema declares a value such as `free_entry`), only words naming the field itself count
    ("no entry fee"): a bare 免费的 is that value's."""
    if not money_field(spec):
        return None
    en, zh = field_words(spec)
    for m in _FREE.finditer(text):
        rest = text[m.end():]
        word = re.match(r"\s*([A-Za-z]+)", rest)
        if m.group("en") and not (word and stem(word.group(1)) in en):
            continue  # "free parking"
        if tagged and not re.search(r"fee|cost|charge|price", m.group(0), re.I) \
                and not (m.group("zh") and any(text[m.end():].startswith(w) for w in zh)):
            continue
        if m.group("zh") and not (re.match(r"\s*(?:的|[,，。.!?？！;；]|$)", rest) or any(rest.startswith(w) for w in zh)):
            continue  # 免费停车
        return m.span()
    return None


def _bound(c: Comparison) -> str | None:
    return "low" if c.comparator in {Comparator.GT, Comparator.GTE} else "high" if c.comparator in {
        Comparator.LT, Comparator.LTE} else None


def count_conditions(text: str, spec: FieldSpec, rivals: tuple[FieldSpec, ...] = (),
                     lone_money: bool = False, free_tag: bool = False) -> tuple[list[Comparison], list[tuple[int, int]]]:
    """Conditions on the numeric field `spec` stated in `text`, and the spans they came from. `rivals`:
    the schema's other numeric fields (a unit nearer one of theirs is theirs); `lone_money`: `spec` is the
    schema's only field of money, which takes a bare number with a comparison and no unit ("五百以上的")."""
    en, zh = field_words(spec)
    if not en and not zh:
        return [], []
    cast = int if spec.type == "integer" else float
    rng = re.search(rf"(?:between\s+)?{_NUMBER}{_RANGE_SEP}{_NUMBER}", text, re.I)
    if rng:
        lo, hi = number_value(rng.group(1)), number_value(rng.group(2))
        low = _measure(text[rng.end():], lo, spec, rivals) if lo is not None and hi is not None else None
        high = _measure(text[rng.end():], hi, spec, rivals) if low else None
        if low and high and low[0] < high[0] and _fits(low[0], spec) and _fits(high[0], spec) \
                and (low[1] or _names_field(text[rng.end():], text[:rng.start()], en, zh)):  # "between 1 and 2 hours"
            return [Comparison(comparator=Comparator.GTE, attribute=spec.name, value=cast(low[0])),
                    Comparison(comparator=Comparator.LTE, attribute=spec.name, value=cast(high[0]))], [rng.span()]
    money, found, units = money_field(spec), [], per_units(spec)
    for m in re.finditer(_NUMBER, text, re.I):
        value = number_value(m.group(1))
        before, after = text[:m.start()], text[m.end():]
        measure = _measure(after, value, spec, rivals) if value is not None else None
        if measure is None or not _fits(measure[0], spec) \
                or (re.fullmatch(r"(?:19|20)\d{2}", m.group(1)) and not count_cue(before)):
            continue  # a year is no count, unless a comparison of amounts says so ("浏览量超过 2000")
        if re.search(r"第\s*$", before):
            continue  # 入职第一天 "the first day": an ordinal, no amount
        if money and _COUNTED.match(after) and not _CURRENCY_AFTER.match(after):
            continue  # 领养一只 "adopt one (animal)": a count of things, no amount of money
        value, said = measure
        paid, cue_text = _currency(before, after)
        if (paid and not money) or _is_unit(after, units):
            continue  # "under $500" is no count of pages or bedrooms; 一晚 is the night a price is per
        kind, start, end = "eq", m.start(), m.end()
        for pattern, comp in _BEFORE:
            cue = re.search(pattern, cue_text, re.I)
            if cue:
                kind, start = comp, cue.start()
                break
        # "一晚一百以内", "每晚不超过五百": a price per night; "预算五百以内", "budget of 300": money said
        paid = paid or _after_unit(cue_text[:start], units) or bool(money and _MONEY_BEFORE.search(cue_text[:start]))
        for pattern, comp in _AFTER if kind == "eq" else ():
            cue = re.search(pattern, after, re.I)
            if cue:
                kind, end = comp, m.end() + cue.end()
                break
        if kind != "eq" and _REJECTED.match(text[end:]):  # 超过两百块的不看: at most 200
            kind = FLIP[kind]
        bare = lone_money and kind != "eq" and not said and bool(_BARE_END.match(after)) \
            and not any(_names_field(after, text[:start], *field_words(r)) for r in rivals)  # "五百以上的", not "rated 8"
        if not said and not paid and not bare and not _names_field(after, text[:start], en, zh):
            continue
        found.append((kind == "eq" and not paid, Comparison(comparator=Comparator(kind), attribute=spec.name,
                                                            value=cast(value)), (start, end)))
    # a number with a comparison or a currency beats a bare one that only sits next to the field's word
    # ("一晚一百块以内": 100, not the 一 of 一晚); a lower and an upper bound both count ("longer than 90
    # minutes but under 3 hours")
    for _, comparison, span in sorted(found, key=lambda x: x[0])[:1]:
        other = next((x for x in found if _bound(x[1]) not in {None, _bound(comparison)}), None)
        if other is not None and _bound(comparison) is not None:
            return [comparison, other[1]], [span, other[2]]
        return [comparison], [span]
    free = free_of_charge(text, spec, free_tag)
    if free:
        return [Comparison(comparator=Comparator.EQ, attribute=spec.name, value=cast(0))], [free]
    return [], []
