"""Weights of the confidence model (`confidence.probability`) and the abstention cut, written by
`bench/fit_confidence.py` (fit on all of: samples, hotpot, cmrc; figures by leaving each out in
bench/results_answers.md)."""

WEIGHTS: dict[str, float] = {}
ABSTAIN_COVERAGE_BELOW: float = 0.5
FITTED_ON: list[str] = ["samples", "hotpot", "cmrc"]
