"""Yes/no questions that ask whether two things share one property: "Are X and Y both film directors?".

An extractive answer quotes sentences and never says yes or no. This rule layer answers the common
comparison form itself (English "Are X and Y both Z?", "Are both <kind>, X and Y, Z?"; Chinese
"X和Y都是Z吗？"): each of the two things is looked up in the retrieved passages (the passage whose title
names it, else one whose text does), and its defining sentences (the opening ones of that passage) are
read for the words of Z. Both hold all of them: yes; one lacks any: no. The answer shows each defining
sentence with its citation, so the reader checks the verdict. A question about the *same* something
("in the same province", "members of the same band") compares two values, not a property, and is left
to the extractive answer, as is any question whose two things are not both found. Nothing fitted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from queryweave.tools.common.text import detect_language, split_sentences, tokenize

_EN_BOTH = re.compile(r"^(?:are|were)\s+(?P<a>.+?)\s+and\s+(?P<b>.+?),?\s+both\s+(?P<z>.+?)\s*\?\s*$", re.I)
# "Are both magazines, the Woman's Viewpoint and Pick Me Up, British publications?"
_EN_BOTH_KIND = re.compile(r"^(?:are|were)\s+both\s+[\w\s-]{2,40}?,\s+(?P<a>.+?)\s+and\s+(?P<b>.+?),\s+(?P<z>.+?)\s*\?\s*$",
                           re.I)
_ZH_BOTH = re.compile(r"^(?P<a>.+?)(?:和|与|跟)(?P<b>.+?)都是(?P<z>.+?)吗\s*[？?]\s*$")
_SAME = re.compile(r"\b(?:same|different|similar)\b|同一|相同|一样", re.I)
_ARTICLE = re.compile(r"^(?:the|a|an)\s+", re.I)
_PARTS = re.compile(r"[-/]")
DEFINING_SENTENCES = 2  # a passage's first sentences say what its subject is
DEFINING_CHARS = 160


@dataclass
class Verdict:
    """Yes or no, and for each of the two things the passage and the sentences read for it."""

    yes: bool
    evidence: list[tuple[int, str]]  # (index of the passage in the documents, its defining sentences)
    missing: list[str]  # Z's words the "no" thing lacks


def parse(question: str) -> tuple[str, str, str] | None:
    """(X, Y, Z) of a "both" question, None for any other question or one about the *same* value."""
    text = question.strip()
    match = _EN_BOTH_KIND.match(text) or _EN_BOTH.match(text) or _ZH_BOTH.match(text)
    if not match or _SAME.search(match.group("z")):
        return None
    a, b = (_ARTICLE.sub("", match.group(k).strip(" ,，")) for k in ("a", "b"))
    return (a, b, match.group("z").strip()) if a and b else None


def _words(text: str) -> set[str]:
    """Index words of a text, hyphenated words also taken apart ("computer-animated")."""
    return set(tokenize(text)) | set(tokenize(_PARTS.sub(" ", text)))


def _passage_of(name: str, documents: list[dict[str, Any]]) -> int | None:
    """The passage about `name`: the first whose title holds all its words, else whose text names it."""
    words = set(tokenize(name))
    if not words:
        return None
    for i, doc in enumerate(documents):
        if words <= set(tokenize(str(doc.get("title") or ""))):
            return i
    for i, doc in enumerate(documents):
        if name.casefold() in str(doc.get("text") or "").casefold():
            return i
    return None


def _defining(doc: dict[str, Any]) -> str:
    """The passage's opening sentences (its title line left out): at least `DEFINING_SENTENCES` and
    `DEFINING_CHARS` characters ("Pick Me Up! is a British weekly…" is cut at its "!"), at most four."""
    text = str(doc.get("text") or "").strip()
    title = str(doc.get("title") or "").strip()
    if title and text.startswith(title) and text[len(title):len(title) + 1] in ("\n", ""):
        text = text[len(title):].strip()
    out: list[str] = []
    for sentence in split_sentences(text)[:4]:
        out.append(sentence)
        if len(out) >= DEFINING_SENTENCES and sum(len(x) for x in out) >= DEFINING_CHARS:
            break
    return " ".join(out)


def both_verdict(question: str, documents: list[dict[str, Any]]) -> Verdict | None:
    """The yes/no verdict of a "both" question over the passages, None when it is no such question or
    either thing is in no passage."""
    parsed = parse(question)
    if parsed is None:
        return None
    a, b, z = parsed
    wanted = set(tokenize(z))
    if not wanted:
        return None
    evidence, missing = [], []
    for name in (a, b):
        idx = _passage_of(name, documents)
        if idx is None:
            return None
        defining = _defining(documents[idx])
        evidence.append((idx, defining))
        missing += sorted(wanted - _words(defining))
    if evidence[0][0] == evidence[1][0]:  # one passage for both: not two things looked up
        return None
    return Verdict(not missing, evidence, missing)


def verdict_text(verdict: Verdict, question: str, marks: list[int]) -> str:
    """"Yes." / "No." (是。/ 不是。) then each defining sentence with its citation marker."""
    zh = detect_language(question) == "zh"
    head = ("是。" if verdict.yes else "不是。") if zh else ("Yes." if verdict.yes else "No.")
    body = " ".join(f"{text} [{n}]" for (_idx, text), n in zip(verdict.evidence, marks, strict=True))
    return f"{head} {body}"
