"""The question as slots for self-query matching: one per Latin word, one per glossary term of
Chinese text, one per CC-CEDICT word of Chinese text the glossary lacks, and for the rest one per
jieba word; a one-character word the dictionary knows (汤 "soup") spells its senses only as whole
values (`Slot.exact_only`: a single character is too ambiguous for partial or derived matches).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from queryweave.tools.common.text import ZH_STOPWORDS, zh_word_spans
from queryweave.tools.retrieval.self_query_words import plural, split_words, stem
from queryweave.tools.understanding import zh_dictionary
from queryweave.tools.understanding.value_glossary import zh_segments

LATIN = re.compile(r"[A-Za-z](?:/[A-Za-z])+(?![A-Za-z0-9])|[A-Za-z0-9]+(?:[&+#][A-Za-z0-9]*)?")  # "A/C", "C++", "B&O"
# function characters, never read for their content senses (和 "Japanese", 要 "important")
# (numerals too: 一 "single" in 一晚 "a night"; numbers are read by the number rules)
_FUNCTION_CHARS = frozenset("不要去来到从给把被让这那还才又很最更太等里吗呢吧呀啊哪些个们零〇一二两三四五六七八九十百千万") | {
    w for w in ZH_STOPWORDS if len(w) == 1}


@dataclass(frozen=True)
class Slot:
    start: int
    end: int
    alts: tuple[tuple[str, ...], ...]  # stem sequences this piece of text can stand for
    raw: str = ""
    lights: tuple[tuple[str, ...], ...] = ()  # the same with plural-only normalisation
    zh: str = ""  # Chinese text of a slot the glossary does not know
    verbs: tuple[bool, ...] = ()  # per alt: a dictionary sense that was a verb ("to use")
    exact_only: bool = False  # one dictionary character: its senses name whole values only


Glossary = tuple[tuple[str, tuple[str, ...]], ...]  # (Chinese term, English phrases) a schema adds


@lru_cache(maxsize=2048)
def question_slots(text: str, glossary: Glossary = (), dictionary: bool = False) -> tuple[Slot, ...]:
    """The question as slots: one per Latin word (its stem), one per glossary term of Chinese text
    (the stems of its English phrases; `glossary` adds the schema's own terms), and for Chinese text
    the glossary lacks, with `dictionary`, one per CC-CEDICT word (longest match; a dictionary word
    also takes the place of a one-character glossary term inside it: 有声书 "audiobook", not 书
    "book"), spelling its senses; other text one slot per jieba word, spelling nothing (embeddings
    may still read it)."""
    slots: list[Slot] = []
    for m in LATIN.finditer(text):
        slots.append(Slot(m.start(), m.end(), ((stem(m.group()),),), m.group().lower(), ((plural(m.group()),),)))
    for m in re.finditer(r"[\u3400-\u9fff]+", text):
        run, base, pos = m.group(), m.start(), 0
        segs = zh_segments(run, dict(glossary))
        soft = {base + a: phrases for a, b, phrases in segs if dictionary and b - a == 1}
        for a, b, phrases in [*(x for x in segs if base + x[0] not in soft), (len(run), len(run), ())]:
            if a > pos:
                slots += _unknown(text, base + pos, base + a, dictionary, soft)
            if b > a:
                slots.append(_term(base + a, base + b, phrases))
            pos = b
    return tuple(sorted(slots, key=lambda s: s.start))


def _term(start: int, end: int, phrases: tuple[str, ...]) -> Slot:
    """The slot of a glossary term: the stems (and plural-only forms) of its English phrases."""
    alts = tuple(dict.fromkeys(tuple(stem(w) for w in split_words(p)) for p in phrases))
    lights = tuple(dict.fromkeys(tuple(plural(w) for w in split_words(p)) for p in phrases))
    return Slot(start, end, alts, "", lights)


def _unknown(text: str, start: int, end: int, dictionary: bool = False,
             soft: dict[int, tuple[str, ...]] | None = None) -> list[Slot]:
    """Chinese text the glossary lacks (but for one-character terms, `soft`: position -> phrases):
    with `dictionary`, its dictionary words by longest match, spelling their senses; a one-character
    term outside them keeps its glossary slot; the rest one slot per jieba word, spelling nothing."""
    out, pos = [], start
    for a, b, senses in zh_dictionary.lookup_spans(text[start:end]) if dictionary else []:
        if start + a > pos:
            out += _gap(text, pos, start + a, soft or {}, dictionary)
        alts: dict[tuple[str, ...], bool] = {}
        for phrase, verb in senses:
            seq = tuple(stem(w) for w in split_words(phrase))
            alts[seq] = alts.get(seq, True) and verb  # a noun sense of the same words wins
        out.append(Slot(start + a, start + b, tuple(alts), "", (), text[start + a:start + b], tuple(alts.values())))
        pos = start + b
    return out + _gap(text, pos, end, soft or {}, dictionary) if pos < end else out


def _gap(text: str, start: int, end: int, soft: dict[int, tuple[str, ...]], dictionary: bool = False) -> list[Slot]:
    """Slots of text no dictionary word covers: one-character glossary terms, else jieba words; with
    `dictionary`, a jieba word of one or two characters (no dictionary word) is read per character
    (汤品: 汤 "soup", 品), each spelling its senses as whole values only."""
    out, pos = [], start
    for i in [*sorted(k for k in soft if start <= k < end), end]:
        if i > pos:
            for a, b in zh_word_spans(text[pos:i]):
                if dictionary and b - a <= 2:
                    out += [_char(text, pos + k) for k in range(a, b)]
                else:
                    out.append(Slot(pos + a, pos + b, (), "", (), text[pos + a:pos + b]))
        if i < end:
            out.append(_term(i, i + 1, soft[i]))
        pos = i + 1
    return out




def _char(text: str, i: int) -> Slot:
    """The slot of one character: its dictionary senses that are no verbs (泡 "to pick up" names no `pickup`), whole values only."""
    alts: dict[tuple[str, ...], bool] = {}
    for phrase, verb in () if text[i] in _FUNCTION_CHARS else zh_dictionary.char_senses(text[i]):
        if verb:
            continue  # 泡 "to pick up" (a girl) is no `pickup`
        seq = tuple(stem(w) for w in split_words(phrase))
        alts[seq] = alts.get(seq, True) and verb
    return Slot(i, i + 1, tuple(alts), "", (), text[i], tuple(alts.values()), exact_only=True)
