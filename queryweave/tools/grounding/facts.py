"""Checkable facts inside a claim: numbers, named entities and negation (Chinese and English).

Knows nothing of the graph. Numbers are compared by value ("four" = "4", "1.5万" = 15000); entities
are capitalised Latin spans and jieba proper nouns; negation cues come with their scope (what is
denied), so a flipped negation can be told from an unrelated one.
"""

from __future__ import annotations

import re
from functools import lru_cache

from queryweave.tools.common.numerals import EN_NUMWORDS as _EN_NUMWORDS
from queryweave.tools.common.numerals import SCALE as _SCALE
from queryweave.tools.common.numerals import ZH_NUM as _ZH_NUM
from queryweave.tools.common.numerals import zh_value as _zh_value
from queryweave.tools.common.text import EN_STOPWORDS, _jieba

# -- numbers --------------------------------------------------------------------------------------

_AMBIGUOUS_NUMWORDS = {"one", "zero", "second", "first", "once", "both", "single", "pair", "couple", "half",
                       "double"}
_NUM = re.compile(
    r"(?<![A-Za-z0-9_.])(\d+(?:[,，]\d{3})*(?:\.\d+)?|\d+(?:\.\d+)?)\s*(thousand|million|billion|trillion|bn|"
    r"(?<=\d)[mk](?![A-Za-z])|"
    r"百万|千万|万|亿|千|百)?(?!\d)",
    re.IGNORECASE,
)
_ZH_NUM_OK = re.compile(r"(?:[年月日号个名位人次届条项岁元件家所座架辆艘吨米天周])")


def numbers(text: str) -> list[tuple[str, float]]:
    """Numbers stated in `text` as (surface form, value): digits with separators and scale words
    ("2,000", "1.5 million", "3万"), English number words ("four") and Chinese numerals ("三十").

    Years, counts and amounts are all kept; ordinals like "first" are included because sources
    often write them out ("1st"/"first").
    """
    out: list[tuple[str, float]] = []
    for m in _NUM.finditer(text):
        try:
            v = float(m.group(1).replace(",", "").replace("，", ""))
        except ValueError:
            continue
        scale = (m.group(2) or "").lower()
        out.append((m.group(0).strip(), v * _SCALE.get(scale, 1.0)))
    prev_tens = False
    for m in re.finditer(r"\b([A-Za-z]+)\b(?=(?:[- ]([A-Za-z]+))?)", text):
        w = m.group(1).lower()
        if prev_tens and text[m.start() - 1 : m.start()] == "-":
            prev_tens = False
            continue  # the "one" of "twenty-one" was read with "twenty"
        prev_tens = False
        if w in _EN_NUMWORDS and w not in _AMBIGUOUS_NUMWORDS:
            v = float(_EN_NUMWORDS[w])
            nxt = (m.group(2) or "").lower()
            if nxt in _SCALE:
                v *= _SCALE[nxt]
            elif nxt in _EN_NUMWORDS and 20 <= v < 100 and _EN_NUMWORDS[nxt] < 10:
                v += _EN_NUMWORDS[nxt]
                prev_tens = True
            out.append((m.group(1), v))
    for m in _ZH_NUM.finditer(text):
        s = m.group(0)
        nxt = text[m.end() : m.end() + 1]
        if len(s) == 1 and s in "一两" and not _ZH_NUM_OK.match(nxt):
            continue  # 一些, 一起, 两岸…: words, not counts
        v = _zh_value(s)
        if v is not None:
            out.append((s, v))
    return out


def number_values(text: str) -> set[float]:
    """Every value `numbers` finds in `text`, plus the digits-only reading of scaled ones."""
    vals: set[float] = set()
    for _, v in numbers(text):
        vals.add(round(v, 6))
    for m in _NUM.finditer(text):  # "1.5 million" also matches a bare "1.5" in the other text
        try:
            vals.add(round(float(m.group(1).replace(",", "").replace("，", "")), 6))
        except ValueError:
            pass
    return vals


_HEDGE = re.compile(r"(?:about|around|nearly|almost|roughly|approximately|some|over|more than|less than|"
                    r"fewer than|up to|约|近|超过|逾|多达|大约)\s*$", re.IGNORECASE)


def unsupported_numbers(claim: str, source_values: set[float]) -> list[str]:
    """Surface forms of the numbers of `claim` whose value appears nowhere in the sources.

    A hedged number ("about 2,000", "近2000") may round a source value within 5%.
    """
    missing: list[str] = []
    for surface, v in numbers(claim):
        if round(v, 6) in source_values:
            continue
        at = claim.find(surface)
        hedged = at > 0 and bool(_HEDGE.search(claim[max(0, at - 14) : at]))
        if hedged and v and any(abs(v - s) / abs(v) <= 0.05 for s in source_values if s):
            continue
        if surface not in missing:
            missing.append(surface)
    return missing


# -- named entities -------------------------------------------------------------------------------

_CAP_TOKEN = re.compile(r"[A-Z][A-Za-z0-9'’.&-]*|[A-Z]")
_LATIN_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9'’&.-]*|\d+")
_CONNECT = {"of", "de", "del", "la", "van", "von", "der", "al", "bin", "le", "du", "da", "&"}
_NOT_NAMES = EN_STOPWORDS | {
    "however", "meanwhile", "despite", "although", "though", "after", "before", "while", "since",
    "according", "also", "but", "yet", "still", "then", "now", "today", "yesterday", "tomorrow",
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "mr", "mrs", "ms",
    "dr", "many", "several", "one", "two", "three", "another", "every", "its", "their", "his", "her",
    "i", "it's", "there's", "that's", "here", "we", "they", "our", "new", "last", "next", "first",
}
_TITLES = {"mr", "mrs", "ms", "dr", "sen", "gov", "rep", "lt", "col", "gen", "prof", "sgt", "capt", "st",
           "president", "officer", "judge", "sir", "lady", "lord", "king", "queen", "prince", "pope"}
_ZH_PROPER_TAGS = {"nr", "nrfg", "nrt", "ns", "nt", "nz"}


def _clean(tok: str) -> str:
    return re.sub(r"(?:['’](?:s|ll|re|ve|d|m)|['’]|\.)$", "", tok)


def _is_abbrev(tok: str) -> bool:
    return bool(re.fullmatch(r"(?:[A-Z]\.)+[A-Z]?\.?|(?:Mr|Mrs|Ms|Dr|St|Jr|Sr|Lt|Col|Gen|Sen|Rep|Gov|Prof)\.", tok))


def _en_spans(text: str) -> list[tuple[list[str], bool]]:
    """Capitalised spans as (words, starts_a_sentence)."""
    spans: list[tuple[list[str], bool]] = []
    cur: list[str] = []
    cur_start = False
    prev_end, prev_tok = 0, ""
    toks = list(_LATIN_TOKEN.finditer(text))
    for i, m in enumerate(toks):
        tok = m.group(0)
        word = tok.rstrip(".") + "." if _is_abbrev(tok) and tok.count(".") > 1 else _clean(tok)
        gap = text[prev_end : m.start()]
        ends_sentence = bool(re.search(r"[.!?:;\"“”]|\n", gap)) or (
            prev_tok.endswith(".") and not _is_abbrev(prev_tok)
        )
        starts = i == 0 or ends_sentence
        if cur and (gap.strip() or ends_sentence):  # punctuation between two words ends a span
            spans.append((cur, cur_start))
            cur = []
        prev_end, prev_tok = m.end(), tok
        if not word:
            continue
        nxt = toks[i + 1].group(0) if i + 1 < len(toks) else ""
        if _CAP_TOKEN.fullmatch(word) and not (starts and word.lower() in _NOT_NAMES):
            if not cur:
                cur_start = starts
            cur.append(word)
        elif cur and word.lower() in _CONNECT and _CAP_TOKEN.fullmatch(nxt):
            cur.append(word)
        elif cur:
            spans.append((cur, cur_start))
            cur = []
        if cur and tok != word and re.search(r"['’]\w*$", tok):
            spans.append((cur, cur_start))  # "Fox's Marvel-based reboot": the possessive ends the name
            cur = []
    if cur:
        spans.append((cur, cur_start))
    out: list[tuple[list[str], bool]] = []
    for span, at_start in spans:
        while span and span[-1].lower() in _CONNECT:
            span = span[:-1]
        if len(span) == 1 and span[0].lower() in _NOT_NAMES:
            continue
        if span:
            out.append((span, at_start))
    return out


def _zh_entities(text: str) -> list[str]:
    import jieba.posseg as pseg

    _jieba()
    out: list[str] = []
    run = ""  # adjacent proper-noun pieces form one name: 施泰因 + 迈尔
    for w, flag in [*pseg.lcut(text), ("", "x")]:
        w = w.strip()
        if flag in _ZH_PROPER_TAGS and w and re.search(r"[\u4e00-\u9fff]", w):
            run += w
            continue
        if len(run) >= 2:
            out.append(run)
        run = ""
    out.extend(m.group(1) for m in re.finditer(r"[《“\"]([^》”\"]{2,20})[》”\"]", text))
    return out


def entities(text: str) -> list[str]:
    """Named-entity candidates of `text`: capitalised Latin spans ("Drew Carey", "U.S. Consulate";
    a sentence's first word only when it is not a common word), jieba proper nouns (persons,
    places, organisations, other proper names) and titles in 《》 or quotes for Chinese."""
    out = [" ".join(span) for span, _ in _en_spans(text)]
    if re.search(r"[\u4e00-\u9fff]", text):
        out.extend(_zh_entities(text))
    seen: set[str] = set()
    return [e for e in out if not (e in seen or seen.add(e))]


@lru_cache(maxsize=64)
def _source_index(source: str) -> tuple[str, frozenset[str], str]:
    low = source.lower()
    return low, frozenset(_clean(t).lower() for t in _LATIN_TOKEN.findall(source)), " ".join(low.split())


def unsupported_entities(claim: str, sources_text: str) -> list[str]:
    """Entities of `claim` found nowhere in `sources_text`.

    A Latin entity counts as found when the whole span appears, or every word of it does, case
    aside (so "Officer Slager" is found in "... officer Michael Slager ..."). A Chinese one must
    appear as a substring. A claim the sources hold word for word has none missing (an extractive
    answer's sentences): no tagging needed (the Chinese tagger's first use costs ~0.4 s).
    """
    low, vocab, flat = _source_index(sources_text)
    copied = " ".join(claim.lower().split())
    if copied and copied in flat:
        return []
    missing: list[str] = []
    for span, at_start in _en_spans(claim):
        ent = " ".join(span)
        if ent.lower() in low:
            continue
        # a sentence's first capitalised word may be a common word ("Photographer Timothy Bouldry")
        words = [w for w in (span[1:] if at_start else span) if w.lower() not in _CONNECT | _TITLES]
        parts = [p.lower().rstrip(".") for w in words for p in w.split("-") if p.rstrip(".")]
        if any(p not in vocab and p.rstrip("s") not in vocab for p in parts):
            missing.append(ent)
    if re.search(r"[\u4e00-\u9fff]", claim):
        missing.extend(e for e in dict.fromkeys(_zh_entities(claim)) if e not in sources_text)
    return missing


# -- negation -------------------------------------------------------------------------------------

_EN_NEG = re.compile(
    r"\b(?:not|no|never|none|nobody|nothing|neither|nor|without|cannot|n't|denied|denies|deny|"
    r"refused|refuses|refusing|refuse|failed|fails|unable)\b|n't\b",
    re.IGNORECASE,
)
_EN_NOT_NEG = re.compile(r"^\s*(?:only|just|merely|least|doubt|wonder|matter|less|more)\b", re.IGNORECASE)
_ZH_NEG = re.compile(r"不|没|未|无|非|否认|拒绝|并非|别")
_ZH_NEG_EXCEPT = re.compile(r"不断|不少|不仅|不但|无论|非常|未来|无数|不久|不过|毫无疑问|不得不|非洲|无人机")


def negations(text: str) -> int:
    """How many negation cues `text` carries (English words and Chinese characters)."""
    return len(negation_scopes(text))


def negation_scopes(text: str) -> list[str]:
    """What each negation cue of `text` applies to: the next few words ("did not *attend the
    meeting*") or, in Chinese, the next few characters ("没有*参加会议*")."""
    scopes: list[str] = []
    if re.search(r"[\u4e00-\u9fff]", text):
        cleaned = _ZH_NEG_EXCEPT.sub("，", text)
        for m in _ZH_NEG.finditer(cleaned):
            scopes.append(re.split(r"[，。；！？,.;!?]", cleaned[m.end() : m.end() + 6])[0])
    for m in _EN_NEG.finditer(text):
        if _EN_NOT_NEG.match(text[m.end() :]):
            continue  # "not only", "no doubt", "no matter", "no less": not a denial
        rest = re.split(r"[,.;:!?\"“”()]|\bbut\b", text[m.end() : m.end() + 60])[0]
        scopes.append(" ".join(rest.split()[:4]))
    return scopes
