"""`queryweave eval retrieval DIR`: BM25, dense and the pipeline on a BEIR-style folder, one run."""

from __future__ import annotations

import argparse

from queryweave.cli.main import print_json
from queryweave.eval.retrieval import evaluate, format_table


def run(args: argparse.Namespace) -> int:
    """Print the metric table (or JSON)."""
    result = evaluate(args.dir, embedding=args.context.embedding, limit=args.limit,
                      progress=not args.json)
    print_json(result) if args.json else print(format_table(result))
    return 0


def register_eval(ev: argparse._SubParsersAction) -> None:
    """Add `eval retrieval`."""
    p = ev.add_parser("retrieval", help="nDCG@10, Recall@10/100 etc. of BM25, dense and the pipeline")
    p.add_argument("dir", help="folder with corpus.jsonl, queries.jsonl, qrels.tsv")
    p.add_argument("--limit", type=int, default=None, help="only the first N queries")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run)
