"""Weights of the confidence model (`confidence.probability`), written by `bench/fit_confidence.py`.

Empty until fitted: `probability` then uses the fixed mix."""

WEIGHTS: dict[str, float] = {}
ABSTAIN_BELOW: float = 0.0
FITTED_ON: list[str] = []
