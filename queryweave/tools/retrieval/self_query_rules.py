"""The rule layer of self-query: filters from the question text, in Chinese and English.

Extracts years and year ranges ("2020 年以后", "since 2021", "2019到2021年", "before 2020",
"between 2018 and 2020"), tags from the known vocabulary (and their aliases), content types,
authors (known names) and document language, and returns the conditions plus the question with
the filter phrases removed. Only values the schema knows are produced; the LLM layer is for the rest.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from langchain_core.structured_query import Comparator, Comparison

from queryweave.tools.retrieval.self_query_schema import FieldSpec, MetadataSchema

Y = r"((?:19|20)\d{2})"
_YEAR_RULES: list[tuple[str, str]] = [
    # ranges
    (rf"(?:between|from)\s+{Y}\s+(?:and|to|through|until|till)\s+{Y}", "range"),
    (rf"{Y}\s*年?\s*(?:到|至|—|–|-|~|～)\s*{Y}\s*年?(?:之间|间)?", "range"),
    (rf"{Y}\s*(?:to|through)\s*{Y}", "range"),
    (rf"{Y}\s*年?\s*(?:与|和|跟)\s*{Y}\s*年?\s*(?:之间|间)", "range"),
    # open ends, Chinese
    (rf"{Y}\s*年?\s*(?:及|和)?\s*(?:以后|之后|以来|起|开始|后)", "gte"),
    (rf"{Y}\s*年?\s*(?:及|和)\s*(?:以前|之前)", "lte"),
    (rf"{Y}\s*年?\s*(?:以前|之前|前)", "lt"),
    # open ends, English
    (rf"(?:since|starting(?:\s+in|\s+from)?)\s+{Y}|from\s+{Y}\s+(?:on(?:wards?)?|and\s+(?:later|after))", "gte"),
    (rf"{Y}\s+(?:and|or)\s+(?:later|after|newer|onwards?)|{Y}\s+onwards?", "gte"),
    (rf"(?:until|till|through|up\s+to|no\s+later\s+than)\s+{Y}|{Y}\s+(?:and|or)\s+(?:earlier|before)", "lte"),
    (rf"(?:after|later\s+than|newer\s+than|post-)\s*{Y}", "gt"),
    (rf"(?:before|earlier\s+than|older\s+than|prior\s+to|pre-)\s*{Y}", "lt"),
    # one year
    (rf"(?:published\s+)?(?:in|of|from|during)\s+{Y}\b|{Y}\s*年(?:的|发表|出版)?|\b{Y}\b", "eq"),
]
_FILLER = re.compile(r"\b(published|released|written|dated)\b|发表的?|出版的?", re.I)


@dataclass
class RuleResult:
    """Conditions found by the rules, the remaining query text, and whether the rules seem sure."""

    conditions: list[Comparison] = field(default_factory=list)
    query: str = ""
    confident: bool = True
    operator: str = "and"


def _years(text: str, spec: FieldSpec) -> tuple[list[Comparison], list[tuple[int, int]]]:
    for pattern, kind in _YEAR_RULES:
        m = re.search(pattern, text, re.I)
        if not m:
            continue
        ys = [int(g) for g in m.groups() if g]
        if kind == "range":
            lo, hi = sorted(ys[:2])
            conds = [Comparison(comparator=Comparator.GTE, attribute=spec.name, value=lo),
                     Comparison(comparator=Comparator.LTE, attribute=spec.name, value=hi)]
        else:
            conds = [Comparison(comparator=Comparator(kind), attribute=spec.name, value=ys[0])]
        return conds, [m.span()]
    return [], []


def _pattern(word: str) -> str:
    if re.search(r"[\u3400-\u9fff]", word):
        return re.escape(word)
    flexible = re.escape(word).replace(r"\-", r"[-\s]?").replace(r"\ ", r"[-\s]")
    return rf"(?<![A-Za-z0-9_-]){flexible}(?![A-Za-z0-9_-])"


def _vocab_hits(text: str, spec: FieldSpec) -> list[tuple[str, tuple[int, int]]]:
    hits = []
    for value in spec.values:
        names = {value, *spec.aliases.get(value, ())}
        if spec.name == "author" and " " in value:
            surname = value.split()[-1]
            if sum(v.split()[-1].lower() == surname.lower() for v in spec.values) == 1:
                names.add(f"by {surname}")
                names.add(f"{surname} et al")
        best = None
        for name in sorted(names, key=len, reverse=True):
            m = re.search(_pattern(name), text, re.I)
            if m:
                best = m.span()
                break
        if best:
            hits.append((value, best))
    # a hit inside a longer hit of the same field is part of it (检索 inside 检索增强生成)
    return [(v, (a, b)) for v, (a, b) in hits
            if not any(x <= a and b <= y and (y - x) > (b - a) for _, (x, y) in hits)]


def extract_rules(question: str, schema: MetadataSchema) -> RuleResult:
    """Conditions the rules can read from `question` (only fields and values the schema declares)."""
    spans: list[tuple[int, int]] = []
    conds: list[Comparison] = []
    result = RuleResult()
    year = next((f for f in schema.fields if f.type == "integer" and "year" in f.name), None)
    if year:
        found, where = _years(question, year)
        conds += found
        spans += where
    for spec in schema.fields:
        if not spec.values or spec.type in {"integer", "float"}:
            continue
        hits = _vocab_hits(question, spec)
        if not hits:
            continue
        if spec.type == "list":
            conds += [Comparison(comparator=Comparator.CONTAIN, attribute=spec.name, value=v) for v, _ in hits]
            if re.search(r"\bor\b|或者?|还是", question, re.I) and len(hits) > 1:
                result.operator = "or"
            continue  # topic words stay in the search text
        conds += [Comparison(comparator=Comparator.EQ, attribute=spec.name, value=v) for v, _ in hits]
        spans += [s for _, s in hits]
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
