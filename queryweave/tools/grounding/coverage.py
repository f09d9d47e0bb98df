"""Names a question is about that the knowledge base never mentions: the honest reason to abstain.

A question that names a product, parameter or project ("Redis", "MySQL", "validationTimeout",
"Kafka 的默认分区数") which occurs nowhere in the indexed corpus cannot be answered from it, however
well some passage matches its other words. `question_names` picks the tokens that are names by their
form alone — no list of known names, nothing fitted:
- in a Chinese question, every Latin-script word (names are written the same in both languages, so
  a Chinese question about an English document still names what the document names);
- in an English question, words capitalised inside the sentence, all-caps words, and identifiers
  (digits, `_`, `.`, inner capitals: `maximumPoolSize`, `max_connections`, `HTTP/2`); a sentence's
  first word only when it is such an identifier.
Words of an example the question gives ("e.g. index.a1b2c3.css", "比如 foo.ts", "zh_CN.ts 这种"), and string literals in its
code (`import './Foo.ts'`: the user's own path), are not names it asks about.
A dotted path is mentioned by a passage that holds all its parts ("markdown.image" by `markdown: { image: … }`).
`missing_names(question, knows)` keeps those for which `knows(name)` (every index token of the name
occurs in the corpus) is false; `unsupported_names(question, passages)` those that no passage of an
answer's evidence mentions; `unsupported_identifiers` the setting / function names among those (one
of them absent is enough to decline: it is the precise thing asked); `unknown_names` the absent names
that are no misspelling of a corpus word (one of them is enough: the corpus has never seen the thing),
counted only in the sentences that ask (`asking_text`), not in those that tell the asker's setting;
the answer's node applies every check of this module to those sentences only.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Collection

from queryweave.tools.common.text import EN_STOPWORDS, detect_language, tokenize

_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9_.+#/-]*[A-Za-z0-9+#]|[A-Za-z]")
_IDENTIFIER = re.compile(r"[0-9_.]|[a-z][A-Z]")
_LATIN_ABBREVIATION = re.compile(r"[a-z](?:\.[a-z])+")  # "e.g", "i.e", "a.k.a": writing, not names ("D.P." stays)
# an example the question gives, to the end of its clause: "(e.g. index.a1b2c3.css)", "比如 foo.ts，"
_EXAMPLE = re.compile(r"(?:\be\.\s?g\.|\bfor (?:example|instance)\b|比如|例如|譬如)[^)）,，;；?？。!！]*", re.I)
# names the question gives as a kind, before "这种" / "这类" / "之类": "命名成 zh_CN.ts、en_US.ts 这种下划线的形式"
_EXAMPLE_BEFORE = re.compile(r"`?[A-Za-z][\w.+#/-]*`?(?:\s*[、,，/和与及或]\s*`?[A-Za-z][\w.+#/-]*`?)*\s*(?=这种|这类|这样的?|之类)")
_CODE = re.compile(r"`[^`\n]+`")
_LITERAL = re.compile(r"'[^'`\n]+'|\"[^\"`\n]+\"")  # a string literal inside a code span
_SENTENCE_START = re.compile(r"(?:^|[.?!。？！]\s*)$")
# Capitalised words that are sentence furniture, not names (question words, pronouns, "I").
_NOT_NAMES = {"i", "what", "which", "who", "whom", "whose", "when", "where", "why", "how", "is", "are", "does",
              "do", "can", "could", "should", "would", "will", "the", "a", "an", "and", "or", "in", "on", "for",
              "ok"}  # "Why isn't it OK to …": a word written in capitals, not a name


def question_names(question: str) -> list[str]:
    """The words of the question that are names by their form (order kept, no duplicates)."""
    zh = detect_language(question) == "zh"
    out: list[str] = []
    examples = [range(*m.span()) for pattern in (_EXAMPLE, _EXAMPLE_BEFORE) for m in pattern.finditer(question)]
    examples += [range(code.start() + m.start(), code.start() + m.end())  # `import './Foo.ts'`: the user's own path
                 for code in _CODE.finditer(question) for m in _LITERAL.finditer(code.group(0))]
    for m in _TOKEN.finditer(question):
        if any(m.start() in span for span in examples):
            continue  # an example the user gives ("file names (e.g. index.a1b2c3.css)") is not what is asked
        word = re.sub(r"(?:'s|’s)$", "", m.group(0)).rstrip(".-/")
        if len(word) < 2 or word.lower() in _NOT_NAMES or _LATIN_ABBREVIATION.fullmatch(word):
            continue
        if zh:
            out.append(word)
            continue
        identifier = bool(_IDENTIFIER.search(word)) or (word.isupper() and len(word) >= 2)
        at_start = bool(_SENTENCE_START.search(question[: m.start()]))
        capitalised = word[0].isupper() and word.lower() not in EN_STOPWORDS
        if identifier or (capitalised and not at_start):
            out.append(word)
    return list(dict.fromkeys(out))


_SENTENCES = re.compile(r"(?<=[.?!])\s+|(?<=[。？！])")
_NO_END = re.compile(r"(?:\be\.\s?g|\bi\.\s?e|\betc|\bvs|\bcf|\bapprox)\.$", re.I)


def _sentences(text: str) -> list[str]:
    """Sentences of a question; "e.g." / "i.e." and a point inside parentheses end none ("output file names
    (e.g. index.a1b2c3.css) unless I change it?" is one sentence)."""
    out, start = [], 0
    for m in _SENTENCES.finditer(text):
        before = text[start:m.start()]
        if _NO_END.search(before) or before.count("(") + before.count("（") > before.count(")") + before.count("）"):
            continue
        out.append(before)
        start = m.end()
    return [s.strip() for s in [*out, text[start:]] if s.strip()]


def asking_text(question: str) -> str:
    """The sentences of `question` that ask (end with a question mark), else its last sentence: "I run it
    in a Docker container with polling on. How often does it poll?" asks only the second. What the
    sentences before tell is the asker's setting (their container, their LAN, their file names)."""
    sentences = _sentences(question.strip())
    asking = [s for s in sentences if s.endswith(("?", "？"))]
    return " ".join(asking) if asking else (sentences[-1] if sentences else question)


def missing_names(question: str, knows: Callable[[str], bool]) -> list[str]:
    """Names of the question that the corpus never mentions."""
    return [name for name in question_names(question) if not knows(name)]


def decisive(absent: list[str], question: str) -> bool:
    """Whether the absent names are most of what the question names (more than half of its names).

    A short technical question names one or two things ("MySQL", "Redis 的持久化"): one of them absent
    is the question itself. A long question names many ("the German musician … BWV 1033 …"), and one
    of them missing from the passages, misspelt, or written otherwise, is no reason to decline."""
    return bool(absent) and 2 * len(absent) > len(question_names(question))


MIN_FUZZY_LENGTH = 5
_JOINS = re.compile(r"[-./_]+")
_RUN = re.compile(r"[^\W_]{3,}")
_CACHE: dict[tuple[str, int, int], object] = {}


def per_vocabulary(kind: str, vocabulary: Collection[str], build: Callable[[Collection[str]], object]) -> object:
    """`build(vocabulary)` computed once per vocabulary (an index's token dict) and `kind`; the last few kept."""
    key = (kind, id(vocabulary), len(vocabulary))
    if key not in _CACHE:
        if len(_CACHE) >= 12:
            _CACHE.clear()
        _CACHE[key] = build(vocabulary)
    return _CACHE[key]


def _buckets(vocabulary: Collection[str]) -> dict[tuple[str, int], list[str]]:
    out: dict[tuple[str, int], list[str]] = {}
    for word in vocabulary:
        out.setdefault((word[:1], len(word)), []).append(word)
    return out


def _near_spellings(token: str, vocabulary: Collection[str]) -> list[str]:
    """The vocabulary words that could be within difflib ratio 0.8 of `token` and share its first letter
    (a ratio of 0.8 needs lengths within 2:3; misspellings rarely touch the first letter): a handful
    instead of the whole vocabulary, from length buckets built once per vocabulary."""
    buckets = per_vocabulary("buckets", vocabulary, _buckets)
    n = len(token)
    return [w for size in range(-(-2 * n // 3), 3 * n // 2 + 1) for w in buckets.get((token[:1], size), ())]


def _parts_of(vocabulary: Collection[str]) -> set[str]:
    """The parts of the vocabulary's compound tokens ("tsconfig.node.json", "typescriptlang.org/tsconfig#x"
    hold "tsconfig"), built once per vocabulary: a name written inside a file name, a URL or a dotted path
    is one the corpus has seen."""
    return per_vocabulary("parts", vocabulary, lambda v: {
        p for word in v if _JOINS.search(word) or "#" in word for piece in re.split(r"[-./_#:]+", word)
        for p in tokenize(piece)})


def unknown_names(absent: list[str], vocabulary: Collection[str]) -> list[str]:
    """The absent names (`missing_names`) that the corpus has never seen in any spelling: a token of the
    name is not in `vocabulary` (the BM25 index's tokens), holds a run of three letters or digits
    (initials such as "D.P." are written too many ways to check), and, when it has five characters or
    more, has no close match in the vocabulary (difflib ratio >= 0.8 among the words of its first
    letter and the same numbers: "Brittish" is "British", "Gothais" is "Gotha", but "ES2024" is no "ES2023"). One such name is enough to decline,
    however many names the question has: the thing it asks about ("TCP port", "HPA", "generation-0
    threshold") is not in the knowledge base. A compound name whose parts are all corpus words, each
    with a run of three letters or digits ("base64-inlined", ".env.staging"), is known words joined
    anew (the corpus writes "inlined as base64", ".env.[mode]"): not unknown; nor is a name the corpus
    writes only inside a compound token ("tsconfig" in "tsconfig.node.json").
    Found by studying the sample set's unanswered questions; no list, nothing fitted. Without a
    vocabulary nothing is unknown (the majority rule `decisive` still applies)."""
    if not vocabulary:
        return []
    out = []
    for name in absent:
        parts = [t for piece in _JOINS.split(name) for t in tokenize(piece)]
        if len(parts) > 1 and all(p in vocabulary and _RUN.search(p) for p in parts):
            continue  # known words joined anew ("base64-inlined", ".env.staging"): not an unseen thing
        for token in tokenize(name):
            if token in vocabulary or not _RUN.search(token) or token in _parts_of(vocabulary):
                continue
            digits = re.findall(r"\d+", token)  # another number is another thing: "es2024" is no misspelt "es2023"
            near = [w for w in _near_spellings(token, vocabulary) if re.findall(r"\d+", w) == digits]
            if len(token) >= MIN_FUZZY_LENGTH and difflib.get_close_matches(token, near, n=1, cutoff=0.8):
                continue
            out.append(name)
            break
    return out


def _mentions(name: str, texts: list[set[str]]) -> bool:
    """Whether one of the passages (as token sets) mentions the name: all its tokens, or for a dotted
    path all its parts ("markdown.image" in a page that writes `markdown: { image: { … } }`)."""
    tokens = set(tokenize(name))
    parts = {t for piece in re.split(r"[./:#]+", name) if len(piece) > 1 for t in tokenize(piece)}
    return not tokens or any(tokens <= t or (len(parts) > 1 and parts <= t) for t in texts)


def unsupported_names(question: str, passages: list[str]) -> list[str]:
    """Names of the question that none of `passages` (the answer's evidence) mentions: an answer drawn
    from pages about something else ("MySQL's default" answered from a PostgreSQL page)."""
    texts = [set(tokenize(p)) for p in passages]
    return [name for name in question_names(question) if not _mentions(name, texts)]


_SETTING = re.compile(r"_|^[a-z]+[A-Z]|[A-Za-z][a-z0-9]+\.[a-z_][A-Za-z0-9_]+")


def unsupported_identifiers(question: str, passages: list[str]) -> list[str]:
    """Identifiers the question asks about (`max_connections`, `keepaliveTime`, `asyncio.gather`: a `_`,
    a lower-case start with an inner capital, or a dotted path; product names such as "HikariCP" are
    not identifiers) that no passage of the evidence mentions. An answer that never names the setting
    or function asked about is about another one ("keepaliveTime" answered with maxLifetime's row)."""
    texts = [set(tokenize(p)) for p in passages]
    return [name for name in setting_names(question) if not _mentions(name, texts)]


def setting_names(question: str) -> list[str]:
    """The question's names that are settings or functions (`max_connections`, `keepaliveTime`,
    `fs.inotify.max_user_watches`), not product names ("HikariCP")."""
    return [name for name in question_names(question) if _SETTING.search(name)]
