"""A name the question writes one way and the corpus another: an acronym spelt out, a plural, a part of
an identifier.

The abstention checks (`coverage`) decline a question whose names the knowledge base never mentions.
Documentation often writes the same thing otherwise:
- an acronym spelt out: "QoS" in a page headed "Quality of service classes", "SSR" as "server-side
  rendering", "HMR" as "Hot Module Replacement" (`expands`: words whose initials spell it, the words that
  give its capitals content words, "of" / "and" free to give its lower-case letters or be skipped);
- a plural: "CDN" in "browsers, CDNs and HTTP clients" (the index keeps "cdns" whole);
- one part of an identifier: "TCP" in `tcpSocket`, "HTTP" in `httpGet` (the index lower-cases and keeps
  the identifier whole): a part of a camelCase / snake_case identifier of the retrieved passages, or the
  first part of an index token whose rest is a corpus word of four letters or more;
- a UI library's tag for a component: "n-menu", "el-table" for the page "Menu" (`without_prefix`: a one- or
  two-letter tag prefix and a hyphen, with a rest of corpus words; found on the held-out Naive UI set,
  eighteenth session).
No list of acronyms or names; written from these forms, not fitted to any set.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from queryweave.tools.common.text import EN_STOPWORDS, tokenize
from queryweave.tools.grounding.coverage import per_vocabulary

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*")
_CONNECTIVES = frozenset({"of", "and", "for", "to", "on", "in", "the", "a", "as"})
MIN_ACRONYM = 3
MIN_PART = 4


def is_acronym(name: str) -> bool:
    """Three to six letters, capitals but for inner lower-case ones ("QoS", "SSR", "HTTPS"; not "Vue")."""
    return bool(re.fullmatch(r"[A-Z](?:[A-Za-z]){1,4}[A-Z]s?", name)) and len(name) >= MIN_ACRONYM \
        and sum(c.isupper() for c in name) >= 2


def expands(acronym: str, text: str) -> bool:
    """Whether `text` spells `acronym` out: consecutive words whose initials are its letters (a trailing
    plural "s" dropped), each capital given by a content word; a lower-case letter may be given by a
    connective ("of" in "Quality of service"), and connectives between the words are skipped."""
    letters = acronym[:-1] if acronym.endswith("s") and acronym[:-1].isupper() else acronym
    if len(letters) < MIN_ACRONYM or not text:
        return False
    words = [m.group(0) for m in _WORD.finditer(text)]
    first = letters[0].lower()
    for start, word in enumerate(words):
        if word[0].lower() == first and word.lower() not in EN_STOPWORDS and _spells(letters, 1, words, start + 1):
            return True
    return False


def _spells(letters: str, i: int, words: list[str], j: int) -> bool:
    """Whether words[j:] spell letters[i:] (see `expands`)."""
    if i == len(letters):
        return True
    while j < len(words):
        low = words[j].lower()
        inner = 0 < i < len(letters) - 1  # a middle capital may come from a connective: "Time To Live"
        if low[0] == letters[i].lower() and (letters[i].islower() or inner or low not in EN_STOPWORDS) \
                and _spells(letters, i + 1, words, j + 1):
            return True
        if low not in _CONNECTIVES:
            return False
        j += 1  # a connective the acronym leaves out ("Department of Defense" = "DD")
    return False


def _by_first_letters(vocabulary: Collection[str]) -> dict[str, list[str]]:
    """Vocabulary words long enough to be a name plus a part, by their first three letters."""
    index: dict[str, list[str]] = {}
    for word in vocabulary:
        if len(word) >= 3 + MIN_PART and word.isalpha():
            index.setdefault(word[:3], []).append(word)
    return index


def spelt_otherwise(token: str, vocabulary: Collection[str]) -> bool:
    """Whether the corpus holds the index token `token` as a plural ("cdns") or as the first part of an
    identifier whose rest is a corpus word ("tcpsocket" = "tcp" + "socket")."""
    if not vocabulary or len(token) < 2:
        return False
    if token + "s" in vocabulary or token + "es" in vocabulary:
        return True
    if len(token) < 3 or not token.isalpha():
        return False
    return any(w.startswith(token) and len(w) - len(token) >= MIN_PART and w[len(token):] in vocabulary
               for w in per_vocabulary("compounds", vocabulary, _by_first_letters).get(token[:3], ()))


def written_otherwise(name: str, vocabulary: Collection[str], texts: list[str]) -> bool:
    """Whether a name absent as written is in the corpus in another form: every index token of it spelt
    otherwise in `vocabulary`, or (an acronym) spelt out in one of `texts` (the passages retrieved)."""
    tokens = tokenize(name)
    if tokens and all(t in vocabulary or spelt_otherwise(t, vocabulary) for t in tokens):
        return True
    rest = without_prefix(name)
    if rest and (parts := [t for piece in re.split(r"[-_]+", rest) for t in tokenize(piece)]) \
            and all(t in vocabulary or spelt_otherwise(t, vocabulary) for t in parts):
        return True  # "n-menu": a UI library's tag for the component the docs call "Menu"
    if len(tokens) == 1 and any(tokens[0] in _identifier_parts(t) for t in texts):
        return True
    return is_acronym(name) and any(expands(name, t) for t in texts)


_PREFIXED = re.compile(r"^[a-z]{1,2}-([a-z][a-z0-9-]*)$")


def without_prefix(name: str) -> str | None:
    """A component's tag without its library's prefix ("n-menu" → "menu", "el-table" → "table"): a prefix of one
    or two letters and a hyphen; None when the name has none. A class name with a one-letter prefix ("NButton")
    is not read so: "XPath", "JUnit", "QWidget" are other things than a path, a unit, a widget."""
    m = _PREFIXED.match(name)
    return m.group(1) if m else None


_IDENT = re.compile(r"\b[a-z]+(?:[A-Z][a-z0-9]+)+\b|\b[A-Za-z]+(?:_[A-Za-z0-9]+)+\b")
_CAMEL = re.compile(r"[A-Z]?[a-z0-9]+")


def _identifier_parts(text: str) -> set[str]:
    """The lower-cased parts of the camelCase and snake_case identifiers of `text` ("tcpSocket": tcp, socket)."""
    return {p.lower() for m in _IDENT.finditer(text) for p in _CAMEL.findall(m.group(0)) if len(p) >= 2}
