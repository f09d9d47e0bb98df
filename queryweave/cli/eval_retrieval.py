"""`queryweave eval retrieval DIR [--ablation]`: BM25, dense and the pipeline on a BEIR-style folder.

`--ablation` adds one row per configuration (hybrid, + each strategy, full, the default pipeline), all
in one run; with an LLM configured (`--llm openai|llamacpp`) the LLM strategies get rows of their own.
`--doc2query` first expands the corpus with LLM-generated questions (cached; slow on a small CPU model).
With an LLM, every row also reports `llm_calls_per_query` (chat-model calls, retries included), counted
by a callback on the model.
"""

from __future__ import annotations

import argparse
from dataclasses import replace

from queryweave.cli.main import fail, print_json


class LLMCallCounter:
    """Counts chat-model calls by row: a LangChain callback plus wrappers around the searchers."""

    def __init__(self) -> None:
        self.total = 0
        self.by_row: dict[str, int] = {}
        self.queries: dict[str, int] = {}

    def attach(self, llm) -> None:
        """Count every call `llm` makes (structured and plain, through any binding of it)."""
        from langchain_core.callbacks import BaseCallbackHandler

        counter = self

        class _Handler(BaseCallbackHandler):
            def on_chat_model_start(self, *args, **kwargs) -> None:
                counter.total += 1

            def on_llm_start(self, *args, **kwargs) -> None:
                counter.total += 1

        llm.callbacks = [*(llm.callbacks or []), _Handler()]

    def wrap(self, searchers: dict) -> dict:
        """The same searchers, each counting the calls made while it runs."""
        def counted(name, fn):
            def run(query):
                before = self.total
                try:
                    return fn(query)
                finally:
                    self.by_row[name] = self.by_row.get(name, 0) + self.total - before
                    self.queries[name] = self.queries.get(name, 0) + 1
            return run
        return {name: counted(name, fn) for name, fn in searchers.items()}

    def per_query(self, name: str) -> float:
        """Mean calls per query of a row."""
        return round(self.by_row.get(name, 0) / max(1, self.queries.get(name, 0)), 2)


def run(args: argparse.Namespace) -> int:
    """Print the metric table (or JSON)."""
    from queryweave.eval.retrieval import ablation_searchers, default_searchers, evaluate, format_table
    from queryweave.models import get_chat_model
    from queryweave.tools.retrieval.profiles import settings_for_context

    ctx = args.context
    llm = get_chat_model(ctx.model_settings()) if args.ablation or args.doc2query else None
    settings = replace(settings_for_context(ctx), pool=args.depth, cache=False)
    if args.doc2query and llm is None:
        return fail("--doc2query needs an LLM (--llm openai|llamacpp): there is no offline Doc2Query")
    ingest_kwargs = {}
    if args.doc2query:
        from queryweave.tools.ingest.doc2query import doc2query_enricher

        ingest_kwargs["enrichers"] = [doc2query_enricher(ctx)]
    counter = LLMCallCounter()
    if llm is not None:
        counter.attach(llm)
    if args.ablation:
        def searchers(kb):
            return counter.wrap(ablation_searchers(kb, args.depth, llm=llm, settings=settings, reranker=args.reranker))
    else:
        def searchers(kb):
            return counter.wrap(default_searchers(kb, args.depth, settings))
    result = evaluate(args.dir, embedding=ctx.embedding, limit=args.limit, progress=not args.json,
                      searchers=searchers, data_dir=args.keep, ingest_kwargs=ingest_kwargs)
    result["profile"] = ctx.profile
    result["pipeline"] = settings.strategies()
    columns = None
    if llm is not None:
        for row in result["rows"]:
            row["llm_calls_per_query"] = counter.per_query(row["name"])
        columns = ["ndcg@10", "recall@10", "recall@100", "mrr@10", "ms_per_query", "llm_calls_per_query"]
    print_json(result) if args.json else print(format_table(result, columns) + f"\npipeline ({ctx.profile}): "
                                               + ", ".join(settings.strategies()))
    return 0


def register_eval(ev: argparse._SubParsersAction) -> None:
    """Add `eval retrieval`."""
    p = ev.add_parser("retrieval", help="nDCG@10, Recall@10/100 etc. of BM25, dense and the pipeline")
    p.add_argument("dir", help="folder with corpus.jsonl, queries.jsonl, qrels.tsv")
    p.add_argument("--limit", type=int, default=None, help="only the first N queries")
    p.add_argument("--ablation", action="store_true", help="one row per configuration (hybrid, +each strategy, full)")
    p.add_argument("--reranker", default="features", help="reranker of the +rerank row: features | cross-encoder:/path")
    p.add_argument("--doc2query", action="store_true", help="expand the corpus with LLM questions first (slow)")
    p.add_argument("--depth", type=int, default=100, help="candidates per retriever and ranking depth")
    p.add_argument("--keep", default=None, metavar="DIR", help="ingest into DIR and keep it (reruns skip ingest)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run)
