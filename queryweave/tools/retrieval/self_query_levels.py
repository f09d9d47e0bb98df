"""Self-query rules for integer fields that stand for something else than an amount: a level whose
description labels its numbers ("from 1 (beginner) to 3 (advanced). 从 1（新手）到 3（高级）") and a version
number ("v2 or v3", "1.x版本"). Found on documentation-style schemas (2026-12-05, `bench/results_structured.md`)."""

from __future__ import annotations

import re

from langchain_core.structured_query import Comparator, Comparison

from queryweave.tools.retrieval.self_query_schema import FieldSpec
from queryweave.tools.retrieval.self_query_words import split_words

_LABEL = re.compile(r"(\d+)\s*(?:[（(]\s*([A-Za-z][A-Za-z \-]{0,30}?|[\u3400-\u9fff]{1,8})\s*[)）]|"
                    r"[=:：]\s*([A-Za-z][A-Za-z\-]*(?: [A-Za-z][A-Za-z\-]*)?|[\u3400-\u9fff]{1,6}))")


def scale_labels(spec: FieldSpec) -> dict[str, tuple[int, tuple[str, ...]]]:
    """The words a field's description gives its numbers ("from 1 (beginner) to 3 (advanced). 从 1（新手）到
    3（高级）", "1 = easy, 2 = medium"): English label -> (number, its other labels, e.g. the Chinese one).
    Only for integer fields that label two numbers or more; a number with no English label is left out."""
    if spec.type != "integer":
        return {}
    by_number: dict[int, list[str]] = {}
    for m in _LABEL.finditer(spec.description):
        label = (m.group(2) or m.group(3) or "").strip().lower()
        if label:
            by_number.setdefault(int(m.group(1)), []).append(label)
    if len(by_number) < 2:
        return {}
    out = {}
    for number, labels in by_number.items():
        english = [x for x in labels if re.match(r"[a-z]", x)]
        if english:
            others = tuple(dict.fromkeys(x for x in labels if x != english[0]))
            out["_".join(english[0].replace("-", " ").split())] = (number, others)
    return out


_VERSION = re.compile(r"(?<![A-Za-z0-9.])(?:v|ver\.?\s*|version\s*)(\d{1,3})(?:\.(?:\d+|x))*(?![\d.]?\d)"
                      r"|(?<![A-Za-z0-9.])(\d{1,3})\.[xX*](?![A-Za-z0-9])"
                      r"|(?<![A-Za-z0-9.])(\d{1,3})(?:\.\d+){2}(?![\d.])"
                      r"|(?<![A-Za-z0-9.])(\d{1,3})(?:\.\d+)?\s*版本?", re.I)
_UPGRADE = re.compile(r"升级|迁移|upgrad|migrat", re.I)


def version_field(spec: FieldSpec) -> bool:
    """An integer field that holds a version number: its name or description says "version" (版本)."""
    return spec.type == "integer" and ("version" in {w.lower() for w in split_words(spec.name)}
                                       or bool(re.search(r"\bversion\b|版本", spec.description, re.I)))


def version_conditions(text: str, spec: FieldSpec) -> tuple[list[Comparison], list[tuple[int, int]]]:
    """The major version a question names ("v2", "version 1", "2.x", "1.x版本", "3.1.0"): one is `eq`;
    alternatives ("v2 or v3", "v2或者v3") are `in`; upgrading from one to another ("从2.x升级到3.0",
    "migrating from v1 to v2") asks for the target. Two versions any other way say nothing."""
    found = [(m.span(), int(next(g for g in m.groups() if g))) for m in _VERSION.finditer(text)]
    majors = list(dict.fromkeys(v for _, v in found))
    target = re.search(r"(?:\bto|到)\s*(?:v|version\s*)?(\d{1,3})(?:\.\d+|\.x)*", text, re.I) if _UPGRADE.search(text) else None
    if target and found:
        return [Comparison(comparator=Comparator.EQ, attribute=spec.name, value=int(target.group(1)))], \
            [*(span for span, _ in found), target.span()]
    spans = [span for span, _ in found]
    if len(majors) == 1:
        return [Comparison(comparator=Comparator.EQ, attribute=spec.name, value=majors[0])], spans
    if len(majors) > 1 and re.search(r"\bor\b|或者?|还是", text[found[0][0][1]:found[-1][0][0]], re.I):
        return [Comparison(comparator=Comparator.IN, attribute=spec.name, value=sorted(majors))], spans
    return [], []
