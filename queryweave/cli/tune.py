"""`queryweave tune`: propose per-intent k and strategy settings from the retrieval log and an eval folder.

Shows each proposed change with the evidence behind it; `--apply` writes them to `tuning.json` in
the data dir, which retrieval then follows (feature switches still override).
"""

from __future__ import annotations

import argparse

from queryweave.cli.main import fail, print_json


def run(args: argparse.Namespace) -> int:
    """Print proposals (and apply them with --apply)."""
    from queryweave.tools.retrieval import tuner
    from queryweave.tools.stores.querylog import RetrievalLog

    ctx = args.context
    proposals, table, logged = [], {}, 0
    log = RetrievalLog(ctx.data_dir, ctx.database_url)
    logged = log.count()
    proposals += tuner.from_log(log, min_queries=args.min_queries)
    log.close()
    if args.eval:
        from queryweave.eval.retrieval import ablation_searchers, evaluate

        result = evaluate(args.eval, embedding=ctx.embedding, limit=args.limit, per_query=True,
                          progress=not args.json, searchers=lambda kb: ablation_searchers(kb, 100))
        current = {i: v.get("strategy", "") for i, v in tuner.tuned(ctx.data_dir).items()}
        default = "+prf" if ctx.profile != "fast" else "hybrid"
        current = {i: current.get(i) or default for i in ("factual", "reasoning", "comprehensive", "fuzzy")}
        eval_props, table = tuner.from_eval(result, current, min_queries=args.min_queries)
        proposals += eval_props
    if not logged and not args.eval:
        return fail("nothing to tune from: the retrieval log is empty; ask some questions or pass --eval DIR")
    applied = tuner.apply(ctx.data_dir, proposals) if args.apply and proposals else None
    if args.json:
        print_json({"logged_queries": logged, "proposals": [p.as_dict() for p in proposals],
                    "per_intent": table, "applied": applied})
        return 0
    print(f"retrieval log: {logged} queries" + (f"; eval folder: {args.eval}" if args.eval else ""))
    for intent, info in table.items():
        print(f"\n{intent} ({info['queries']} eval questions)")
        for name, r in info["rows"].items():
            print(f"  {name:<18} nDCG@10 {r['ndcg@10']:<7} recall@5 {r['recall@5']:<7} "
                  f"recall@20 {r['recall@20']:<7} {r['ms_per_query']} ms")
    print("\nproposals:" if proposals else "\nno changes proposed: the current settings are as good as the evidence")
    for p in proposals:
        print(f"  [{p.source}] {p.intent}: {p.setting} {p.current} -> {p.proposed}  because {p.reason}")
    if applied is not None:
        print(f"applied to {tuner.tuning_path(ctx.data_dir)}")
    elif proposals:
        print("(run again with --apply to use them)")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add `tune`."""
    p = sub.add_parser("tune", help="propose per-intent k / strategy settings from the query log and an eval set")
    p.add_argument("--eval", default=None, metavar="DIR", help="a BEIR-style folder to measure the strategies on")
    p.add_argument("--limit", type=int, default=None, help="only the first N eval questions")
    p.add_argument("--min-queries", type=int, default=5, help="evidence needed per intent / strategy")
    p.add_argument("--apply", action="store_true", help="write the proposals to tuning.json in the data dir")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run)
