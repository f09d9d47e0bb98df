"""Weights of the confidence model (`confidence.probability`) and the abstention cut, written by
`bench/fit_confidence.py`.

Empty until fitted: `probability` then uses the fixed mix, and no answer is declined for coverage."""

WEIGHTS: dict[str, float] = {}
ABSTAIN_COVERAGE_BELOW: float = 0.0
FITTED_ON: list[str] = []
