"""Fitting tools of the offline detector: shifted half-splits (a held-out-file check from one file)."""

from __future__ import annotations

import numpy as np

from queryweave.eval.detector_fit import (
    cross_halves,
    fit_logistic,
    logistic_score,
    shifted_splits,
    threshold_fit,
)


def _shifted_file(n_records: int = 40):
    """Two texts per record (right 0, hallucinated 1); a per-record property `p` shifts a feature
    `x` for both texts (another file's texts are more extractive), `z` separates at any p."""
    groups, labels, p, x, z = [], [], [], [], []
    for r in range(n_records):
        shift = 0.0 if r < n_records // 2 else 1.0
        for label in (0, 1):
            groups.append(r)
            labels.append(label)
            p.append(shift + 0.01 * r)
            x.append(shift + (0.0 if label else 0.8) + 0.01 * r)
            z.append((0.0 if label else 1.0) + 0.001 * (r % 2))
    return groups, labels, p, x, z


def test_shifted_splits_keep_records_whole_and_cut_at_the_median():
    groups, labels, p, _, _ = _shifted_file()
    halves = shifted_splits(groups, {"p": p})
    assert set(halves) == {"p", "random"}
    g = np.asarray(groups)
    for low, high in halves.values():
        assert sorted([*low, *high]) == list(range(len(groups)))
        assert not set(g[low]) & set(g[high])  # no record on both sides
        assert len(low) == len(high)
    low, high = halves["p"]
    assert max(np.asarray(p)[low]) < min(np.asarray(p)[high])
    # no label is read: the same cut whatever the labels (the function does not take them)
    assert shifted_splits(groups, {"p": p}, random_seed=None).keys() == {"p"}
    again = shifted_splits(groups, {"p": p})
    assert all((a == b).all() for h, k in zip(halves.values(), again.values(), strict=True) for a, b in zip(h, k, strict=True))


def test_cross_halves_shows_the_loss_of_a_threshold_that_does_not_transfer():
    groups, labels, p, x, z = _shifted_file()
    halves = shifted_splits(groups, {"p": p})
    shifted = cross_halves(halves["p"], threshold_fit(x, labels), labels)
    steady = cross_halves(halves["p"], threshold_fit(z, labels), labels)
    assert steady == (1.0, 1.0)
    assert max(shifted) < 0.75  # perfect inside each half, wrong on the other
    # a random cut does not see the shift: the threshold fitted on one random half holds on the other
    assert min(cross_halves(halves["random"], threshold_fit(z, labels), labels)) == 1.0


def test_fit_logistic_keeps_the_sign_of_a_recombination_feature():
    rows = [{"copy": c, "jumps": j} for c, j in [(0.9, 1), (0.8, 2), (0.3, 0), (0.2, 0), (0.7, 0), (0.25, 3)]]
    grounded = [1, 1, 0, 0, 1, 0]
    weights, bias = fit_logistic(rows, grounded, ("copy", "jumps"))
    assert weights["copy"] > 0 and weights["jumps"] <= 0
    assert logistic_score({"copy": 0.9, "jumps": 0}, weights, bias) > logistic_score({"copy": 0.2, "jumps": 0}, weights, bias)
