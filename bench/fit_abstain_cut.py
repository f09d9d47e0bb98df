"""Choose when an extractive answer is declined, leaving whole knowledge bases out.

Usage:
  python bench/fit_abstain_cut.py GROUP=ITEMS.jsonl[,ITEMS2.jsonl] ...

ITEMS files are what `queryweave eval answers --items` writes, run with both cuts off
(`QUERYWEAVE_COVERAGE_CUT=off`, and `min_confidence` at its default 0), so every answer, its features and
its final confidence are seen. A GROUP is one knowledge base (every question asked of it). Two cuts, each
only for answers in the question's language (across languages few words match and right answers score
low too), as `generate` and `reflect` apply them:
- the coverage cut: the cited passages hold less than `c` of the question's words (`passage_coverage`,
  questions of five words or more, `generate.coverage_cut_applies`);
- the confidence cut: the answer's final confidence is below `t` (`Context.min_confidence`,
  `reflect.confidence_cut`).
The pair is chosen to maximise what a user gets right, averaged over the training groups: the share of
questions that end either with an answer stating a gold fact, or declined when the knowledge base cannot
answer (declining a wrong answer to an answerable question neither gains nor loses). For each group in
turn the pair is chosen on the others and scored on it, beside the pair shipped before and both cuts
off. A report only: what ships (coverage cut `confidence_weights.ABSTAIN_COVERAGE_BELOW`, confidence cut
off) is changed by hand, and only for a pair that gains on the groups it was not chosen on.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.fit_confidence import load  # noqa: E402
from queryweave.nodes.generate import coverage_cut_applies  # noqa: E402
from queryweave.nodes.reflect import same_language  # noqa: E402

COVERAGE_CUTS = [0.0, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6]
CONFIDENCE_CUTS = [0.0] + [round(0.60 + 0.01 * i, 2) for i in range(21)]
BEFORE = (0.5, 0.0)  # the coverage cut shipped before this script, no confidence cut


def prepare(rows: list[dict], across: bool = False) -> list[dict]:
    """Per row what the cuts read: passage coverage, whether each cut may judge it, the confidence.
    `across`: the coverage cut judges answers from passages in the other language too."""
    for r in rows:
        f = r.get("features") or {}
        answered = not r["abstained"] and bool(f)
        r["_cov"] = float(f.get("passage_coverage", 1.0))
        r["_cov_applies"] = answered and coverage_cut_applies(r["question"], r.get("cited") or [], across=across)
        r["_conf_applies"] = answered and same_language(r["question"], r["answer"])
        r["_conf"] = float(r.get("confidence") or 0.0)
    return rows


def declined(r: dict, cuts: tuple[float, float]) -> bool:
    c, t = cuts
    return r["abstained"] or (r["_cov_applies"] and r["_cov"] < c) or (r["_conf_applies"] and r["_conf"] < t)


def outcome(rows: list[dict], cuts: tuple[float, float]) -> dict[str, float]:
    """Share right (a gold fact stated, or an unanswerable question declined), abst.rec, wrong abst., contains."""
    ans = [r for r in rows if r["answerable"]]
    una = [r for r in rows if not r["answerable"]]
    right = sum(r["right"] and not declined(r, cuts) for r in ans)
    held = sum(declined(r, cuts) for r in una)
    nan = float("nan")
    return {"right": (right + held) / len(rows) if rows else nan,
            "abst.rec": held / len(una) if una else nan,
            "wrong abst.": sum(declined(r, cuts) for r in ans) / len(ans) if ans else nan,
            "contains": right / len(ans) if ans else nan}


def choose(groups: dict[str, list[dict]]) -> tuple[float, float]:
    """The pair with the best mean share right over `groups` (ties: the milder cuts)."""
    def score(cuts: tuple[float, float]) -> float:
        return sum(outcome(rows, cuts)["right"] for rows in groups.values()) / len(groups)

    pairs = [(c, t) for c in COVERAGE_CUTS for t in CONFIDENCE_CUTS]
    return max(pairs, key=lambda p: (round(score(p), 6), -p[0] - p[1]))


def cells(rows: list[dict], cuts: tuple[float, float]) -> str:
    o = outcome(rows, cuts)
    return " / ".join(f"{o[k]:.3f}" for k in ("right", "abst.rec", "wrong abst.", "contains"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("groups", nargs="+", help="GROUP=items.jsonl[,items2.jsonl]")
    ap.add_argument("--across-languages", action="store_true",
                    help="the coverage cut also judges answers from passages in the other language")
    args = ap.parse_args()
    groups = {g.split("=", 1)[0]: prepare(load(g.split("=", 1)[1].split(",")), args.across_languages)
              for g in args.groups}
    print("cells: right / abst.rec / wrong abst. / contains")
    print("| held-out group | n | both off | before (coverage 0.5) | cuts chosen without it | chosen |")
    print("|---|---|---|---|---|---|")
    for name, rows in groups.items():
        cuts = choose({k: v for k, v in groups.items() if k != name})
        print(f"| {name} | {len(rows)} | {cells(rows, (0.0, 0.0))} | {cells(rows, BEFORE)} | "
              f"coverage {cuts[0]}, confidence {cuts[1]} | {cells(rows, cuts)} |")
    cuts = choose(groups)
    print(f"chosen on all groups: coverage {cuts[0]}, confidence {cuts[1]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
