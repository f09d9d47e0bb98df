"""Synthetic hallucination data from documents alone (no labels): a label-free check of the detector.

`synthetic_pairs(documents)` makes, for each document, summaries that are extractive compressions
of a few of its sentences (a contiguous 50-90 % span of each, label 0) and the same summaries with
one planted hallucination (label 1): an entity swapped in from another document, a number changed,
the halves of two distant sentences spliced (a relation the document does not state), or a clause
from another document appended. Fitting the detector's weights on these pairs needs no evaluation
labels; `bench/bench_hallucination.py --synthetic` measures how such weights transfer to the real
files (docs/grounding.md: they do not, because real right summaries are far less extractive).
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

from queryweave.tools.grounding.claims import sentences

PERTURBATIONS = ("entity", "number", "splice", "append")
_ENTITY = re.compile(r"\b[A-Z][a-z]+(?: [A-Z][a-z]+)*")
_NUMBER = re.compile(r"\b\d+\b")


def _usable(doc: str) -> list[str]:
    return [s for s in sentences(doc) if 8 <= len(s.split()) <= 45]


def _compress(sentence: str, rng: random.Random) -> str:
    words = sentence.split()
    keep = max(5, int(len(words) * rng.uniform(0.5, 0.9)))
    start = rng.randint(0, len(words) - keep)
    text = " ".join(words[start:start + keep]).rstrip(",;:.")
    return text[:1].upper() + text[1:] + "."


def perturb(summary: list[str], doc_sentences: list[str], other_sentences: list[str],
            rng: random.Random, kind: str | None = None) -> tuple[list[str], str]:
    """`summary` (a list of sentences) with one planted hallucination, and the kind used.
    `kind` is tried first; when it cannot apply (no entity, no number) the splice is used."""
    out = list(summary)
    k = rng.randrange(len(out))
    kind = kind or rng.choice(PERTURBATIONS)
    if kind == "entity":
        mine = _ENTITY.findall(out[k])
        theirs = [e for e in _ENTITY.findall(" ".join(other_sentences)) if e not in mine]
        if mine and theirs:
            out[k] = out[k].replace(rng.choice(mine), rng.choice(theirs), 1)
            return out, kind
        kind = "splice"
    if kind == "number":
        nums = _NUMBER.findall(out[k])
        if nums:
            n = rng.choice(nums)
            out[k] = re.sub(rf"\b{n}\b", str(int(n) + rng.randint(2, 20)), out[k], count=1)
            return out, kind
        kind = "splice"
    if kind == "splice":
        head = out[k].rstrip(".").split()
        tail = rng.choice(doc_sentences).split()
        out[k] = " ".join(head[: max(2, len(head) // 2)] + tail[len(tail) // 2:])
        return out, kind
    clause = rng.choice(other_sentences).rstrip(".").split()
    out[k] = out[k].rstrip(".") + ", " + " ".join(clause[len(clause) // 2:]) + "."
    return out, "append"


def synthetic_pairs(documents: Sequence[str], per_document: int = 2, sentences_per_summary: int = 3,
                    seed: int = 0) -> list[tuple[str, str, int]]:
    """(document, summary, label) triples: per usable document, `per_document` extractive
    summaries (label 0) and each one with a planted hallucination (label 1)."""
    rng = random.Random(seed)
    usable = [(doc, _usable(doc)) for doc in documents]
    usable = [(doc, sents) for doc, sents in usable if len(sents) >= 2]
    out: list[tuple[str, str, int]] = []
    if len(usable) < 2:
        return out
    for i, (doc, sents) in enumerate(usable):
        for _ in range(per_document):
            picks = sorted(rng.sample(range(len(sents)), min(sentences_per_summary, len(sents))))
            summary = [_compress(sents[j], rng) for j in picks]
            other = usable[rng.choice([j for j in range(len(usable)) if j != i])][1]
            wrong, _ = perturb(summary, sents, other, rng)
            out.append((doc, " ".join(summary), 0))
            out.append((doc, " ".join(wrong), 1))
    return out
