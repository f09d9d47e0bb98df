"""`queryweave eval rewrite FILE`: follow-up rewriting against gold rewrites (CANARD-style JSONL)."""

from __future__ import annotations

import argparse
import json

from queryweave.cli.main import print_json

COLUMNS = ("exact", "f1", "entity_recall", "search_recall", "hint_terms", "kept", "changed", "splices")


def run(args: argparse.Namespace) -> int:
    """Score `none`, `rules` and (with a model) `llm` and `graph` on FILE; print one row per system and language."""
    from queryweave.eval.rewrite import evaluate, graph_rewriter, llm_rewriter, read_rewrites, rules_rewriter

    items = read_rewrites(args.file, limit=args.limit)
    systems = {"none": lambda q, h: q, "rules": rules_rewriter()}
    if args.context.llm not in ("rules", "auto") or (args.context.llm == "auto" and _has_model(args.context)):
        systems["llm"] = llm_rewriter(args.context)
        systems["graph"] = graph_rewriter(args.context)
    out = open(args.items, "w", encoding="utf-8") if args.items else None  # noqa: SIM115 - closed below

    def keep(system: str, item, text: str, hints: list[str]) -> None:
        if out is not None:
            out.write(json.dumps({"system": system, "id": item.id, "question": item.question,
                                  "gold": item.rewrite, "output": text, "hints": hints}, ensure_ascii=False) + "\n")

    try:
        result = evaluate(items, systems, on_output=keep)
    finally:
        if out is not None:
            out.close()
    result["file"] = args.file
    if args.json:
        print_json(result)
        return 0
    print(f"{args.file}: {result['n']} follow-ups")
    print(f"  {'system':<8} {'lang':<4} " + " ".join(f"{c:>13}" for c in COLUMNS))
    for name, by_lang in result["rows"].items():
        for lang, row in by_lang.items():
            cells = " ".join(f"{'-' if row[c] is None else row[c]:>13}" for c in COLUMNS)
            print(f"  {name:<8} {lang:<4} {cells}")
    return 0


def _has_model(ctx) -> bool:
    from queryweave.models import resolve_backend

    return resolve_backend(ctx) != "rules"


def register_eval(ev: argparse._SubParsersAction) -> None:
    """Add `eval rewrite`."""
    p = ev.add_parser("rewrite", help="follow-up rewriting vs gold rewrites: none, rules, llm")
    p.add_argument("file", help="CANARD-style JSONL: history, question, rewrite, needs_rewrite")
    p.add_argument("--limit", type=int, default=None, help="only the first N items")
    p.add_argument("--items", default=None, help="write every output as JSON lines to this file")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run)
