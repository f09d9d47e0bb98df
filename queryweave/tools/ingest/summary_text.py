"""Summary text for the summary layer: an LLM when configured, else central sentences (extractive).

Extractive summaries pick the sentences most central to a text: each sentence is a TF-IDF vector
over `queryweave.tools.common.text.tokenize` tokens (jieba words for Chinese, stemmed words otherwise);
its centrality is its summed cosine similarity to the other sentences (LexRank's degree centrality)
plus its similarity to the whole text, with a small bonus for coming early (for very long texts,
the similarity to the whole text alone: the pairwise sum grows with the square of the sentences). Sentences are then taken
greedily, skipping near-duplicates of those already taken, up to a sentence and character budget,
and given back in their original order (joined without spaces for Chinese).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Any

from queryweave.tools.common.text import detect_language, split_sentences, tokenize

_HEADING = re.compile(r"^\s*(#+\s|[-*]\s*$)")
MAX_PAIRWISE = 300  # above this many sentences, centrality is the similarity to the whole text only
_BULLET = re.compile(r"^(?:[-*•]|\d+[.)、])\s+")


def _vector(tokens: list[str], idf: dict[str, float]) -> dict[str, float]:
    tf = Counter(tokens)
    vec = {t: (1 + math.log(c)) * idf.get(t, 0.0) for t, c in tf.items()}
    norm = math.sqrt(sum(v * v for v in vec.values())) or 1.0
    return {t: v / norm for t, v in vec.items()}


def _cos(a: dict[str, float], b: dict[str, float]) -> float:
    if len(a) > len(b):
        a, b = b, a
    return sum(v * b.get(t, 0.0) for t, v in a.items())


def sentences_of(text: str) -> list[str]:
    """Sentences worth summarising with: headings, list markers and very short fragments dropped."""
    out = []
    for s in split_sentences(text):
        if not s.strip() or _HEADING.match(s):
            continue
        s = _BULLET.sub("", " ".join(s.split()))
        if len(s) < (6 if detect_language(s) == "zh" else 20):
            continue
        out.append(s)
    return out


def central_sentences(sentences: list[str], n: int = 3, max_chars: int = 500) -> list[str]:
    """The `n` most central sentences (at most `max_chars` together), in their original order."""
    if len(sentences) <= 1:
        return [s[:max_chars] for s in sentences]
    toks = [tokenize(s) for s in sentences]
    df = Counter(t for ts in toks for t in set(ts))
    idf = {t: math.log((len(toks) + 1) / (c + 0.5)) + 1.0 for t, c in df.items()}
    vecs = [_vector(ts, idf) for ts in toks]
    whole = _vector([t for ts in toks for t in ts], idf)
    scores = []
    pairwise = len(vecs) <= MAX_PAIRWISE
    for i, v in enumerate(vecs):
        degree = sum(_cos(v, w) for j, w in enumerate(vecs) if j != i) / (len(vecs) - 1) if pairwise else 0.0
        scores.append(degree + _cos(v, whole) + 0.1 / (1 + i) + (0.0 if toks[i] else -1.0))
    chosen: list[int] = []
    used = 0
    for i in sorted(range(len(sentences)), key=lambda i: -scores[i]):
        if len(chosen) >= n:
            break
        if any(_cos(vecs[i], vecs[j]) > 0.7 for j in chosen):
            continue
        if chosen and used + len(sentences[i]) > max_chars:
            continue
        chosen.append(i)
        used += len(sentences[i])
    return [sentences[i] if len(sentences[i]) <= max_chars else sentences[i][:max_chars] + "…" for i in sorted(chosen)]


def join_sentences(sentences: list[str]) -> str:
    """Sentences as one text: no spaces between Chinese sentences, one space otherwise."""
    out = ""
    for s in sentences:
        if out and not (detect_language(out[-20:]) == "zh" and detect_language(s[:20]) == "zh"):
            out += " "
        out += s
    return out


def extractive_summary(text: str, n: int = 3, max_chars: int = 500) -> str:
    """An extractive summary of `text` (the text itself when it is already short)."""
    sents = sentences_of(text)
    if not sents:
        return " ".join(text.split())[:max_chars]
    return join_sentences(central_sentences(sents, n, max_chars))


def llm_summary(llm: Any, system: dict[str, str], title: str, text: str, max_input: int = 6000) -> str | None:
    """A summary written by the LLM with one of `prompts.summaries`' system prompts; None on failure."""
    if llm is None:
        return None
    from langchain_core.messages import HumanMessage, SystemMessage

    from queryweave.models import call_text
    from queryweave.prompts import pick
    from queryweave.prompts.summaries import USER

    lang = detect_language(text[:2000])
    got = call_text(llm, [SystemMessage(pick(system, lang)),
                          HumanMessage(pick(USER, lang).format(title=title, text=text[:max_input]))], retries=1)
    value = (got.value or "").strip()
    return value or None
