"""Intent accumulation: constraints a user sets in one turn carry into later turns until changed.

Constraints are a plain dict (JSON-friendly, so it fits in graph state):
`{"year_from": int|None, "year_to": int|None, "include": [str], "exclude": [str],
  "language": str|None, "answer_language": "zh"|"en"|None}` — `language` is a programming language
named by an include term ("only Kotlin"), `answer_language` a request such as "用英文回答".

Only deliberate filters count: "只看 2023 年的", "only Kotlin", "不要 Java", "exclude Python 2",
"since 2021", "2019 到 2021 年". A year or a word that is merely part of a question ("What changed in
2023?", "Why does Redis only use one core?") is content, not a filter.
"""

from __future__ import annotations

import re
from datetime import date

from queryweave.tools.common.text import EN_STOPWORDS, ZH_STOPWORDS
from queryweave.tools.understanding.mentions import GENERIC_WORDS

EMPTY: dict = {"year_from": None, "year_to": None, "include": [], "exclude": [], "language": None,
               "answer_language": None}

PROGRAMMING_LANGUAGES = {
    name.lower(): name
    for name in """Python Java Kotlin Go Rust C C++ C# JavaScript TypeScript Ruby PHP Swift Scala Haskell Lua
    Perl R Dart Elixir Erlang Clojure SQL Shell Bash Groovy Objective-C MATLAB Julia""".split()
}
PROGRAMMING_LANGUAGES["golang"] = "Go"

_Y = r"((?:19|20)\d{2})"
_FILLER = re.compile(
    r"(?:请|麻烦|帮我|我想|我要|那|那么|好的|好|然后|另外|以后|之后都|接下来|从现在开始|的|了|呢|吧|就|都|年份?|和|与|或|"
    r"文档|资料|内容|结果|文章|部分|版本|数据|结果|"
    r"please|ok|okay|then|from now on|results?|docs?|documents?|articles?|ones?|stuff|papers?|data|anything|everything|"
    r"the|for|in|of|and|or|from|versions?|year|years|let's|let us|show|me|i|want|to|see|look|at|keep|only)",
    re.I,
)
_ZH_INCLUDE = r"(?:只看|只要|只查|只找|只考虑|只关注|只需要|仅看|仅限|仅考虑|只限|限定|限于|只讨论|只针对)"
_ZH_EXCLUDE_ANY = r"(?:排除|除了|去掉|过滤掉|不包括|不包含|不考虑|除去|剔除)"
_ZH_EXCLUDE_START = r"(?:不要|不看|不需要|别看|别|不用)"
_ZH_ADD = r"(?:还有|加上|也看|也要|以及|再加上)"
_EN_INCLUDE = r"(?:only|just|exclusively|restrict(?:ed)? to|limit(?:ed)? to|filter (?:to|by|for|on)|focus on|stick to)"
_EN_EXCLUDE_ANY = r"(?:exclude|excluding|except(?: for)?|ignore|skip|leave out|other than|but not|don't include|do not include|don't show|do not show)"
_EN_EXCLUDE_START = r"(?:not|no|without)"
_EN_ADD = r"(?:also|plus|as well as|and also|include|including|add)"
_RESET = re.compile(
    r"不限(?:年份|时间|语言)?|取消(?:所有)?(?:筛选|过滤|限制|条件)|清除(?:筛选|条件|过滤)|忽略(?:之前|前面)的(?:条件|限制)|"
    r"所有年份|任何年份|any year|all years|clear (?:the |all )?(?:filters?|constraints?)|reset (?:the )?(?:filters?|constraints?)|"
    r"no (?:more )?filters?|remove (?:the |all )?(?:filters?|constraints?)|forget (?:the |all )?(?:filters?|constraints?)",
    re.I,
)
_ANSWER_LANG = [
    (re.compile(r"(?:用|使用|以)?(?:中文|汉语|简体中文)(?:回答|回复|作答|答复)|(?:answer|reply|respond) in chinese|in chinese,? please", re.I), "zh"),
    (re.compile(r"(?:用|使用|以)?(?:英文|英语)(?:回答|回复|作答|答复)|(?:answer|reply|respond) in english|in english,? please", re.I), "en"),
]
_YN = r"(?:19|20)\d{2}"
_TIME = re.compile(
    rf"(?:\b(?:between|from|since|after|before|until|till|up to|prior to|in|during)\s+)?"
    rf"(?:(?<!\d){_YN}\s*年?\s*(?:-|–|~|～|到|至|and|to|through)\s*)?(?<!\d){_YN}(?!\d)\s*年?\s*"
    r"(?:以来|以后|之后|起|开始|以前|之前|为止|前|后)?|(?:最近|近|过去|last|past)\s*(?:\d{1,2}|两|三|五|十)\s*(?:年|years?)|"
    r"今年|去年|前年|this year|last year",
    re.I,
)
_NOT_TERMS = frozenset({"ones", "results", "docs", "documents", "articles", "stuff", "versions", "please", "anything",
                        "everything", "something", "all", "any", "those", "these", "任何", "所有", "全部"})
_SPAN_END = r"(?=[，,。.;；!！?？]|的|$|\s+(?:and|or|but|please)\b)"


def _years(text: str, today: date) -> tuple[int | None, int | None, bool]:
    """(year_from, year_to, is_range_phrase) named in `text`; (None, None, False) when none."""
    t = text
    m = re.search(rf"(?:between|from)?\s*{_Y}\s*年?\s*(?:-|–|~|～|到|至|and|to|through)\s*{_Y}\s*年?", t, re.I)
    if m:
        a, b = sorted((int(m.group(1)), int(m.group(2))))
        return a, b, True
    m = re.search(r"(?:最近|近|过去|last|past)\s*(\d{1,2}|两|三|五|十)\s*(?:年|years?)", t, re.I)
    if m:
        n = {"两": 2, "三": 3, "五": 5, "十": 10}.get(m.group(1)) or int(m.group(1))
        return today.year - n + 1, today.year, True
    m = re.search(rf"\b(since|after|from)\s+{_Y}", t, re.I)
    if m:
        y = int(m.group(2))
        return (y + 1 if m.group(1).lower() == "after" else y), None, True
    m = re.search(rf"{_Y}\s*年?\s*(以来|以后|之后|起|开始|后)", t)
    if m:
        return int(m.group(1)), None, True
    m = re.search(rf"\b(before|until|till|up to|prior to)\s+{_Y}", t, re.I)
    if m:
        y = int(m.group(2))
        return None, (y - 1 if m.group(1).lower() in ("before", "prior to") else y), True
    m = re.search(rf"{_Y}\s*年?\s*(以前|之前|前|为止)", t)
    if m:
        y = int(m.group(1))
        return None, (y if m.group(2) == "为止" else y - 1), True
    rel = [(r"今年|this year", 0), (r"去年|last year", 1), (r"前年|the year before last", 2)]
    for pat, back in rel:
        if re.search(pat, t, re.I):
            return today.year - back, today.year - back, False
    m = re.search(rf"(?<!\d){_Y}(?!\d)", t)
    if m:
        y = int(m.group(1))
        return y, y, False
    return None, None, False


def _terms(span: str) -> list[str]:
    """Filter terms in a span after a trigger word: names, code tokens, Chinese nouns or plain words."""
    span = _TIME.sub(" ", span)
    span = re.sub(r"(?:相关|有关)?的?(?:文档|资料|内容|结果|文章|部分|版本|数据)$", "", span.strip())
    out: list[str] = []
    for piece in re.split(r"\s*(?:,|，|、|/|\band\b|\bor\b|和|或|以及|与)\s*", span):
        piece = piece.strip(" '\"“”‘’`")
        words = [w for w in piece.split() if w.lower() not in EN_STOPWORDS and w.lower() not in GENERIC_WORDS
                 and w.lower() not in _NOT_TERMS]
        piece = " ".join(words).strip()
        if piece and piece not in ZH_STOPWORDS and piece not in GENERIC_WORDS and len(piece) <= 40:
            out.append(piece)
    return out[:4]


def _spans(text: str, trigger: str, start_only: bool) -> list[str]:
    prefix = r"(?:^|[，,;；。.?？!！]\s*|\b(?:but|and)\s+|但是?|另外|还有|请)\s*" if start_only else ""
    pat = re.compile(rf"{prefix}{trigger}\s*(.+?){_SPAN_END}", re.I)
    return [m.group(1) for m in pat.finditer(text.strip())]


def parse_constraints(text: str, today: date | None = None) -> tuple[dict, str]:
    """The constraints stated in one utterance (a partial dict) and what is left of it as a question.

    Keys present only when stated: `year_from`/`year_to`, `include`, `add`, `exclude`, `language`,
    `answer_language`, `reset` (True for "clear filters", "year" for "any year").
    """
    today = today or date.today()
    found: dict = {}
    inc_spans = [s for pat, so in ((_ZH_INCLUDE, False), (_EN_INCLUDE, True)) for s in _spans(text, pat, so)]
    add_spans = [s for pat in (_ZH_ADD, _EN_ADD) for s in _spans(text, pat, True)]
    exc_spans = [s for pat, so in ((_ZH_EXCLUDE_ANY, False), (_EN_EXCLUDE_ANY, False), (_ZH_EXCLUDE_START, True),
                                   (_EN_EXCLUDE_START, True)) for s in _spans(text, pat, so)]
    include = [t for s in inc_spans for t in _terms(s)]
    add = [t for s in add_spans for t in _terms(s)]
    exclude = [t for s in exc_spans for t in _terms(s)]
    remainder = text
    for pat in (_ZH_INCLUDE, _ZH_EXCLUDE_ANY, _ZH_EXCLUDE_START, _ZH_ADD):
        remainder = re.sub(pat, " ", remainder)
    for pat in (_EN_INCLUDE, _EN_EXCLUDE_ANY, _EN_ADD, _EN_EXCLUDE_START):
        remainder = re.sub(rf"\b{pat}\b", " ", remainder, flags=re.I)
    for term in include + add + exclude:
        remainder = remainder.replace(term, " ")
    y_from, y_to, is_range = _years(text, today)
    reset = _RESET.search(text)
    for pat, code in _ANSWER_LANG:
        if pat.search(text):
            found["answer_language"] = code
            remainder = pat.sub(" ", remainder)
    if reset:
        found["reset"] = "year" if re.search(r"年份|时间|year", reset.group(0), re.I) else True
        remainder = _RESET.sub(" ", remainder)
    remainder = _TIME.sub(" ", remainder)
    leftover = _FILLER.sub(" ", re.sub(r"[\s，,。.!！?？;；:：]+", " ", remainder)).strip()
    constraint_only = not re.search(r"\w", leftover)
    deliberate = bool(inc_spans or exc_spans or add_spans) or is_range or constraint_only
    if any(_TIME.search(s) for s in exc_spans) and (y_from is None) != (y_to is None):
        # "排除 2020 年以前的" / "exclude before 2020": the excluded side flips into the kept side.
        y_from, y_to = (y_to + 1, None) if y_from is None else (None, y_from - 1)
    if (y_from or y_to) and deliberate:
        found["year_from"], found["year_to"] = y_from, y_to
    for key, terms in (("include", include), ("add", add), ("exclude", exclude)):
        if terms:
            found[key] = list(dict.fromkeys(terms))
    if not found:
        return {}, text
    return found, ("" if constraint_only else text)


def accumulate_constraints(history_constraints: dict | None, question: str, today: date | None = None) -> dict:
    """Merge the constraints stated in `question` into those carried from earlier turns (a new dict).

    A new year or year range replaces the old one; "only X" replaces the include list, "also X" adds to
    it; "不要 X"/"exclude X" adds X to the excludes (and drops it from the includes); "clear filters" /
    "不限年份" resets all or the years. `language` follows the include terms that are programming languages.
    """
    merged = {**EMPTY, **(history_constraints or {})}
    merged["include"] = list(merged.get("include") or [])
    merged["exclude"] = list(merged.get("exclude") or [])
    found, _ = parse_constraints(question, today)
    if found.get("reset") is True:
        merged = {**EMPTY, "include": [], "exclude": [], "answer_language": merged.get("answer_language")}
    elif found.get("reset") == "year":
        merged["year_from"] = merged["year_to"] = None
    if "year_from" in found:
        merged["year_from"], merged["year_to"] = found["year_from"], found["year_to"]
    if "include" in found:
        merged["include"] = list(dict.fromkeys(found["include"]))
    for term in found.get("add", []):
        if term.lower() not in {t.lower() for t in merged["include"]}:
            merged["include"].append(term)
    for term in found.get("include", []) + found.get("add", []):
        merged["exclude"] = [t for t in merged["exclude"] if t.lower() != term.lower()]
    for term in found.get("exclude", []):
        merged["include"] = [t for t in merged["include"] if t.lower() != term.lower()]
        if term.lower() not in {t.lower() for t in merged["exclude"]}:
            merged["exclude"].append(term)
    langs = [PROGRAMMING_LANGUAGES[t.lower()] for t in merged["include"] if t.lower() in PROGRAMMING_LANGUAGES]
    if "include" in found or "add" in found or "exclude" in found or found.get("reset"):
        merged["language"] = langs[0] if len(langs) == 1 else None
    if "answer_language" in found:
        merged["answer_language"] = found["answer_language"]
    return merged


def describe_constraints(c: dict, lang: str = "en") -> str:
    """A short human-readable line for a constraints dict ('' when nothing is set)."""
    parts = []
    yf, yt = c.get("year_from"), c.get("year_to")
    if yf or yt:
        if yf == yt:
            parts.append(f"{yf} 年" if lang == "zh" else f"year {yf}")
        else:
            parts.append(f"{yf or '…'}–{yt or '…'}" + (" 年" if lang == "zh" else ""))
    if c.get("include"):
        parts.append(("只看 " if lang == "zh" else "only ") + ", ".join(c["include"]))
    if c.get("exclude"):
        parts.append(("排除 " if lang == "zh" else "excluding ") + ", ".join(c["exclude"]))
    if c.get("answer_language"):
        parts.append(("回答语言 " if lang == "zh" else "answer in ") + c["answer_language"])
    return ("；" if lang == "zh" else "; ").join(parts)
