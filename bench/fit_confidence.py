"""Fit the answer-confidence model and the abstention threshold, and report both by leaving a whole
knowledge base out.

Usage:
  python bench/fit_confidence.py GROUP=ITEMS.jsonl[,ITEMS2.jsonl] ... [--write]

Each ITEMS file is what `queryweave eval answers --items` writes (the pipeline rows carry
`features`, the inputs of `tools/grounding/confidence.py`). A GROUP is one knowledge base: every
question asked against it, e.g. `samples=` the bilingual sample set plus questions of other sets asked
against the sample corpus (all unanswerable there). For each group in turn, the logistic weights and
the threshold are chosen on the other groups only and scored on it:
- `AUROC fixed` / `AUROC fitted`: confidence of right vs wrong answers (answers given; an answer to an
  unanswerable question is wrong), the earlier fixed mix vs the model fitted on the other groups;
- `abst.rec`: unanswerable questions declined (by the name checks in `generate`, or by the cut),
  `wrong abst.`: answerable questions declined, `contains`: answerable questions answered with a gold
  answer, before -> after the cut;
- accuracy per probability bucket of the fitted model.
The abstention cut is on `passage_coverage` (the share of the question's words that the cited passages
hold at all, question words not counted; only for questions of five words or more, with passages in their language, as
`generate` applies it): the highest cut whose wrong abstentions on the training groups stay <= 0.05 (half the
0.1 allowed, a margin for a knowledge base unlike the training ones). A cut on P(right) itself does not
transfer: the share of right answers differs too much between knowledge bases (0.32 to 0.82).
Run the items with the cut off (`QUERYWEAVE_COVERAGE_CUT=off queryweave eval answers …`), so that every answer's
features are seen. `--write` stores the fit on all groups in `queryweave/tools/grounding/confidence_weights.py`: the cut,
and the weights only when, left out group by group, they beat the fixed mix's AUROC on average and lose
more than 0.01 nowhere (else the fixed mix stays).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from queryweave.eval.answers import auroc, contains_gold  # noqa: E402
from queryweave.nodes.generate import coverage_cut_applies  # noqa: E402
from queryweave.tools.grounding.confidence import FEATURES, fixed_mix  # noqa: E402

MAX_WRONG_ABSTAIN = 0.05
CUT_FEATURE = "passage_coverage"


def load(paths: list[str]) -> list[dict]:
    rows = []
    for path in paths:
        for line in Path(path).read_text(encoding="utf-8").splitlines():
            rec = json.loads(line)
            if rec.get("system") != "pipeline":
                continue
            rec["answerable"] = bool(rec.get("gold"))
            rec["right"] = rec["answerable"] and not rec["abstained"] and contains_gold(rec["answer"], rec["gold"])
            rows.append(rec)
    return rows


def matrix(rows: list[dict]) -> np.ndarray:
    return np.array([[float((r.get("features") or {}).get(k, 0.0)) for k in FEATURES] for r in rows])


def fit(rows: list[dict]) -> dict[str, float]:
    from sklearn.linear_model import LogisticRegression

    answered = [r for r in rows if not r["abstained"] and r.get("features")]
    y = np.array([r["right"] for r in answered])
    model = LogisticRegression(C=1.0, max_iter=1000).fit(matrix(answered), y)
    return {"bias": float(model.intercept_[0])} | {k: float(w) for k, w in zip(FEATURES, model.coef_[0], strict=True)}


def prob(rec: dict, w: dict[str, float]) -> float:
    f = rec.get("features") or {}
    z = w["bias"] + sum(w[k] * float(f.get(k, 0.0)) for k in FEATURES)
    return 1.0 / (1.0 + math.exp(-z))


def outcome(rows: list[dict], cut: float) -> dict[str, float]:
    """Abstention and contains figures when answers whose passages cover less than `cut` are declined."""
    def declined(r: dict) -> bool:
        return r["abstained"] or (bool(r.get("features")) and float(r["features"].get(CUT_FEATURE, 1.0)) < cut
                                  and coverage_cut_applies(r["question"], r.get("cited") or []))

    ans = [r for r in rows if r["answerable"]]
    una = [r for r in rows if not r["answerable"]]
    return {"abst_rec": sum(declined(r) for r in una) / len(una) if una else float("nan"),
            "wrong_abst": sum(declined(r) for r in ans) / len(ans) if ans else float("nan"),
            "contains": sum(r["right"] and not declined(r) for r in ans) / len(ans) if ans else float("nan")}


def choose_cut(rows: list[dict]) -> float:
    best = 0.0
    for cut in np.arange(0.0, 0.96, 0.01):
        if outcome(rows, float(cut))["wrong_abst"] <= MAX_WRONG_ABSTAIN:
            best = float(cut)
        else:
            break
    return round(best, 2)


def aurocs(rows: list[dict], w: dict[str, float]) -> tuple[float | None, float | None]:
    answered = [r for r in rows if not r["abstained"] and r.get("features")]
    labels = [r["right"] for r in answered]
    return (auroc([fixed_mix(r["features"]) for r in answered], labels),
            auroc([prob(r, w) for r in answered], labels))


def buckets(rows: list[dict], w: dict[str, float]) -> str:
    answered = [r for r in rows if not r["abstained"] and r.get("features")]
    cells = []
    for lo in (0.0, 0.2, 0.4, 0.6, 0.8):
        inside = [r for r in answered if lo <= prob(r, w) < lo + 0.2 or (lo == 0.8 and prob(r, w) >= 1.0)]
        if inside:
            cells.append(f"{lo:.1f}-{lo + 0.2:.1f}: {sum(r['right'] for r in inside) / len(inside):.2f} (n={len(inside)})")
    return "; ".join(cells)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("groups", nargs="+", help="GROUP=ITEMS.jsonl[,ITEMS2.jsonl]")
    ap.add_argument("--write", action="store_true", help="store the fit on all groups in confidence_weights.py")
    args = ap.parse_args()
    groups = {g.split("=", 1)[0]: load(g.split("=", 1)[1].split(",")) for g in args.groups}
    print("| held-out group | n | AUROC fixed | AUROC fitted | coverage cut | abst.rec before → after | "
          "wrong abst. before → after | contains before → after | accuracy by P(right) |")
    print("|---|---|---|---|---|---|---|---|---|")
    gains = []
    for name, rows in groups.items():
        train = [r for g, rs in groups.items() if g != name for r in rs]
        w = fit(train)
        cut = choose_cut(train)
        fixed, fitted = aurocs(rows, w)
        if fixed is not None and fitted is not None:
            gains.append(fitted - fixed)
        before, after = outcome(rows, 0.0), outcome(rows, cut)

        def fmt(x: float | None) -> str:
            return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.3f}"

        print(f"| {name} | {len(rows)} | {fmt(fixed)} | {fmt(fitted)} | {cut:.2f} | "
              f"{fmt(before['abst_rec'])} → {fmt(after['abst_rec'])} | {fmt(before['wrong_abst'])} → "
              f"{fmt(after['wrong_abst'])} | {fmt(before['contains'])} → {fmt(after['contains'])} | {buckets(rows, w)} |")
    everything = [r for rs in groups.values() for r in rs]
    w = fit(everything)
    cut = choose_cut(everything)
    print("\nfit on all groups:", json.dumps({k: round(v, 4) for k, v in w.items()}), "cut", cut)
    transfers = bool(gains) and sum(gains) / len(gains) > 0 and min(gains) > -0.01
    print("fitted weights", "beat" if transfers else "do not beat", "the fixed mix out of group",
          f"(AUROC gains {', '.join(f'{g:+.3f}' for g in gains)}):",
          "shipping them" if transfers else "shipping the fixed mix")
    weights = {k: round(v, 4) for k, v in w.items()} if transfers else {}
    if args.write:
        target = ROOT / "queryweave/tools/grounding/confidence_weights.py"
        target.write_text(
            '"""Weights of the confidence model (`confidence.probability`) and the abstention cut, written by\n'
            f'`bench/fit_confidence.py` (fit on all of: {", ".join(groups)}; figures by leaving each out in\n'
            'bench/results_answers.md)."""\n\n'
            f"WEIGHTS: dict[str, float] = {json.dumps(weights)}\n"
            f"ABSTAIN_COVERAGE_BELOW: float = {cut}\n"
            f"FITTED_ON: list[str] = {json.dumps(list(groups))}\n", encoding="utf-8")
        print("wrote", target.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
