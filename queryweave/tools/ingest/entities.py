"""Entities and relations of one chunk, for the entity graph: offline rules, or an LLM when configured.

Offline, a chunk's entities are
- its document's title (the chunk's *main* entity, role `title`): an encyclopaedia paragraph is about
  the entity its title names;
- capitalised multi-word names, acronyms and code-ish identifiers, and jieba noun compounds for
  Chinese (`queryweave.tools.understanding.mentions`), role `mention`;
- every known title (a `Gazetteer` of the knowledge base's document titles) that occurs in the text,
  so "Shirley Temple" in one paragraph links to the paragraph titled "Shirley Temple".
Relations are co-occurrence: entities named in the same sentence, and the main entity with every
entity of its chunk (weight 1.0 each; pairs that only share a chunk but no sentence are not kept).
With an LLM, entities and stated relations come from the model (`prompts/entities.py`), with the
title and gazetteer entities added; on any failure the chunk falls back to the offline rules.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field

from queryweave.tools.common.text import EN_STOPWORDS, ZH_STOPWORDS, cjk_ratio, split_sentences
from queryweave.tools.understanding.mentions import LEAD_WORDS, extract_mentions

_WORDS = re.compile(r"\w+")
_PAREN = re.compile(r"\s*[(（][^)）]*[)）]\s*$")
_POSSESSIVE = re.compile(r"['’]s$")
MAX_NAME_WORDS = 8
MAX_ENTITIES = 40  # per chunk, title first, then in order of position


def entity_key(name: str) -> str:
    """A name's matching key: "(1945 film)" and a leading "the" dropped, lower-case words joined by spaces."""
    name = _POSSESSIVE.sub("", _PAREN.sub("", (name or "").strip()))
    words = _WORDS.findall(name.lower())
    if len(words) > 1 and words[0] == "the":
        words = words[1:]
    return " ".join(words)


def usable_key(key: str) -> bool:
    """Whether a key can name an entity: not empty, not a number, not a stop word, not too short."""
    if not key or key.replace(" ", "").isdigit():
        return False
    if cjk_ratio(key) > 0.5:
        return len(key) >= 2 and key not in ZH_STOPWORDS
    return len(key) >= 2 and key not in EN_STOPWORDS and key not in LEAD_WORDS and len(key.split()) <= MAX_NAME_WORDS


@dataclass
class ChunkEntities:
    """What one chunk contributes to the graph: {key: (label, kind, role)} and weighted entity pairs."""

    entities: dict[str, tuple[str, str, str]] = field(default_factory=dict)
    pairs: dict[tuple[str, str], float] = field(default_factory=dict)

    def add(self, name: str, kind: str, role: str = "mention") -> str | None:
        """Add an entity (the first label and kind seen win; `title` role wins); returns its key."""
        key = entity_key(name)
        if not usable_key(key):
            return None
        old = self.entities.get(key)
        if old is None:
            if len(self.entities) >= MAX_ENTITIES and role != "title":
                return None
            self.entities[key] = (name.strip()[:200], kind, role)
        elif role == "title" and old[2] != "title":
            self.entities[key] = (old[0], "title", "title")
        return key

    def relate(self, a: str | None, b: str | None, weight: float = 1.0) -> None:
        """Record a relation between two entity keys (undirected: stored in key order)."""
        if a and b and a != b and a in self.entities and b in self.entities:
            pair = (a, b) if a < b else (b, a)
            self.pairs[pair] = max(self.pairs.get(pair, 0.0), weight)


class Gazetteer:
    """Known names (document titles) found in text: word n-grams, substrings for Chinese names."""

    def __init__(self, names: Iterable[str]) -> None:
        self.labels: dict[str, str] = {}
        self.cjk: set[str] = set()
        for name in names:
            key = entity_key(name)
            if usable_key(key) and (len(key) >= 4 or cjk_ratio(key) > 0.5):
                self.labels.setdefault(key, _PAREN.sub("", name).strip())
                if cjk_ratio(key) > 0.5:
                    self.cjk.add(key)

    def find(self, text: str) -> list[str]:
        """Keys of the known names that occur in `text`, in order of first occurrence."""
        words = _WORDS.findall(text.lower())
        found: dict[str, int] = {}
        for i in range(len(words)):
            for n in range(1, MAX_NAME_WORDS + 1):
                if i + n > len(words):
                    break
                key = " ".join(words[i : i + n])
                if key in self.labels:
                    found.setdefault(key, i)
        if self.cjk:
            low = text.lower()
            for key in self.cjk:
                pos = low.find(key)
                if pos >= 0:
                    found.setdefault(key, len(words) + pos)
        return sorted(found, key=found.get)


def extract_offline(text: str, title: str = "", gazetteer: Gazetteer | None = None) -> ChunkEntities:
    """Entities (title, names, identifiers, Chinese nouns, known titles) and co-occurrence relations."""
    out = ChunkEntities()
    main = out.add(title, "title", "title") if title else None
    for sentence in split_sentences(text):
        keys: list[str] = []
        if gazetteer is not None:
            for key in gazetteer.find(sentence):
                if out.add(gazetteer.labels[key], "title") is not None:
                    keys.append(key)
        for m in extract_mentions(sentence):
            if m.kind in {"name", "code", "noun"}:
                key = out.add(m.text, m.kind)
                if key is not None:
                    keys.append(key)
        keys = list(dict.fromkeys(keys))
        for i, a in enumerate(keys):
            out.relate(main, a, 1.0)
            for b in keys[i + 1 :]:
                out.relate(a, b, 1.0)
    return out


class _Entity(BaseModel):
    name: str = Field(description="the entity's name as written in the passage")
    kind: str = Field(default="other", description="person, organization, place, work, product, concept, code, other")


class _Relation(BaseModel):
    source: str = Field(description="name of the first entity")
    target: str = Field(description="name of the second entity")
    description: str = Field(default="", description="what the passage says relates them")
    strength: float = Field(default=1.0, description="0 to 1")


class ExtractedGraph(BaseModel):
    """Entities and relations of one passage."""

    entities: list[_Entity] = Field(default_factory=list)
    relations: list[_Relation] = Field(default_factory=list)


def extract_llm(llm: Any, text: str, title: str = "", gazetteer: Gazetteer | None = None) -> ChunkEntities | None:
    """Entities and stated relations from the LLM (plus title and known titles); None when the model failed."""
    from langchain_core.messages import HumanMessage, SystemMessage

    from queryweave.models import structured
    from queryweave.prompts import pick
    from queryweave.prompts.entities import SYSTEM, USER
    from queryweave.tools.common.text import detect_language

    lang = detect_language(text)
    got = structured(llm, ExtractedGraph, [SystemMessage(pick(SYSTEM, lang)),
                                           HumanMessage(pick(USER, lang).format(title=title, text=text[:4000]))],
                     retries=1)
    if got is None:
        return None
    out = ChunkEntities()
    main = out.add(title, "title", "title") if title else None
    for e in got.entities:
        key = out.add(e.name, (e.kind or "other").lower()[:20])
        out.relate(main, key, 1.0)
    for key in gazetteer.find(text) if gazetteer is not None else []:
        out.relate(main, out.add(gazetteer.labels[key], "title"), 1.0)
    for r in got.relations:
        a, b = out.add(r.source, "other"), out.add(r.target, "other")
        out.relate(a, b, min(1.0, max(0.1, float(r.strength or 1.0))))
    return out
