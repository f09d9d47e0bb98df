"""`queryweave eval answers PATH`: answer-level scores (fact stated, citation, abstention, confidence)."""

from __future__ import annotations

import argparse
import json
import tempfile
from dataclasses import asdict

from queryweave.cli.main import print_json

COLUMNS = ("contains", "f1", "citation_precision", "abstain_recall", "abstain_precision", "wrong_abstain",
           "auroc", "top_half", "ms_per_question")


def run(args: argparse.Namespace) -> int:
    """Ingest the corpus, run baseline / pipeline / (with a model) naive chain, print the table."""
    from queryweave.eval.answer_systems import baseline, naive, pipeline
    from queryweave.eval.answers import evaluate, load_set
    from queryweave.models import get_chat_model
    from queryweave.tools.ingest.pipeline import ingest
    from queryweave.tools.stores.kb import close_all, open_kb_for

    corpus, items = load_set(args.path, args.corpus, args.limit)
    tmp = None if args.keep else tempfile.TemporaryDirectory(prefix="qw-answers-")
    data_dir = args.keep or tmp.name
    ctx = args.context.with_overrides(data_dir=data_dir)
    out = open(args.items, "w", encoding="utf-8") if args.items else None  # noqa: SIM115 - closed below
    try:
        kb = open_kb_for(ctx)
        max_chars = 1500 if str(corpus).endswith(".jsonl") else 800
        ingest(kb, [corpus], max_chars=max_chars, progress=not args.json)
        systems = {"baseline": baseline(kb), "pipeline": pipeline(ctx)}
        llm = get_chat_model(ctx)
        if llm is not None:
            systems["naive"] = naive(kb, llm)

        def keep(name, item, outcome) -> None:
            if out is not None:
                out.write(json.dumps({"system": name, "id": item.id, "question": item.question,
                                      "gold": item.answers, **asdict(outcome)}, ensure_ascii=False) + "\n")

        result = evaluate(items, systems, progress=not args.json, on_outcome=keep)
    finally:
        if out is not None:
            out.close()
        close_all()
        if tmp is not None:
            tmp.cleanup()
    result |= {"path": args.path, "corpus": str(corpus), "embedding": ctx.embedding}
    if args.json:
        print_json(result)
        return 0
    print(f"{args.path}: {result['n']} questions (corpus {corpus}, embedding {ctx.embedding})")
    print(f"  {'system':<9} {'lang':<4} " + " ".join(f"{c[:12]:>12}" for c in COLUMNS))
    for name, by_lang in result["rows"].items():
        for lang, row in by_lang.items():
            cells = " ".join(f"{'-' if row.get(c) is None else row.get(c):>12}" for c in COLUMNS)
            print(f"  {name:<9} {lang:<4} {cells}")
    return 0


def register_eval(ev: argparse._SubParsersAction) -> None:
    """Add `eval answers`."""
    p = ev.add_parser("answers", help="answer-level scores: gold fact stated, citations, abstention, confidence")
    p.add_argument("path", help="BEIR folder whose queries carry `answers`, or a JSONL question file")
    p.add_argument("--corpus", default=None, help="documents to answer from (needed with a JSONL file)")
    p.add_argument("--limit", type=int, default=None, help="only the first N questions")
    p.add_argument("--keep", default=None, metavar="DIR", help="ingest into DIR and keep it (reruns skip ingest)")
    p.add_argument("--items", default=None, help="write every outcome as JSON lines to this file")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run)
