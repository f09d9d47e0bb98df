"""The LLM grader against the offline detector on the same texts of one HaluEval/UHGEval file.

Usage: python bench/bench_hallucination_llm.py --model-url URL [--model-name NAME] [--file NAME]
       [--records N] [--items OUT.jsonl]
(an OpenAI-compatible chat endpoint, e.g. `python -m llama_cpp.server --model M.gguf`; the file
defaults to halueval_summarization_lenmatched.jsonl in ../shared/data/hallucination.)

N records spread evenly over the file (both texts of each); every text is graded offline and by
the LLM once. Printed on the same texts: the offline detector (what `queryweave eval hallucination`
prints), the LLM for every text (`--llm-grader`), and the LLM only where the offline score is within
`UNSURE_MARGIN` of the threshold (`--llm-grader --llm-when unsure`), with the number of LLM calls
and seconds. `--items` keeps one JSON line per text (offline score, LLM verdicts).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from queryweave.eval.hallucination import metrics, read_hallucination, strict_for
from queryweave.tools.grounding.detector import THRESHOLD, UNSURE_MARGIN, groundedness

ROOT = Path(__file__).resolve().parent.parent


def _chat(url: str, name: str | None):
    from queryweave.config import Context
    from queryweave.models import get_chat_model

    ctx = Context().with_overrides(llm="openai", openai_base_url=url, openai_model=name or "local",
                                   llm_timeout_s=600)
    return get_chat_model(ctx)


def main() -> int:
    """Grade, then print the table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model-url", required=True)
    ap.add_argument("--model-name", default=None)
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "hallucination"))
    ap.add_argument("--file", default="halueval_summarization_lenmatched.jsonl")
    ap.add_argument("--records", type=int, default=30)
    ap.add_argument("--items", default=None)
    args = ap.parse_args()
    items = read_hallucination(Path(args.data) / args.file)
    records = sorted({it.record for it in items})
    step = max(1, len(records) // max(1, args.records))
    chosen = set(records[::step][: args.records])
    items = [it for it in items if it.record in chosen]
    llm = _chat(args.model_url, args.model_name)
    out = open(args.items, "w", encoding="utf-8") if args.items else None
    rows = []
    for n, it in enumerate(items, 1):
        strict = strict_for(it.kind)
        offline = groundedness(it.text, it.sources, strict=strict)
        t0 = time.time()
        graded = groundedness(it.text, it.sources, llm=llm, strict=strict)
        row = {"record": it.record, "label": it.label, "offline_score": offline.score,
               "offline": int(offline.hallucinated), "llm_method": graded.method,
               "llm": int(graded.hallucinated), "llm_score": graded.score,
               "verdicts": [v.supported for v in graded.verdicts], "seconds": round(time.time() - t0, 2)}
        rows.append(row)
        if out:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
            out.flush()
        print(f"  {n}/{len(items)} label={it.label} offline={row['offline']} llm={row['llm']} "
              f"({graded.method}, {row['seconds']}s)", file=sys.stderr)
    labels = [r["label"] for r in rows]
    unsure = [abs(r["offline_score"] - THRESHOLD) <= UNSURE_MARGIN for r in rows]
    combined = [r["llm"] if u else r["offline"] for r, u in zip(rows, unsure, strict=True)]
    failed = sum(r["llm_method"] != "llm" for r in rows)
    secs = sum(r["seconds"] for r in rows)
    print(f"\n{args.file}: {len(rows)} texts ({len(chosen)} records), hallucinated = positive")
    print(f"{'detector':<34}{'accuracy':>9}{'precision':>10}{'recall':>8}  LLM calls")
    for name, preds, calls in (("offline (default)", [r["offline"] for r in rows], 0),
                               ("LLM grader, every text", [r["llm"] for r in rows], len(rows)),
                               (f"LLM when unsure (|s-{THRESHOLD}|<={UNSURE_MARGIN})", combined, sum(unsure))):
        m = metrics(labels, preds)
        print(f"{name:<34}{m['accuracy']:>9.3f}{m['precision']:>10.2f}{m['recall']:>8.2f}  {calls}")
    print(f"LLM answers unusable (offline grader stood in): {failed}; {secs / max(1, len(rows)):.1f} s per LLM call")
    return 0


if __name__ == "__main__":
    sys.exit(main())
