"""Fitting and honest scoring of the offline hallucination detector, and its two baselines.

- `fit_logistic`: a tiny logistic model with sign constraints (a support feature may only raise
  P(grounded), `novel2` and `jumps` may only lower it), numpy projected gradient descent, L2-regularised.
- `grouped_cv`: k-fold cross-validation where both texts of one record stay in the same fold, so
  no document is seen in training and test.
- Baselines: share of the text's words found in the sources, and length, each with a threshold
  fitted the same cross-validated way.
- `shifted_splits`: a held-out-file check from one file. Its records are cut in two halves by a
  property read without labels (document length, summary length, word share or verbatim support
  of both texts of a record); `cross_halves` fits on one half and scores the other, both ways. A
  random cut gives about what plain CV gives; a shifted one shows what a fitted bias loses when
  another file's texts differ in kind (the summarization file's CV 0.850 fell to 0.772 on a
  held-out file; the word-share cut reproduces that drop).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from queryweave.tools.common.text import tokenize, words

FEATURES = ("copy", "jumps")
SIGNS = {"copy": 1.0, "order": 1.0, "lex": 1.0, "frag": 1.0, "novel2": -1.0, "copy_min": 1.0, "emb": 1.0, "jumps": -1.0,
         "jumps_total": -1.0}


def fit_logistic(
    rows: Sequence[dict], grounded: Sequence[int], features: Sequence[str] = FEATURES,
    l2: float = 0.001, steps: int = 3000, lr: float = 0.5, signs: dict[str, float] | None = None,
) -> tuple[dict[str, float], float]:
    """Weights and bias (on the raw feature scale) of P(grounded) = sigmoid(b + w.x), with every
    weight's sign constrained by `signs` (default `SIGNS`; 0 allowed, a feature not named there is
    unconstrained)."""
    x = np.array([[r[k] for k in features] for r in rows], float)
    y = np.asarray(grounded, float)
    mu, sd = x.mean(0), x.std(0) + 1e-9
    z = (x - mu) / sd
    signs = np.array([(SIGNS if signs is None else signs).get(k, 0.0) for k in features])
    w, b = np.zeros(len(features)), 0.0
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(z @ w + b)))
        gw = z.T @ (p - y) / len(y) + 2 * l2 * w
        gb = float(np.mean(p - y))
        w -= lr * gw
        b -= lr * gb
        w = np.where(signs > 0, np.maximum(w, 0), np.where(signs < 0, np.minimum(w, 0), w))
    raw = w / sd
    return {k: round(float(v), 4) for k, v in zip(features, raw, strict=True)}, round(float(b - raw @ mu), 4)


def logistic_score(row: dict, weights: dict[str, float], bias: float) -> float:
    """P(grounded) of one feature row."""
    t = bias + sum(w * row[k] for k, w in weights.items())
    return 1.0 / (1.0 + np.exp(-t))


def folds(groups: Sequence[int], k: int = 10) -> list[np.ndarray]:
    """Test-index arrays of k folds that keep every group (record) whole."""
    uniq = sorted(set(groups))
    where = {g: i % k for i, g in enumerate(uniq)}
    g = np.array([where[x] for x in groups])
    return [np.flatnonzero(g == i) for i in range(k) if np.any(g == i)]


def grouped_cv(
    n: int, groups: Sequence[int], fit: Callable[[np.ndarray], Callable[[int], int]], k: int = 10
) -> np.ndarray:
    """Out-of-fold predictions: `fit(train_indices)` returns a predictor of one index."""
    preds = np.zeros(n, int)
    for test in folds(groups, k):
        train = np.setdiff1d(np.arange(n), test)
        predict = fit(train)
        for i in test:
            preds[i] = predict(int(i))
    return preds


def fit_threshold(values: Sequence[float], labels: Sequence[int]) -> tuple[float, int]:
    """Best accuracy cut on one value: (threshold, direction); direction +1 means
    value >= threshold predicts label 1, -1 means value < threshold does."""
    v = np.asarray(values, float)
    y = np.asarray(labels, int)
    cuts = np.unique(v)
    best = (-1.0, 0.0, 1)
    for c in np.concatenate([cuts, [cuts[-1] + 1]]):
        for d in (1, -1):
            pred = (v >= c) if d > 0 else (v < c)
            acc = float(np.mean(pred == y))
            if acc > best[0]:
                best = (acc, float(c), d)
    return best[1], best[2]


def cv_threshold(values: Sequence[float], labels: Sequence[int], groups: Sequence[int], k: int = 10) -> np.ndarray:
    """Out-of-fold predictions of a threshold on `values` fitted on the other folds."""
    return grouped_cv(len(values), groups, threshold_fit(values, labels), k)


def word_share(text: str, sources: Sequence[str]) -> float:
    """Baseline feature: share of the text's content tokens found anywhere in the sources."""
    toks = tokenize(text)
    vocab = set(tokenize("\n".join(sources)))
    return sum(t in vocab for t in toks) / len(toks) if toks else 1.0


def length(text: str) -> float:
    """Baseline feature: the text's length in words (a CJK run counts its characters)."""
    return float(sum(len(w) if not w.isascii() else 1 for w in words(text)))


def shifted_splits(
    groups: Sequence[int], properties: Mapping[str, Sequence[float]], random_seed: int | None = 0,
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Two halves of the records for each named per-text property: records whose mean property
    (over their texts) is at most the median of those means, and the rest; with `random_seed`, a
    random cut of the records too (`random`). Both texts of a record stay in one half, and no label
    is read: the cut is one a user could make between two files. Values are (low, high) index arrays."""
    g = np.asarray(groups)
    recs = np.unique(g)
    out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    named = dict(properties)
    if random_seed is not None:
        order = np.random.default_rng(random_seed).permutation(len(recs)).astype(float)
        named["random"] = order[np.searchsorted(recs, g)]
    for name, values in named.items():
        v = np.asarray(values, float)
        means = np.array([v[g == r].mean() for r in recs])
        low_recs = set(recs[means <= np.median(means)].tolist())
        low = np.array([x in low_recs for x in g])
        out[name] = (np.flatnonzero(low), np.flatnonzero(~low))
    return out


def cross_halves(
    halves: tuple[np.ndarray, np.ndarray], fit: Callable[[np.ndarray], Callable[[int], int]], labels: Sequence[int],
) -> tuple[float, float]:
    """Accuracy of `fit(one half)` on the other half, both ways: (low -> high, high -> low)."""
    y = np.asarray(labels, int)
    out = []
    for train, test in (halves, halves[::-1]):
        predict = fit(train)
        out.append(float(np.mean([predict(int(i)) == y[i] for i in test])))
    return out[0], out[1]


def threshold_fit(values: Sequence[float], labels: Sequence[int]) -> Callable[[np.ndarray], Callable[[int], int]]:
    """A `fit` for `cross_halves` / `grouped_cv`: the best-accuracy threshold on `values` of the training rows."""
    v = np.asarray(values, float)
    y = np.asarray(labels, int)

    def fit(train: np.ndarray):
        c, d = fit_threshold(v[train], y[train])
        return lambda i: int(v[i] >= c) if d > 0 else int(v[i] < c)

    return fit
