"""Word forms of declared values for self-query matching: stems, plurals, identifier words, clipped
forms, participles, abbreviations, the heads of closed compounds, a value's distinctive words,
adjectives of names ("italian" of "italy") and the closed class of kind nouns ("Japanese style").

Pure functions of words (no schema, no question), used by `self_query_match`.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache

from queryweave.tools.common.text import EN_STOPWORDS, tokenize
from queryweave.tools.understanding import zh_dictionary

# nouns that only say "a kind of" after a name: 日式 "Japanese style", 中餐 "Chinese food", 素食
# "vegetarian food" name `japanese`, `chinese`, `vegetarian` (a closed class, like the field's own name)
KIND_NOUNS = frozenset({"style", "food", "cuisine", "dish", "meal", "type", "kind", "sort", "category",
                        "class", "version", "edition", "form", "format", "mode", "variety",
                        # kinds of works: 科幻小说 "science fiction novel", 诗集 "poetry anthology"
                        "novel", "book", "film", "movie", "song", "music", "story", "anthology", "collection",
                        "genre", "literature",
                        # kinds of places: 山地 "mountain region", 林区 "forest area"
                        "region", "area", "zone",
                        # a maker's name: 比亚迪 "BYD Company", 微软 "Microsoft Corporation"
                        "company", "corporation", "brand"})
_DEMONYM_ENDINGS = ("", "n", "an", "ian", "ese", "ish", "i", "ean")


_BRITISH = ((re.compile(r"([^aeiou])re$"), r"\1er"), (re.compile(r"([a-z]{2,})our$"), r"\1or"),
            (re.compile(r"([a-z]{3,})ise$"), r"\1ize"))  # theatre, harbour, organise: one spelling


@lru_cache(maxsize=4096)
def stem(word: str) -> str:
    """The Snowball stem, British and American spellings made one (theatre = theater, harbour = harbor)."""
    w = word.lower()
    for rx, to in _BRITISH if len(w) > 5 else ():
        w = rx.sub(to, w)
    out = tokenize(w, stopwords=False)
    return out[0] if out else w


# a value's last word that says only how the thing before it stands (`wheelchair_accessible`, `parking_available`,
# `breakfast_included`, `pet_friendly`): the thing alone names the value
_PREDICATES = frozenset(stem(w) for w in ("friendly", "accessible", "available", "included", "required", "allowed",
                                          "supported", "support", "compatible", "enabled", "ready", "optional"))

def plural(word: str) -> str:
    """Plural -s/-es only: the inflection a declared spelling still allows ("LLMs" for "LLM"). A short
    lower-case word is left whole: "news", "has", "its", "bus" are no plurals of "new", "ha", "it", "bu"."""
    w = word.lower()
    if len(w) > 4 and w.endswith(("ses", "xes", "ches", "shes")):
        return w[:-2]
    if len(w) <= 4 and word.islower():
        return w
    return w[:-1] if len(w) > 2 and w.endswith("s") and not w.endswith("ss") else w


def split_words(value: str) -> list[str]:
    """Words of an identifier or phrase: snake_case, kebab-case, camelCase and spaces split."""
    value = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z]{2,})", " ", value)
    return [w for w in re.split(r"[\s_\-/.:]+", value) if w]


def participle(word: str) -> bool:
    """A value word naming a state ("used", "refurbished"), which a verb sense ("to use") does not name."""
    return len(word) > 3 and word.lower().endswith("ed")


def clipped(raw: str, word: str) -> bool:
    """`raw` is a clipped form of `word` ("docs" of "documentation", "ref" of "reference")."""
    stem = raw[:-1] if raw.endswith("s") and len(raw) > 3 else raw
    return 3 <= len(stem) <= min(6, 0.6 * len(word)) and word.lower().startswith(stem)


def distinctive(seq: tuple[str, ...], content: list[int], owners: Counter, a: int, b: int) -> bool:
    """seq[a:b] holds every content word of the value that no other value of the field has, and the
    rest of its words are shared (`leave_policy` among `*_policy` values: "leave" tells it apart)."""
    own = [k for k in content if owners[seq[k]] == 1]
    return bool(own) and len(own) < len(content) and all(a <= k < b for k in own)


def abbreviation(token: str, words: Sequence[str]) -> bool:
    """An all-caps token spelling a prefix of each of the value's words in turn ("APAC" for
    `asia_pacific`, "NA" for `north_america`, "B&O" for `bang-olufsen`); the value has two words or more."""
    token = token.replace("&", "").replace("/", "")  # "B&O" for `bang-olufsen`, "A/C" for `air_conditioning`
    if len(words) < 2 or len(token) < 2 or not token.isalpha() or not token.isupper():
        return False

    def spell(rest: str, k: int) -> bool:
        if k == len(words):
            return not rest
        w = words[k]
        if w.lower() in EN_STOPWORDS and spell(rest, k + 1):  # "R&B": `rhythm_and_blues`
            return True
        return any(rest[:n] == w[:n] and spell(rest[n:], k + 1) for n in range(1, min(len(w), len(rest)) + 1))

    return spell(token.lower(), 0)


def clipped_compound(token: str, words: Sequence[str]) -> bool:
    """A hyphenated compound of clipped words, one per word of the value in turn ("sci-fi" for
    `science_fiction`, "rom-com" for `romantic_comedy`): each part two letters or more and a prefix of
    its word, at least one part shorter than its word."""
    parts = token.lower().split("-")
    if len(parts) != len(words) or len(parts) < 2:
        return False
    pairs = list(zip(parts, (w.lower() for w in words), strict=True))
    return all(len(p) >= 2 and w.startswith(p) for p, w in pairs) and any(len(p) < len(w) for p, w in pairs)


def numeronym(token: str, word: str) -> bool:
    """`token` is a numeronym of the one-word value `word`: its first and last letters with the count of
    the letters between ("k8s" for `kubernetes`, "i18n" for `internationalization`, "a11y")."""
    m = re.fullmatch(r"([a-z])(\d{1,2})([a-z])", token.lower())
    return bool(m) and len(word) == int(m.group(2)) + 2 and word.lower()[0] == m.group(1) \
        and word.lower()[-1] == m.group(3)


def compound_head(head: str, word: str) -> bool:
    """`head` (a stem) is the last part of the closed compound `word` ("phone" of "smartphone"): the
    rest is an English word of three letters or more, no function word ("overtime" is no kind of
    "time"), and the head four or more."""
    vocabulary = zh_dictionary.english_words()
    for cut in range(3, len(word) - 3):
        first, last = word[:cut], word[cut:]
        if stem(last) == head and first not in EN_STOPWORDS and (first in vocabulary if vocabulary else len(first) >= 4):
            return True
    return False


def part_share(seq: tuple[str, ...], content: list[int], owners: Counter, part: tuple[str, ...], whole: bool,
                raws: tuple[str, ...] = ()) -> float | None:
    """The score of `part` (stems) as some of the value's content words `seq`, in order: their share,
    half-way to 1.0 for the value's head word when no other value of the field has it, or for all
    the words only this value has; None when `part` is none of them. A part that is only the head of
    a longer sense (`whole` false) counts only in the half-way cases. `raws`, given for a verb sense,
    keeps it from naming a participle ("used")."""
    n = len(part)
    for j in content:
        if raws and any(map(participle, raws[j:j + n])):
            continue
        if tuple(seq[j:j + n]) == part and part[0] not in EN_STOPWORDS:
            share = len([k for k in content if j <= k < j + n]) / len(content)
            if j <= content[-1] < j + n and owners[seq[content[-1]]] == 1:
                return (1 + share) / 2  # the head word, and only this value has it
            if distinctive(seq, content, owners, j, j + n):
                return (1 + share) / 2  # the words only this value has ("leave" of `leave_policy`)
            if len(content) > 1 and seq[content[-1]] in _PREDICATES and [k for k in content if j <= k < j + n] \
                    == content[:-1]:
                return (1 + share) / 2  # the thing a predicate value is about: 轮椅 "wheelchair" of `wheelchair_accessible`
            return share if whole else None
    return None


def demonym(place: str, word: str) -> bool:
    """`word` is the adjective of the name `place` (either may be a stem): "italian" of "italy"
    ("itali"), "indian" of "india", "japanese" of "japan", "german" of "germany", "thai" of
    "thailand"; a derived noun of the same kind ("musician" of "music") passes too."""
    p, w = place.lower(), word.lower()
    base = p[:-4] if p.endswith("land") else p[:-1] if p[-1:] in "aeiouy" else p
    endings = _DEMONYM_ENDINGS if p.endswith(("land", "y", "i")) else _DEMONYM_ENDINGS[1:]  # "german", not "kore"
    return len(base) >= 3 and p != w and any(w == base + e for e in endings)
