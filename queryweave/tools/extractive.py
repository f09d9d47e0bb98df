"""Extractive answering without an LLM: pick the sentences that best cover the question, cite them.

Sentences of the retrieved chunks are scored by the IDF-weighted share of the question's terms they
contain (IDF over the retrieved sentences, so the rare, specific words count most), plus a small
bonus for higher-ranked chunks. The best few, in a readable order, become the answer, each followed
by its citation marker.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from queryweave.tools.text import detect_language, split_sentences, tokenize


@dataclass
class ExtractiveAnswer:
    """An extractive answer: text with [n] markers, the cited documents, and how well it covers the question."""

    answer: str
    citations: list[dict[str, Any]] = field(default_factory=list)
    coverage: float = 0.0
    sentences: list[dict[str, Any]] = field(default_factory=list)


def _idf(sentence_tokens: list[set[str]]) -> dict[str, float]:
    df = Counter(t for toks in sentence_tokens for t in toks)
    n = max(1, len(sentence_tokens))
    return {t: math.log(1 + n / c) for t, c in df.items()}


def extract_answer(question: str, documents: list[dict[str, Any]], max_sentences: int = 3,
                   min_coverage: float = 0.15) -> ExtractiveAnswer:
    """Answer `question` from `documents` (dicts with chunk_id, source, text) by sentence extraction."""
    q_tokens = set(tokenize(question))
    candidates: list[tuple[int, int, str, set[str]]] = []
    for d_idx, doc in enumerate(documents):
        for s_idx, sent in enumerate(split_sentences(doc.get("text", ""))):
            toks = set(tokenize(sent))
            if toks and len(sent) >= 8:
                candidates.append((d_idx, s_idx, sent, toks))
    if not q_tokens or not candidates:
        return ExtractiveAnswer("")
    idf = _idf([c[3] for c in candidates])
    q_weight = sum(idf.get(t, math.log(1 + len(candidates))) for t in q_tokens) or 1.0
    scored = []
    for d_idx, s_idx, sent, toks in candidates:
        cov = sum(idf.get(t, 0.0) for t in q_tokens & toks) / q_weight
        if cov <= 0:
            continue
        brevity = 1.0 / (1.0 + max(0, len(toks) - 40) / 40)  # long run-on sentences read badly
        scored.append((cov * brevity + 0.05 / (1 + d_idx), cov, d_idx, s_idx, sent))
    scored.sort(key=lambda x: -x[0])
    chosen, seen = [], set()
    for item in scored:
        key = item[4][:60]
        if key in seen or item[1] < min_coverage:
            continue
        seen.add(key)
        chosen.append(item)
        if len(chosen) >= max_sentences:
            break
    if not chosen:
        return ExtractiveAnswer("", coverage=scored[0][1] if scored else 0.0)
    chosen.sort(key=lambda x: (x[2], x[3]))  # document order reads better than score order
    cite_no: dict[int, int] = {}
    citations, parts, sentences = [], [], []
    for _, cov, d_idx, _s_idx, sent in chosen:
        if d_idx not in cite_no:
            cite_no[d_idx] = len(cite_no) + 1
            doc = documents[d_idx]
            citations.append({"n": cite_no[d_idx], "chunk_id": doc.get("chunk_id"), "source": doc.get("source"),
                              "title": doc.get("title", ""), "text": doc.get("text", "")})
        parts.append(f"{sent} [{cite_no[d_idx]}]")
        sentences.append({"text": sent, "citation": cite_no[d_idx], "coverage": round(cov, 4)})
    joiner = "" if detect_language(question) == "zh" else " "
    coverage = max(c[1] for c in chosen)
    return ExtractiveAnswer(joiner.join(parts), citations, coverage, sentences)
