"""`queryweave eval hallucination FILE`: the groundedness detector on HaluEval/UHGEval-style JSONL."""

from __future__ import annotations

import argparse
import json
import sys

from queryweave.cli.main import print_json


def run(args: argparse.Namespace) -> int:
    """Score the detector on every right and hallucinated text of FILE; print metrics."""
    from queryweave.eval.hallucination import detector, evaluate, read_hallucination

    items = read_hallucination(args.file, limit=args.limit)
    llm = None
    if args.llm_grader or args.model_url:
        from queryweave.models import get_chat_model

        ctx = args.context
        if args.model_url:
            ctx = ctx.with_overrides(llm="openai", openai_base_url=args.model_url,
                                     openai_model=args.model_name or ctx.openai_model)
        llm = get_chat_model(ctx.model_settings())
        if llm is None:
            print("--llm-grader needs an LLM back-end: pass --llm openai|llamacpp or --model-url URL",
                  file=sys.stderr)
            return 2
    strict = True if args.strict else False if args.lenient else None
    out = open(args.items, "w", encoding="utf-8") if args.items else None  # noqa: SIM115 - closed below

    def keep(item, report) -> None:
        if out is not None:
            out.write(json.dumps({"record": item.record, "kind": item.kind, "label": item.label,
                                  "hallucinated": int(report.hallucinated), "score": report.score,
                                  "method": report.method, "unsupported": report.unsupported[:5],
                                  "text": item.text}, ensure_ascii=False) + "\n")

    try:
        result = evaluate(items, detector(llm=llm, strict=strict, llm_when=args.llm_when, on_report=keep),
                          progress=not args.json)
    finally:
        if out is not None:
            out.close()
    if args.json:
        print_json(result)
    else:
        kinds = sorted({it.kind for it in items})
        print(f"{args.file} ({', '.join(kinds)}): {result['n']} texts, hallucinated = positive")
        for key in ("accuracy", "precision", "recall"):
            print(f"  {key:<10} {result[key]:.4f}")
    return 0


def register_eval(ev: argparse._SubParsersAction) -> None:
    """Add `eval hallucination`."""
    p = ev.add_parser("hallucination", help="accuracy/precision/recall of the groundedness detector")
    p.add_argument("file", help="HaluEval-style (qa, summarization, dialogue) or UHGEval-style JSONL")
    p.add_argument("--limit", type=int, default=None, help="only the first N records (2 texts each)")
    p.add_argument("--json", action="store_true", help='print {"accuracy", "precision", "recall", "n"}')
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--lenient", action="store_true",
                      help="judge every text by the support score alone: a number, entity or negation "
                           "the sources lack does not by itself make it hallucinated (default for "
                           "summaries and continuations)")
    mode.add_argument("--strict", action="store_true",
                      help="a number, entity or negation the sources lack or contradict makes any text "
                           "hallucinated (default for QA answers and dialogue responses)")
    p.add_argument("--items", default=None,
                   help="write one JSON line per text: label, verdict, score, grader, unsupported claims")
    p.add_argument("--llm-grader", action="store_true",
                   help="grade claims with the configured chat model (offline grader when it fails)")
    p.add_argument("--model-url", default=None, help="OpenAI-compatible endpoint of the grader (implies --llm-grader)")
    p.add_argument("--model-name", default=None, help="model name at --model-url")
    p.add_argument("--llm-when", choices=["always", "unsure"], default="always",
                   help="with a grader: ask it for every text, or only when the offline score is near "
                        "the threshold (rules first)")
    p.set_defaults(func=run)
