"""Find a schema's declared values in a question without alias lists (English and Chinese).

A declared value ("api_reference", "object-storage", "HowToGuide", "zh") is matched through
  - tokenisation: `snake_case`, kebab-case, camelCase and spacing are all word boundaries, and
    compounds match closed or open ("whitepaper" for `white_paper`, "white papers" for `whitepaper`,
    "quickstart" for `quick_start`);
  - inflection: words are compared as Snowball stems ("tutorials" = "tutorial", "deploying" =
    "deployment"), and a clipped word ("docs", "ref") matches the word it starts (`documentation`);
  - language: Chinese words are put into English, longest match first, with the value glossary
    (`zh_segments`: curated general vocabulary of metadata), the terms the schema's own bilingual
    descriptions pair up (`parallel_terms`: "manuals, guides. 手册、指南。"), and for the rest a
    general dictionary (`zh_dictionary`, CC-CEDICT: 管理员 "administrator", 有声书 "audiobook"; a
    sense that was a verb, "to use", names no participle value such as `used`); ISO 639-1 codes
    are matched by the language's names in both languages ("Japanese", "日文" -> `ja`); and, when
    an embedding function is given and `MatchSettings.embedding` is set, a phrase of the question
    whose multilingual embedding is close enough to a value's words names it (relative to the
    value's mean cosine with the question's other phrases, and `margin` above the runner-up);
  - aliases, when the schema declares them, as further spellings of the value (optional).
A match of all the value's content words scores 1.0, of some of them their share (`Kubernetes` for
`kubernetes-service`: 0.5), or half-way to 1.0 when the part is the value's head word and no other
value of the field has it ("manuals" for `user_manual`: 0.75, "guides" among three `*_guide`: 0.33);
accepted at `MatchSettings.partial`; the thresholds are chosen by cross-validation
(`bench/bench_self_query.py`). Values that have aliases are matched by their
declared spellings only (plural-normalised: no stems, parts or embeddings). Where hits overlap, the better (then longer) wins,
and a field with a complete match drops its partial ones.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from queryweave.tools.common.text import EN_STOPWORDS, ZH_STOPWORDS
from queryweave.tools.retrieval.self_query_slots import LATIN, Glossary, Slot, question_slots
from queryweave.tools.retrieval.self_query_words import (
    KIND_NOUNS,
    abbreviation,
    clipped,
    clipped_compound,
    compound_head,
    demonym,
    numeronym,
    part_share,
    participle,
    plural,
    split_words,
    stem,
)
from queryweave.tools.understanding import zh_dictionary
from queryweave.tools.understanding.value_glossary import LANGUAGES, language_names

Embed = Callable[[list[str]], Sequence[Sequence[float]]]
_KINDS = frozenset(stem(w) for w in KIND_NOUNS)
_FREE_OF = re.compile(r"(?:\b(?:without|no|not?\s+any)\s+(?:an?\s+)?|不含|没有|无|不[\u3400-\u9fff]?)$", re.I)  # "without X": `X_free`
_NEGATIVE = frozenset({"no", "non", "not", "without"})  # a value word that is no function word (`no_certificate`)
_CJK = re.compile(r"[\u3400-\u9fff]")
_ADJECTIVE_ENDINGS = ("al", "ic", "ous", "y", "ern")  # a noun's adjective: coast -> coastal, rock -> rocky


@dataclass(frozen=True)
class MatchSettings:
    """Acceptance thresholds: the share of a value's content words a partial match must spell (a
    value's head word that no other value of the field has scores half-way to 1.0); the embedding
    score (None: no embedding matching) and the margin by which the best value must beat the field's
    runner-up; `relative` scores a value's cosine against its mean cosine with the question's other
    phrases (a "hub" value close to everything scores low); `chinese_only` lets embeddings read
    Chinese phrases only. The defaults are what cross-validation by schema chose (`bench/bench_self_query.py`,
    2026-12-02, round 5, sixteen labelled sets: every held-out schema's fold chose a relative embedding
    score of 0.06 with margin 0.03, +17 / −5 queries of 640 against embeddings off; in round 4, with
    twelve sets, it was a tie and stayed off; 2026-12-05, twenty-eight sets: every fold chose to read only
    Chinese phrases by embeddings, +2 en / +1 zh of 600 each, so that is the default now); the embedding part
    applies only when an embedding function
    is given (the knowledge base's model). `dictionary` and `descriptions` switch the two general
    sources of Chinese words off (ablations; they are mechanisms, not tuned)."""

    partial: float = 0.67
    embedding: float | None = 0.06
    margin: float = 0.03
    relative: bool = True
    chinese_only: bool = True  # 2026-12-05: every fold of 28 chose it (English phrases read lexically only)
    dictionary: bool = True  # Chinese words the glossary lacks are read with CC-CEDICT (`zh_dictionary`)
    descriptions: bool = True  # terms the schema's bilingual descriptions pair up (`parallel_terms`)


@dataclass(frozen=True)
class ValueHit:
    """A declared value found at [start, end) of the question, with its score and how it was found."""

    field: str
    value: str
    start: int
    end: int
    score: float
    kind: str  # exact | partial | alias | embedding | abbreviation | derived (a synonym, a name's adjective)


def _is_language_field(values: Sequence[str]) -> bool:
    return bool(values) and sum(v.lower() in LANGUAGES for v in values) * 2 >= len(values)


@lru_cache(maxsize=512)
def _forms(value: str, aliases: tuple[str, ...], language: bool) -> tuple[tuple[tuple[str, ...], str], ...]:
    """(word sequence, kind) for each spelling of a value; Chinese spellings are kept as raw text.
    Words are stems, or only plural-normalised when the value has declared aliases (the user has
    said how it is written, so "documents" is not `documentation`)."""
    norm = plural if aliases else stem
    out: dict[tuple[str, ...], str] = {}
    words = split_words(value)
    spellings = [(" ".join(words), "exact"), ("".join(words), "exact")]
    if language and not aliases:
        spellings += [(n, "exact") for n in language_names(value)]
    spellings += [(a, "alias") for a in aliases]
    for text, kind in spellings:
        if _CJK.search(text):
            out.setdefault(("\0" + text,), kind)
        elif text:
            out.setdefault(tuple(norm(w) for w in split_words(text)), kind)
    return tuple(out.items())


def _content(seq: tuple[str, ...]) -> list[int]:
    return [i for i, w in enumerate(seq) if w not in EN_STOPWORDS or w in _NEGATIVE] or list(range(len(seq)))


def _consume(slots: Sequence[Slot], i: int, seq: tuple[str, ...], light: bool = False,
             raws: tuple[str, ...] = ()) -> int | None:
    """Index after the slots from `i` that spell `seq` exactly, or None. `raws`, the value's words
    aligned with `seq` (when known), keep a verb sense from spelling a participle ("used")."""
    if not seq:
        return i
    if i >= len(slots):
        return None
    alts = slots[i].lights if light else slots[i].alts
    for k_alt, alt in enumerate(alts):
        if not light and slots[i].verbs and slots[i].verbs[k_alt] and any(map(participle, raws[:len(alt)])):
            continue
        if alt and tuple(seq[:len(alt)]) == alt:
            end = _consume(slots, i + 1, seq[len(alt):], light, raws[len(alt):])
            if end is not None:
                return end
        # a closed compound for an open one: "quickstart" spells `quick_start`
        for k in range(2, len(seq) + 1) if len(alt) == 1 else ():
            if "".join(seq[:k]) == alt[0]:
                end = _consume(slots, i + 1, seq[k:], light, raws[k:])
                if end is not None:
                    return end
        if len(alt) > 1 and stem("".join(alt)) == seq[0]:  # a sense written open: 夜生活 "night life"
            end = _consume(slots, i + 1, seq[1:], light, raws[1:])
            if end is not None:
                return end
    # an open compound for a closed one: "white papers" spells `whitepaper`
    if i + 1 < len(slots) and slots[i].raw and slots[i + 1].raw and slots[i + 1].start - slots[i].end <= 1:
        norm = plural if light else stem
        if norm(slots[i].raw + slots[i + 1].raw) == seq[0]:
            return _consume(slots, i + 2, seq[1:], light, raws[1:])
    return None


def lexical_hits(text: str, field: str, values: Sequence[str],
                 aliases: dict[str, tuple[str, ...]] | None = None, glossary: Glossary = (),
                 dictionary: bool = False, domain: frozenset[str] = frozenset()) -> list[ValueHit]:
    """Every exact, alias and partial match of the field's values in `text` (not yet resolved).
    `domain`: stems of the words that name the whole collection (its `document_contents`)."""
    slots, hits = question_slots(text, glossary, dictionary), []
    language = _is_language_field(values)
    owners = Counter(w for v in values for w in {stem(x) for x in split_words(v)})  # values per word
    for w in {stem(x) for x in split_words(field)}:  # the field's own noun is every value's ("trips": any `trip_type`)
        owners[w] += len(values)
    for value in values:
        words = [w.lower() for w in split_words(value)]
        for seq, kind in _forms(value, tuple((aliases or {}).get(value, ())), language):
            if seq[0].startswith("\0"):
                for m in re.finditer(re.escape(seq[0][1:]), text):
                    hits.append(ValueHit(field, value, m.start(), m.end(), 1.0, kind))
                continue
            content = _content(seq)
            loose = value not in (aliases or {})  # declared spellings replace guessing from parts
            raws = tuple(words) if len(words) == len(seq) else ()
            for i in range(len(slots)):
                end = _consume(slots, i, seq, not loose, raws)
                if end is not None:
                    hits.append(ValueHit(field, value, slots[i].start, slots[end - 1].end, 1.0, kind))
                    continue
                # partial: this slot spells some of the value's content words, in order
                for k_alt, alt in enumerate(slots[i].alts if loose and not slots[i].exact_only else ()):
                    verb = bool(slots[i].verbs) and slots[i].verbs[k_alt]
                    # a sense of several words also stands for its head ("annual leave", "medical insurance"),
                    # which names the value only where the head or distinctive-word rule says so
                    for part, whole in ((alt, True), (alt[-1:], False)) if len(alt) > 1 else ((alt, True),):
                        share = part_share(seq, content, owners, part, whole, raws if verb else ())
                        if share is not None and share < 1 and len(content) > 1 \
                                and part == tuple(seq[k] for k in content[:-1]) \
                                and i + 1 < len(slots) and _names_collection(slots[i + 1], domain - set(owners)):
                            share = (1 + share) / 2  # "onboarding docs": the collection's noun for the head
                        if share is not None:
                            hits.append(ValueHit(field, value, slots[i].start, slots[i].end, share, "partial"))
                            break
                if loose and kind == "exact" and not slots[i].exact_only:
                    hits += _other_forms(text, slots[i], field, values, value, seq, words, content, domain)
                if loose and kind == "exact" and slots[i].raw and len(words) == len(seq) \
                        and slots[i].raw not in EN_STOPWORDS:  # "can" is no clipped "canon"
                    for w in words:
                        if clipped(slots[i].raw, w):
                            share = 1 / len(content)
                            hits.append(ValueHit(field, value, slots[i].start, slots[i].end, share, "partial"))
    return hits


def _names_collection(slot: Slot, domain: frozenset[str]) -> bool:
    """The slot is a word the schema's `document_contents` calls its items by ("documents", "docs",
    文档 "documentation"), which may stand in for a value's head ("onboarding docs" for
    `onboarding_checklist`); a word of the field's values is no such stand-in (规定 "policy" among
    `*_policy` values)."""
    stems = {alt[0] for alt in slot.alts if len(alt) == 1}
    return bool(stems & domain) or any(clipped(slot.raw, w) for w in domain if slot.raw)


def _other_forms(text: str, slot: Slot, field: str, values: Sequence[str], value: str, seq: tuple[str, ...],
                 words: list[str], content: list[int], domain: frozenset[str] = frozenset()) -> list[ValueHit]:
    """Hits of one slot by the value's other forms: an abbreviation ("APAC"), the head of a closed
    compound (English compounds are right-headed: "phones" for `smartphone`, 手机 "mobile phone" too),
    a sense that names the value followed by the field's name or a kind noun (亚太区 "Asia Pacific
    region" in the field `region`, 日式 "Japanese style"), a name for its adjective (意大利
    "Italy" for `italian`, 韩国 "South Korea" for `korean`, at 0.75), an English synonym through the dictionary's Chinese
    (`zh_dictionary.english_synonyms`: "fall" for `autumn`, at 0.75), and "without X" for `X_free`
    or `no_X` (不含乳制品 "dairy products", 不发证书 "certificate"). A head that names the whole collection ("book" in a library) picks no value."""
    out = []
    if slot.raw and (abbreviation(text[slot.start:slot.end], [w for w in words if w.isalpha()])
                     or (len(words) == 1 and numeronym(slot.raw, words[0]))):  # "APAC", "k8s"
        out.append(ValueHit(field, value, slot.start, slot.end, 1.0, "abbreviation"))
    if len(words) == 1 and 2 <= len(words[0]) <= 4 and words[0].isalpha() and any(
            len(alt) == len(words[0]) and "".join(w[0] for w in alt) == words[0].lower() for alt in slot.alts):
        out.append(ValueHit(field, value, slot.start, slot.end, 1.0, "abbreviation"))  # 惠普 "Hewlett-Packard": `hp`
    joined = re.match(r"[A-Za-z]+(?:-[A-Za-z]+)+", text[slot.start:]) if slot.raw else None
    if joined and (slot.start == 0 or not text[slot.start - 1].isalnum()) and clipped_compound(joined.group(0), words):
        out.append(ValueHit(field, value, slot.start, slot.start + joined.end(), 1.0, "abbreviation"))  # "sci-fi"
    field_words = {stem(w) for w in split_words(field)} | _KINDS | domain  # 摇滚乐 "rock music" in a music catalogue
    for alt in slot.alts:
        if len(alt) > len(seq) and alt[:len(seq)] == seq and set(alt[len(seq):]) <= field_words:
            out.append(ValueHit(field, value, slot.start, slot.end, 1.0, "exact"))
    rest = seq[:-1] if words[-1] == "free" else seq[1:] if words[0] in _NEGATIVE else ()
    cue = _FREE_OF.search(text[:slot.start]) if len(seq) > 1 and rest else None
    if cue and any(alt[:len(rest)] == rest for alt in slot.alts):  # 不含乳制品 "dairy products": `dairy_free`
        out.append(ValueHit(field, value, cue.start(), slot.end, 1.0, "exact"))
    if len(words) == 1 and slot.raw and words[0] in zh_dictionary.english_synonyms(plural(slot.raw)):
        out.append(ValueHit(field, value, slot.start, slot.end, 0.75, "derived"))  # "fall" for `autumn`
    if len(words) == 1 and any(len(alt) <= 2 and demonym(alt[-1], words[0]) for alt in slot.alts if alt):
        out.append(ValueHit(field, value, slot.start, slot.end, 0.75, "derived"))  # 意大利 "Italy": `italian`
    elif len(words) == 1 and slot.raw and slot.raw not in EN_STOPWORDS and demonym(words[0].lower(), slot.raw):
        out.append(ValueHit(field, value, slot.start, slot.end, 0.75, "derived"))  # "German" for `germany`
    elif len(words) == 1 and any(len(alt) == 1 and len(alt[0]) >= 4 and words[0].lower() in {
            alt[0] + e for e in _ADJECTIVE_ENDINGS} for alt in slot.alts):
        out.append(ValueHit(field, value, slot.start, slot.end, 0.75, "derived"))  # 海边 "coast" for `coastal`
    if len(words) == len(seq) and content:
        last = words[content[-1]]
        heads = {alt[-1] for alt in slot.alts if alt and len(alt[-1]) >= 4 and alt[-1] not in domain}
        for head in heads:
            if compound_head(head, last) and sum(compound_head(head, w.lower()) for v in values
                                                  for w in split_words(v)) == 1:
                out.append(ValueHit(field, value, slot.start, slot.end, 0.75, "partial"))
                break
    return out


def _phrases(text: str, covered: list[tuple[int, int]], size: int = 3) -> list[tuple[int, int, str]]:
    """Runs of up to `size` content slots not covered by a lexical hit: (start, end, text)."""
    slots = [s for s in question_slots(text, (), False) if not any(a < s.end and s.start < b for a, b in covered)]
    slots = [s for s in slots if not (s.raw in EN_STOPWORDS or s.raw.isdigit() or s.zh in ZH_STOPWORDS)]
    out = []
    for i in range(len(slots)):
        for j in range(i, min(i + size, len(slots))):
            if j > i and slots[j].start - slots[j - 1].end > 2:
                break
            out.append((slots[i].start, slots[j].end, text[slots[i].start:slots[j].end]))
    return out


@lru_cache(maxsize=8192)
def _vector(embed: Embed, text: str) -> tuple[float, ...]:
    vec = [float(x) for x in embed([text])[0]]
    norm = sum(x * x for x in vec) ** 0.5 or 1.0
    return tuple(x / norm for x in vec)


@lru_cache(maxsize=16384)
def _ranked(embed: Embed, phrase: str, names: tuple[tuple[str, tuple[str, ...]], ...]) -> tuple[tuple[float, str], ...]:
    """(cosine, value) of a phrase against each value's names, best first (cached: thresholds vary, texts not)."""
    q = _vector(embed, phrase)
    scores = [(max(sum(a * b for a, b in zip(q, _vector(embed, n), strict=True)) for n in ns), v) for v, ns in names]
    return tuple(sorted(scores, reverse=True))


def embedding_hits(text: str, field: str, values: Sequence[str], embed: Embed, settings: MatchSettings,
                   covered: list[tuple[int, int]]) -> list[ValueHit]:
    """Phrases of `text` whose embedding is close to one value's words, and clearly closer than to the
    field's other values. With `settings.relative`, a value's cosine is taken relative to its mean
    cosine with the question's other phrases (a "hub" value that is close to everything scores low)."""
    if settings.embedding is None or len(values) < 2:
        return []
    language = _is_language_field(values)
    names = tuple((v, (" ".join(split_words(v)), *(language_names(v)[:1] if language else ()))) for v in values)
    phrases = _phrases(text, covered)
    sims = [{v: c for c, v in _ranked(embed, phrase, names)} for _, _, phrase in phrases]
    out = []
    for k, (start, end, phrase) in enumerate(phrases):
        if settings.chinese_only and (LATIN.search(phrase) or not _CJK.search(phrase)):
            continue  # the other phrases still set the reference of relative scores
        scores = dict(sims[k])
        others = [sims[j] for j in range(len(phrases)) if j != k
                  and not (phrases[j][0] < end and start < phrases[j][1])]  # phrases that do not overlap this one
        if settings.relative:
            if not others:
                continue
            scores = {v: c - sum(o[v] for o in others) / len(others) for v, c in scores.items()}
        (best, value), (second, _) = sorted(((c, v) for v, c in scores.items()), reverse=True)[:2]
        if best >= settings.embedding and best - second >= settings.margin:
            out.append(ValueHit(field, value, start, end, best, "embedding"))
    return out


_COORDINATED = re.compile(r"^\s*(?:,|，|、|/|or|and|和|或者?|与|及)\s*$", re.I)


def resolve(hits: list[ValueHit], settings: MatchSettings, text: str = "") -> list[ValueHit]:
    """Accepted hits: above the thresholds; of overlapping hits of one field the better (then longer);
    of another field's only a better one; a field with a complete match keeps no partial one, unless the
    two are coordinated in `text` ("engineering or data science": `software_engineering`, `data_science`)."""
    kept = [h for h in hits if h.kind != "partial" or h.score >= settings.partial]
    full = [h for h in kept if h.kind in {"exact", "alias"}]

    def coordinated(h: ValueHit) -> bool:
        return any(o.field == h.field and o.value != h.value and _COORDINATED.match(
            text[h.end:o.start] if h.end <= o.start else text[o.end:h.start]) for o in full)

    kept = [h for h in kept if not (h.kind in {"partial", "embedding"} and h.field in {f.field for f in full}
                                    and not (h.kind == "partial" and coordinated(h)))]
    rank = sorted(kept, key=lambda h: (-min(h.score, 1.0), h.kind == "embedding", -(h.end - h.start), h.start))
    out: list[ValueHit] = []
    for h in rank:
        clash = [o for o in out if o.start < h.end and h.start < o.end]
        if any(o.field == h.field or o.score > h.score for o in clash):  # other fields: only a better hit
            continue
        out.append(h)
    return sorted(out, key=lambda h: h.start)


def match_values(text: str, fields: Sequence[tuple[str, Sequence[str], dict[str, tuple[str, ...]]]],
                 embed: Embed | None = None, settings: MatchSettings | None = None,
                 glossary: dict[str, tuple[str, ...]] | None = None, domain: str = "") -> list[ValueHit]:
    """Declared values named in `text`, over all `(field, values, aliases)` given, resolved.
    `glossary` adds Chinese terms of this schema (`value_glossary.parallel_terms` of its descriptions);
    `domain` is the text that says what the collection is (the schema's `document_contents`)."""
    settings = settings or MatchSettings()
    terms = tuple(sorted((glossary or {}).items()))
    names = frozenset(stem(w) for w in LATIN.findall(domain))
    lexical = [h for name, values, aliases in fields
               for h in lexical_hits(text, name, values, aliases, terms, settings.dictionary, names)]
    hits = list(lexical)
    if embed is not None and settings.embedding is not None:
        covered = [(h.start, h.end) for h in resolve(lexical, settings, text)]
        for name, values, aliases in fields:  # declared spellings replace guessing (as for partial hits)
            free = [v for v in values if v not in (aliases or {})]
            hits += embedding_hits(text, name, free, embed, settings, covered) if len(free) == len(values) else []
    return resolve(hits, settings, text)


def named_value(text: str, values: Sequence[str], field: str = "value", limit: int = 500,
                max_chars: int = 200) -> str | None:
    """The one value of `values` that `text` names whole — its spelling, an inflection, or Chinese read
    through the glossary and CC-CEDICT ("客户评论" -> 'Customer reviews', "书本" -> 'Book') — else None.
    Lexical only: no embeddings, no threshold to choose; a partial match or two values named is None.
    For fields of at most `limit` values (a stored column's distinct values, e.g. `tools.sql.value_map`) and
    texts of at most `max_chars` (a literal that long names no category; the matcher's cost grows with both)."""
    if not text.strip() or len(text) > max_chars or not values or len(values) > limit:
        return None
    hits = match_values(text, [(field, list(values), {})])
    named = {h.value for h in hits}
    if len(named) == 1 and all(h.score >= 1.0 and h.kind in {"exact", "alias", "derived"} for h in hits):
        return named.pop()
    return None
