"""Claims of an answer: sentence splitting that respects abbreviations, then clauses.

Knows nothing of the graph. Chinese clauses are cut at `；` and at commas before conjunctions
(而且, 但是, 同时…); English ones at `;` and before coordinating conjunctions that start a new
clause. Checkable facts inside a claim (numbers, entities, negation) live in `tools.grounding.facts`.
"""

from __future__ import annotations

import re

from queryweave.tools.common.text import detect_language, split_sentences

# -- claims ---------------------------------------------------------------------------------------

_EN_CLAUSE = re.compile(
    r"\s*;\s*|,\s+(?=(?:and|but|while|whereas|yet|so|although|though|however)\b)"
    r"|\s+(?=(?:but|whereas|while)\s)",
    re.IGNORECASE,
)
_EN_AND = re.compile(r"\s+(?=and\s)", re.IGNORECASE)
_ZH_CLAUSE = re.compile(
    r"[；;]|[，,](?=(?:而且|并且|但是|但|然而|同时|此外|另外|而|并|且|不过|因此|所以|其中)|[^，,]{0,2}表示)"
)
_LEAD_CONJ = re.compile(r"^(?:and|but|while|whereas|yet|so|although|though|however),?\s+", re.IGNORECASE)
_EN_SUBJECT_START = re.compile(
    r"^(?:and\s+)(?:he|she|it|they|we|i|you|the|this|that|these|those|[A-Z][a-z]+)\b"
)


def _latin_words(text: str) -> int:
    return len(re.findall(r"[A-Za-z0-9]+", text))


def _cjk_chars(text: str) -> int:
    return len(re.findall(r"[\u3400-\u4dbf\u4e00-\u9fff]", text))


def _size(text: str) -> int:
    """Rough content size: Latin words plus CJK characters / 2."""
    return _latin_words(text) + _cjk_chars(text) // 2


def _pieces(text: str, cuts: list[tuple[int, int]], min_size: int) -> list[str]:
    """Cut `text` at the (start, end) spans `cuts`; a piece too small to stand alone stays joined
    to its neighbour, with the original text between them."""
    spans: list[list[int]] = []
    pos = 0
    for a, b in sorted(cuts):
        if a < pos:
            continue
        spans.append([pos, a])
        pos = b
    spans.append([pos, len(text)])
    merged: list[list[int]] = []
    for span in spans:
        piece = text[span[0] : span[1]]
        if not piece.strip(" ,，"):
            continue
        if merged and (_size(piece) < min_size or _size(text[merged[-1][0] : merged[-1][1]]) < min_size):
            merged[-1][1] = span[1]
        else:
            merged.append(span)
    return [text[a:b].strip(" ,，") for a, b in merged]


def _split_en(sentence: str) -> list[str]:
    cuts = [m.span() for m in _EN_CLAUSE.finditer(sentence)]
    for m in _EN_AND.finditer(sentence):  # a bare " and " cuts only before a new subject
        before, after = sentence[: m.start()], sentence[m.end() :]
        if _EN_SUBJECT_START.match(after) and _latin_words(before) >= 4 and _latin_words(after) >= 5:
            cuts.append(m.span())
    return [_LEAD_CONJ.sub("", p) for p in _pieces(sentence, cuts, 3)]


def _split_zh(sentence: str) -> list[str]:
    return _pieces(sentence, [m.span() for m in _ZH_CLAUSE.finditer(sentence)], 4)


_ABBREV = re.compile(r"\b(?:[A-Z]\.){1,3}(?=\s+[A-Z])|\b(?:Mr|Mrs|Ms|Dr|St|Jr|Sr|No|Lt|Col|Gen|Sen|Rep|Gov|"
                     r"Prof|Inc|Co|Corp|vs|Sgt|Capt|Mt|Ft)\.(?=\s)")
_DOT = "\u2024"  # one-dot leader: stands in for an abbreviation's dot while splitting


def sentences(text: str) -> list[str]:
    """`split_sentences` that does not cut after abbreviations ("U.S. Consulate", "Mr. Smith")."""
    protected = _ABBREV.sub(lambda m: m.group(0).replace(".", _DOT), text or "")
    return [s.replace(_DOT, ".") for s in split_sentences(protected)]


def split_claims(text: str) -> list[str]:
    """Split an answer into atomic-ish claims: sentences, then clauses joined by and/but/；/，而且….

    Pieces too short to state anything alone are merged back into their neighbour; claims without
    any word are dropped. Works on Chinese, English and mixed text.
    """
    claims: list[str] = []
    for sent in sentences(text):
        for line in sent.split("\n"):
            line = re.sub(r"^\s*(?:[-*•]|\d+[.)、])\s+", "", line).strip()
            if not line:
                continue
            pieces = _split_zh(line) if detect_language(line) == "zh" else _split_en(line)
            claims.extend(p.strip() for p in pieces if re.search(r"\w", p))
    return claims
