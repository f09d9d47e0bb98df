"""The rule layer of self-query: filters from the question text, in Chinese and English.

Extracts years and year ranges ("2020 年以后", "since 2021", "2019到2021年", "before 2020",
"between 2018 and 2020", "80s", "90年代", "九十年代"), counts and measures of other integer fields ("at least 4
bedrooms", "每分钟超过120拍": `self_query_numbers`), tags from the known vocabulary (and their aliases), content types,
authors (known names) and document language, and returns the conditions plus the question with
the filter phrases removed. Only values the schema knows are produced; the LLM layer is for the rest.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from langchain_core.structured_query import Comparator, Comparison

from queryweave.tools.common.numerals import number_value
from queryweave.tools.common.text import EN_STOPWORDS, zh_word_spans
from queryweave.tools.retrieval.self_query_levels import scale_labels, version_conditions, version_field
from queryweave.tools.retrieval.self_query_match import Embed, MatchSettings, match_values
from queryweave.tools.retrieval.self_query_months import month_conditions, month_field
from queryweave.tools.retrieval.self_query_negation import negated
from queryweave.tools.retrieval.self_query_numbers import (
    FLIP,
    count_conditions,
    count_cue,
    money_field,
    rejected,
)
from queryweave.tools.retrieval.self_query_schema import FieldSpec, MetadataSchema
from queryweave.tools.retrieval.self_query_words import clipped, split_words, stem
from queryweave.tools.understanding.value_glossary import parallel_terms

Y = r"((?:19|20)\d{2})"
_YEAR_RULES: list[tuple[str, str]] = [
    # ranges
    (rf"(?:between|from)\s+{Y}\s+(?:and|to|through|until|till)\s+{Y}", "range"),
    (rf"{Y}\s*年?\s*(?:到|至|—|–|-|~|～)\s*{Y}\s*年?(?:之间|间)?", "range"),
    (rf"{Y}\s*(?:to|through)\s*{Y}", "range"),
    (rf"{Y}\s*年?\s*(?:与|和|跟)\s*{Y}\s*年?\s*(?:之间|间)", "range"),
    # open ends, Chinese
    (rf"不早于\s*{Y}", "gte"),
    (rf"不晚于\s*{Y}", "lte"),
    (rf"(?<!不)早于\s*{Y}", "lt"),  # 早于 2020 年 "earlier than 2020"
    (rf"(?<!不)晚于\s*{Y}", "gt"),
    (rf"{Y}\s*年?\s*(?:(?:及|和)\s*(?:以后|之后|后)|以后|以来|起|开始)", "gte"),
    (rf"{Y}\s*年?\s*(?:之后|后)", "gt"),  # "after": strict, as in English (five labelled sets of six read it so)
    (rf"{Y}\s*年?\s*(?:及|和)\s*(?:以前|之前)", "lte"),
    (rf"{Y}\s*年?\s*(?:以前|之前|前)", "lt"),
    # open ends, English
    (rf"(?:since|starting(?:\s+in|\s+from)?)\s+{Y}|from\s+{Y}\s+(?:on(?:wards?)?|and\s+(?:later|after))", "gte"),
    (rf"{Y}\s+(?:and|or)\s+(?:later|after|newer|onwards?)|{Y}\s+onwards?", "gte"),
    (rf"(?:until|till|through|up\s+to|no\s+later\s+than)\s+{Y}|{Y}\s+(?:and|or)\s+(?:earlier|before|older)", "lte"),
    (rf"(?:after|later\s+than|newer\s+than|post-)\s*{Y}", "gt"),
    (rf"(?:before|earlier\s+than|older\s+than|prior\s+to|pre-)\s*{Y}", "lt"),
    # a decade: "80s", "the 1990s", "90年代"
    # (a bare "60s" is read as a decade only after "the", with an apostrophe, or before a word that is not
    # about time: "60s timeout" is seconds)
    (r"(?<![\d.])((?:19|20)\d0)\s*(?:'?s\b|年代)|(?<![\d.])(\d0)\s*年代|(?<![零〇一二两三四五六七八九十])([二三四五六七八九]十|[二三四五六七八九][零〇])\s*年代|[’']([2-9]0)s\b|\bthe\s+([2-9]0)s\b|"
     r"(?<![\d.:])\b([2-9]0)s(?=\s+[A-Za-z])(?!\s+(?:timeout|delay|wait|interval|sleep|ttl|later|ago|per|to|and|or|"
     r"before|after|max|limit)\b)", "decade"),
    # one year
    (rf"(?:published\s+)?(?:in|of|from|during)\s+{Y}\b|{Y}\s*年(?:的|发表|出版)?|\b{Y}\b", "eq"),
]
_EITHER = re.compile(r"\b(?:or|either)\b|或者?|还是", re.I)
_AND = re.compile(r"^\s*(?:[A-Za-z\-]+\s+|[\u3400-\u9fff]{1,2})?(?:,|、|/|&|and|plus|和|与|跟|及|以及)\s*(?:the\s+)?$", re.I)
_JOINT = re.compile(r"\b(?:together|jointly|co-?\w+|both)\b|合写|合著|合作|共同|一起|联合|同时", re.I)
_NEG_WORDS = re.compile(r"\b(?:not|no|except|excluding|without|other than)\b|不是|不要|除了|以外|之外|除外", re.I)
_FILLER = re.compile(r"\b(published|released|written|dated)\b|发表的?|出版的?", re.I)


@dataclass
class RuleResult:
    """Conditions found by the rules, the remaining query text, and whether the rules seem sure."""

    conditions: list[Comparison] = field(default_factory=list)
    query: str = ""
    confident: bool = True
    operator: str = "and"
    notes: list[str] = field(default_factory=list)


_NOTHING = re.compile(r"\b(?:nothing|none|not\s+anything)\s+(?:[A-Za-z]+\s+){0,2}$", re.I)  # "nothing written before"


def _years(text: str, spec: FieldSpec) -> tuple[list[Comparison], list[tuple[int, int]]]:
    for pattern, kind in _YEAR_RULES:
        m = next((x for x in re.finditer(pattern, text, re.I)  # "浏览量超过 2000": a count, no year
                  if kind != "eq" or not count_cue(text[:x.start()])), None)
        if not m:
            continue
        if kind in FLIP and (_NOTHING.search(text[:m.start()]) or rejected(text[m.end():])):
            kind = FLIP[kind]  # "nothing older than 2022", "2021 年之前的就别推给我了": a rejected bound
        ys = [int(g) if g.isdigit() else int(number_value(g) or 0) for g in m.groups() if g]  # 九十年代: 90
        if kind == "decade":
            ys = [ys[0] if ys[0] >= 100 else ys[0] + (1900 if ys[0] >= 30 else 2000)]
            ys.append(ys[0] + 9)
            kind = "range"
        if kind == "range":
            lo, hi = sorted(ys[:2])
            conds = [Comparison(comparator=Comparator.GTE, attribute=spec.name, value=lo),
                     Comparison(comparator=Comparator.LTE, attribute=spec.name, value=hi)]
        else:
            conds = [Comparison(comparator=Comparator(kind), attribute=spec.name, value=ys[0])]
        return conds, [m.span()]
    return [], []


def year_field(schema: MetadataSchema) -> FieldSpec | None:
    """The integer field that holds a calendar year: one whose name has the word "year" ("year",
    "year_posted", "releaseYear"), not "years" ("min_experience_years" counts years: "5 years of
    experience" is no date); the field named exactly "year" first; else one whose description calls it
    a year ("vintage": "Vintage year of the wine. 年份。")."""
    ints = [f for f in schema.fields if f.type == "integer"]
    years = [f for f in ints if "year" in (w.lower() for w in split_words(f.name))]
    described = [f for f in ints if re.search(r"\byear\b|年份", f.description, re.I)
                 and not re.search(r"\bmonth\b|\bday\b|月份", f"{' '.join(split_words(f.name))} {f.description}", re.I)]
    return next((f for f in years if f.name.lower() == "year"), (years or described or [None])[0])


def _field_cues(spec: FieldSpec, others: list[FieldSpec]) -> tuple[set[str], set[str]]:
    """(English stems, Chinese words) that name `spec` and none of `others`: its name's and description's words."""
    def words(f: FieldSpec) -> tuple[set[str], set[str]]:
        en = {stem(w) for w in [*split_words(f.name), *re.findall(r"[A-Za-z]+", f.description)] if len(w) > 2}
        zh = {run[a:b] for run in re.findall(r"[\u3400-\u9fff]+", f.description) for a, b in zh_word_spans(run)}
        return en - EN_STOPWORDS, {w for w in zh if len(w) > 1}
    en, zh = words(spec)
    for other in others:
        o_en, o_zh = words(other)
        en, zh = en - o_en, zh - o_zh
    return en, zh


def _cued(question: str, start: int, end: int, en: set[str], zh: set[str]) -> bool:
    """A word naming the field stands right after the value or, in English, right before it ("English
    subs", "subtitles in Korean", "originally in English", 英文字幕; in "带英文字幕的日本电影" 字幕 is
    英文's, not 日本's)."""
    after = question[end:end + 16].lstrip(" -的")
    before = re.sub(r"(?:\s+(?:in|of|with|:))?[\s:：的]*$", "", question[:start], flags=re.I)
    m, b = re.match(r"[A-Za-z]+", after), re.search(r"[A-Za-z]+$", before)
    return any(w and (stem(w) in en or any(clipped(w.lower(), c) for c in en)) for w in
               (m.group(0) if m else "", b.group(0) if b else "")) \
        or any(after.startswith(w) for w in zh)  # a Chinese head follows its modifier: 英文字幕


def one_field_each(hits: list, question: str, schema: MetadataSchema) -> list:
    """A span that names the same value of several fields ("Korean": `original_language` or `subtitles`)
    counts for one: the field named right beside it ("Korean subtitles"), else the one declared first (a
    value said bare is the item's own property, not one its field has to be named for)."""
    specs = {f.name: f for f in schema.fields}
    out = []
    for h in hits:
        rivals = [o for o in hits if o is not h and o.value == h.value and (o.start, o.end) == (h.start, h.end)]
        if not rivals:
            out.append(h)
            continue
        group = [h, *rivals]
        cued = [g for g in group if _cued(question, g.start, g.end,
                                          *_field_cues(specs[g.field], [specs[o.field] for o in group if o is not g]))]
        order = [f.name for f in schema.fields]
        pick = (cued or group)
        if h is min(pick, key=lambda g: order.index(g.field)):
            out.append(h)
    return out


def _author_aliases(spec: FieldSpec) -> dict[str, tuple[str, ...]]:
    """Declared aliases, plus "by Lewis" / "Lewis et al" for an author whose surname is unique."""
    aliases = {k: tuple(v) for k, v in spec.aliases.items()}
    if spec.name == "author":
        for value in spec.values:
            if " " in value:
                surname = value.split()[-1]
                if sum(v.split()[-1].lower() == surname.lower() for v in spec.values) == 1:
                    aliases[value] = (*aliases.get(value, ()), f"by {surname}", f"{surname} et al")
    return aliases


def _value_conditions(name: str, values: list[str], negative: list[str], either: bool) -> list[Comparison]:
    """eq for a value asked for (`in` for values offered as alternatives: "tutorials or guides", and
    for values of a one-valued field joined by "and" / 和: "part-time staff and interns" asks for
    either, as no document is both, unless the question says they go together: "张伟和李娜合写的"),
    ne / nin for those excluded."""
    out = []
    values, negative = sorted(dict.fromkeys(values)), sorted(dict.fromkeys(negative))
    if len(values) > 1 and either:
        out.append(Comparison(comparator=Comparator.IN, attribute=name, value=values))
    else:
        out += [Comparison(comparator=Comparator.EQ, attribute=name, value=v) for v in values]
    if len(negative) == 1:
        out.append(Comparison(comparator=Comparator.NE, attribute=name, value=negative[0]))
    elif negative:
        out.append(Comparison(comparator=Comparator.NIN, attribute=name, value=negative))
    return out


def extract_rules(question: str, schema: MetadataSchema, embed: Embed | None = None,
                  settings: MatchSettings | None = None) -> RuleResult:
    """Conditions the rules can read from `question` (only fields and values the schema declares).

    Values are found by `self_query_match.match_values` (inflection, spelling, glossary, the terms the
    schema's bilingual descriptions pair up, a general dictionary, aliases and, with `embed`,
    embedding similarity); negated mentions give `ne` / `nin`.
    """
    spans: list[tuple[int, int]] = []
    conds: list[Comparison] = []
    result = RuleResult()
    year = year_field(schema)
    if year:
        found, where = _years(question, year)
        conds += found
        spans += where
    month = month_field(schema)
    if month and month is not year:
        found, where = month_conditions(question, month)
        conds += found
        spans += where
    numeric = tuple(f for f in schema.fields if f.type in {"integer", "float"} and f not in (year, month))
    money = [f for f in numeric if money_field(f)]
    declared = [" ".join(split_words(v)) for f in schema.fields for v in f.values or []]
    digit_values = [v for v in declared if re.search(r"\d", v) and re.search(r"[A-Za-z]", v)]
    free_tag = any(v.lower().split()[0] == "free" for v in declared if v.strip())
    for spec, lone in [(f, False) for f in numeric] + [(f, True) for f in money[:1] if len(money) == 1]:
        if lone and any(c.attribute == spec.name for c in conds):
            continue  # a bare number ("五百以上的") is the only money field's when no other field took it
        free = question  # a year read above is no count
        for a, b in spans:
            free = free[:a] + " " * (b - a) + free[b:]
        for value in digit_values:  # "5G" is the value `5g`, no 5 gigabytes
            for m in re.finditer(rf"(?<![A-Za-z0-9]){re.escape(value)}(?![A-Za-z0-9])", free, re.I):
                free = free[:m.start()] + " " * (m.end() - m.start()) + free[m.end():]
        found, where = version_conditions(free, spec) if version_field(spec) else ([], [])
        if not found:
            found, where = count_conditions(free, spec, tuple(f for f in numeric if f is not spec), lone, free_tag)
        conds += found
        spans += where
    fields = [(f.name, f.values, _author_aliases(f)) for f in schema.fields
              if f.values and f.type not in {"integer", "float"}]
    use = settings is None or settings.descriptions
    terms = parallel_terms(schema.document_contents, *(f.description for f in schema.fields)) if use else {}
    hits = match_values(question, fields, embed, settings, terms, schema.document_contents) if fields else []
    labels = {f.name: scale_labels(f) for f in numeric if not any(c.attribute == f.name for c in conds)}
    labelled = [(name, list(found), {k: v[1] for k, v in found.items()}) for name, found in labels.items() if found]
    if labelled:  # "beginner-level" for a level "from 1 (beginner) to 3 (advanced)": lexical matches only
        hits = sorted([*hits, *match_values(question, labelled, None, settings, terms)], key=lambda h: h.start)
    hits = one_field_each(hits, question, schema)
    negative = negated(question, hits)
    for spec in schema.fields:
        mine = [(i, h) for i, h in enumerate(hits) if h.field == spec.name]
        if not mine:
            continue
        pos = [h.value for i, h in mine if i not in negative]
        neg = [h.value for i, h in mine if i in negative]
        if labels.get(spec.name):
            pos, neg = ([labels[spec.name][v][0] for v in vs] for vs in (pos, neg))
        if spec.type == "list":
            conds += [Comparison(comparator=Comparator.CONTAIN, attribute=spec.name, value=v) for v in pos]
            if neg:
                result.notes.append(f"{spec.name}: cannot exclude {neg} (a list field has no 'not contains')")
            if _EITHER.search(question) and len(pos) > 1:
                result.operator = "or"
            continue  # topic words stay in the search text
        kept = [h for i, h in mine if i not in negative]
        coordinated = any(_AND.match(question[a.end:b.start]) for a, b in zip(kept, kept[1:], strict=False))
        either = bool(_EITHER.search(question)) or (coordinated and not _JOINT.search(question))
        conds += _value_conditions(spec.name, pos, neg, either)
        spans += [(h.start, h.end) for _, h in mine]
    spans += [m.span() for m in _NEG_WORDS.finditer(question)] if negative else []
    text = question
    for start, end in sorted(spans, reverse=True):
        text = text[:start] + " " + text[end:]
    text = _FILLER.sub(" ", text)
    text = re.sub(r"\b(by|in|from|of|since|before|after)\s*(?=[?？。.!,，]|$)", " ", text, flags=re.I)
    text = re.sub(r"(?:^|\s)(?:写的|的)|(?:写的|的)(?:\s|$)", " ", text)
    result.query = re.sub(r"\s+", " ", text).strip(" ,，.。的") or question
    result.conditions = conds
    unsure_hint = re.search(r"\d{2,4}|\bby\b|作者|年份|类型|标签|tagged|written", question, re.I)
    result.confident = bool(conds) or not unsure_hint
    return result
