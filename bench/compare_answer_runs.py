"""Compare two runs of `queryweave eval answers --items` on the same questions, question by question.

Usage: python bench/compare_answer_runs.py BEFORE.jsonl AFTER.jsonl [BEFORE2.jsonl AFTER2.jsonl ...]

For each pair (the pipeline's rows only): answerable questions whose answer states the gold in one run and
not the other (+ gained / - lost), unanswerable questions declined (before -> after), answerable ones declined,
and the confidence AUROC (answers given; an answer to an unanswerable question is wrong), then the totals.
With `--show`, every question that changed is printed with both answers.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from queryweave.eval.answers import auroc, contains_gold


def pipeline_rows(path: str) -> dict[str, dict]:
    """The pipeline's outcome per question id."""
    rows = (json.loads(x) for x in Path(path).read_text(encoding="utf-8").splitlines() if x.strip())
    return {r["id"]: r for r in rows if r["system"] == "pipeline"}


def right(row: dict) -> bool:
    return bool(row["gold"]) and not row["abstained"] and contains_gold(row["answer"], row["gold"])


def summary(rows: dict[str, dict]) -> dict[str, float | None]:
    """Contains, unanswerable declined, answerable declined and AUROC of one run."""
    answerable = [r for r in rows.values() if r["gold"]]
    unanswerable = [r for r in rows.values() if not r["gold"]]
    given = [r for r in rows.values() if not r["abstained"]]
    return {"contains": sum(map(right, answerable)) / max(1, len(answerable)),
            "declined": sum(r["abstained"] for r in unanswerable) / len(unanswerable) if unanswerable else None,
            "wrong_declined": sum(r["abstained"] for r in answerable) / max(1, len(answerable)),
            "auroc": auroc([r["confidence"] or 0.0 for r in given], [right(r) for r in given])}


def compare(before: str, after: str, show: bool = False) -> tuple[int, int]:
    """Print one pair's line (and, with `show`, its changed questions); return (gained, lost)."""
    a, b = pipeline_rows(before), pipeline_rows(after)
    common = [i for i in a if i in b]
    gained = [i for i in common if a[i]["gold"] and right(b[i]) and not right(a[i])]
    lost = [i for i in common if a[i]["gold"] and right(a[i]) and not right(b[i])]
    sa, sb = summary({i: a[i] for i in common}), summary({i: b[i] for i in common})

    def cell(s: dict) -> str:
        return " / ".join("–" if v is None else f"{v:.3f}" for v in s.values())

    print(f"{Path(after).stem:<28} +{len(gained)} / -{len(lost)}   {cell(sa)}  ->  {cell(sb)}")
    if show:
        for i in gained + lost + [i for i in common if not a[i]["gold"] and a[i]["abstained"] != b[i]["abstained"]]:
            print(f"  {i} {a[i]['question'][:90]}\n    before: {a[i]['answer'][:160]!r}\n    after:  {b[i]['answer'][:160]!r}")
    return len(gained), len(lost)


def main(args: list[str]) -> int:
    show = "--show" in args
    paths = [a for a in args if not a.startswith("--")]
    if len(paths) < 2 or len(paths) % 2:
        print(__doc__)
        return 2
    print("set                          gained/lost  contains / declined / wrongly declined / AUROC: before -> after")
    totals = [compare(paths[i], paths[i + 1], show) for i in range(0, len(paths), 2)]
    print(f"total +{sum(g for g, _ in totals)} / -{sum(lost for _, lost in totals)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
