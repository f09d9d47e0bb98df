"""Choose the confidence below which an extractive answer is withheld, leaving whole knowledge bases out.

Usage:
  python bench/fit_abstain_cut.py GROUP=ITEMS.jsonl[,ITEMS2.jsonl] ... [--write]

ITEMS files are what `queryweave eval answers --items` writes, run with the cut off
(`QUERYWEAVE_CONFIDENCE_CUT=off`), so every answer and its final confidence is seen. A GROUP is one
knowledge base (every question asked of it). For each group in turn the cut is chosen on the other
groups and scored on it: the highest cut (0.50 to 0.85, steps of 0.01) that declines at most
`MAX_RIGHT_LOST` of the training groups' answerable questions that were answered *right* (declining a
wrong answer to an answerable question is no loss to a user, but it counts as a wrong abstention in
`eval answers`, reported here as it is). Printed per held-out group, before -> after: `abst.rec`
(unanswerable questions declined), `wrong abst.` (answerable questions declined), `contains`
(answerable questions answered with a gold answer). `--write` stores the cut chosen on all groups in
`queryweave/tools/grounding/confidence_weights.py`. As in `reflect`, the cut judges only answers in the
question's language: across languages few words match and the confidence runs low for right answers too.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.fit_confidence import load  # noqa: E402
from queryweave.nodes.reflect import same_language  # noqa: E402

MAX_RIGHT_LOST = 0.02
CUTS = [round(0.50 + 0.01 * i, 2) for i in range(36)]


def outcome(rows: list[dict], cut: float) -> dict[str, float]:
    """abst.rec, wrong abst., contains and right answers lost when answers below `cut` are withheld."""
    ans = [r for r in rows if r["answerable"]]
    una = [r for r in rows if not r["answerable"]]

    def declined(r: dict) -> bool:
        if r["abstained"]:
            return True
        return same_language(r["question"], r["answer"]) and float(r.get("confidence") or 0.0) < cut

    return {"abst.rec": sum(map(declined, una)) / len(una) if una else float("nan"),
            "wrong abst.": sum(map(declined, ans)) / len(ans) if ans else float("nan"),
            "contains": sum(r["right"] and not declined(r) for r in ans) / len(ans) if ans else float("nan"),
            "lost": sum(r["right"] and declined(r) and not r["abstained"] for r in ans) / len(ans) if ans else 0.0}


def choose(rows: list[dict]) -> float:
    """The highest cut that loses at most MAX_RIGHT_LOST of the answerable questions answered right."""
    ok = [c for c in CUTS if outcome(rows, c)["lost"] <= MAX_RIGHT_LOST]
    return max(ok) if ok else 0.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("groups", nargs="+", help="GROUP=items.jsonl[,items2.jsonl]")
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args()
    groups = {g.split("=", 1)[0]: load(g.split("=", 1)[1].split(",")) for g in args.groups}
    print("| held-out group | cut chosen without it | abst.rec | wrong abst. | contains |")
    print("|---|---|---|---|---|")
    for name, rows in groups.items():
        cut = choose([r for other, rs in groups.items() if other != name for r in rs])
        a, b = outcome(rows, 0.0), outcome(rows, cut)
        cells = [f"{a[k]:.3f} -> {b[k]:.3f}" for k in ("abst.rec", "wrong abst.", "contains")]
        print(f"| {name} | {cut:.2f} | " + " | ".join(cells) + " |")
    cut = choose([r for rs in groups.values() for r in rs])
    print(f"chosen on all groups: {cut:.2f}")
    if args.write:
        path = ROOT / "queryweave/tools/grounding/confidence_weights.py"
        text = path.read_text(encoding="utf-8")
        text = re.sub(r"ABSTAIN_CONFIDENCE_BELOW: float = [0-9.]+", f"ABSTAIN_CONFIDENCE_BELOW: float = {cut}", text)
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
