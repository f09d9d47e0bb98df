"""`queryweave stats`: documents, chunks and per-store counts."""

from __future__ import annotations

import argparse

from queryweave.cli.main import print_json


def run(args: argparse.Namespace) -> int:
    """Print the knowledge base's counts."""
    from queryweave.tools.stores.kb import open_kb_for

    ctx = args.context
    kb = open_kb_for(ctx)
    stats = kb.stats()
    if args.json:
        print_json(stats)
    else:
        print(f"data dir: {kb.data_dir}")
        print(f"documents: {stats['documents']}  chunks: {stats['chunks']}")
        for name, info in stats["stores"].items():
            print(f"  {name}: " + ", ".join(f"{k}={v}" for k, v in info.items()))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add `stats`."""
    p = sub.add_parser("stats", help="counts of documents, chunks and stores")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run)
