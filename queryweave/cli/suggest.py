"""`queryweave suggest PREFIX`: completions from titles, headings, popular queries and neighbours."""

from __future__ import annotations

import argparse

from queryweave.cli.main import print_json


def run(args: argparse.Namespace) -> int:
    """Print suggestions for a prefix."""
    from queryweave.tools.stores.kb import open_kb_for
    from queryweave.tools.suggest.suggester import open_suggester

    ctx = args.context
    kb = open_kb_for(ctx)
    suggestions = open_suggester(kb.data_dir, kb.catalog).suggest(args.prefix, limit=args.limit)
    if args.json:
        print_json({"prefix": args.prefix, "suggestions": [
            {"text": s.text, "source": s.source, "score": round(s.score, 4)} for s in suggestions]})
    else:
        for s in suggestions:
            print(f"{s.text}\t({s.source})")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add `suggest`."""
    p = sub.add_parser("suggest", help="search suggestions for a prefix (as the user types)")
    p.add_argument("prefix")
    p.add_argument("--limit", type=int, default=8)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run)
