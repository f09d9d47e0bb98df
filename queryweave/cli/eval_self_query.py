"""`queryweave eval self-query FILE`: metadata filters built from labelled questions, against your schema."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from queryweave.cli.main import fail, print_json

COLUMNS = ("n", "exact", "precision", "recall", "llm")


def _schema(args: argparse.Namespace):
    from queryweave.tools.retrieval.self_query import MetadataSchema, schema_for

    if args.schema:
        return MetadataSchema.from_dict(json.loads(Path(args.schema).read_text(encoding="utf-8")))
    return schema_for(args.context.data_dir)  # what the graph's self_query node reads


def _embed(args: argparse.Namespace):
    """The run's embedding function for value matching by similarity (None with --no-embeddings or when
    the model cannot load: lexical matching only, as the graph does during an outage)."""
    if args.no_embeddings:
        return None
    from queryweave.tools.stores.embeddings import get_embeddings

    try:
        return get_embeddings(args.context.embedding, cached=False).embed_documents
    except Exception:
        return None


def run(args: argparse.Namespace) -> int:
    """Score `rules` and, with a model configured, `rules+llm` (the query constructor where the rules are
    unsure, as in the graph) and `llm` (the query constructor for every question; the rules' filter where
    it fails); print one row per system and language (or JSON)."""
    from queryweave.eval.self_query import check_labels, evaluate, read_self_query
    from queryweave.models import get_chat_model
    from queryweave.tools.retrieval.self_query import extract

    try:
        items = read_self_query(args.file, limit=args.limit)
        schema = _schema(args)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return fail(str(exc))
    if not items:
        return fail(f"{args.file}: no labelled questions")
    unknown = check_labels(items, schema)
    embed = _embed(args)
    systems = {"rules": lambda q: extract(q, schema, embed=embed)}
    llm = get_chat_model(args.context.model_settings())
    if llm is not None:  # the graph's way (the model where the rules are unsure), and the model for every question
        systems["rules+llm"] = lambda q: extract(q, schema, llm=llm, embed=embed)
        systems["llm"] = lambda q: extract(q, schema, llm=llm, embed=embed, llm_when="always")
    out = open(args.items, "w", encoding="utf-8") if args.items else None  # noqa: SIM115 - closed below

    def keep(system: str, s) -> None:
        if out is not None:
            out.write(json.dumps({"system": system, "query": s.item.query, "lang": s.item.lang, "exact": s.exact,
                                  "source": s.source, "extra": sorted(map(list, s.extra), key=str),
                                  "missing": sorted(map(list, s.missing), key=str)}, ensure_ascii=False) + "\n")

    try:
        result = evaluate(items, systems, on_scored=keep)
    finally:
        if out is not None:
            out.close()
    result.update(file=args.file, embeddings=embed is not None, label_problems=unknown)
    if args.json:
        print_json(result)
        return 0
    print(f"{args.file}: {result['n']} labelled questions, {len(schema.fields)} schema fields"
          f"{'' if embed else ', no embeddings'}")
    for problem in unknown:
        print(f"  label problem: {problem}")
    print(f"  {'system':<10} {'lang':<4} " + " ".join(f"{c:>9}" for c in COLUMNS))
    for name, by_lang in result["rows"].items():
        for lang, row in by_lang.items():
            print(f"  {name:<10} {lang:<4} " + " ".join(f"{'-' if row[c] is None else row[c]:>9}" for c in COLUMNS))
    return 0


def register_eval(ev: argparse._SubParsersAction) -> None:
    """Add `eval self-query`."""
    p = ev.add_parser("self-query", help="exact metadata filters on labelled questions, against your schema")
    p.add_argument("file", help='JSONL: {"query", "lang", "filter": [[field, comparator, value], ...]}')
    p.add_argument("--schema", default=None,
                   help="schema JSON (default: <data dir>/metadata_schema.json, as the graph reads it)")
    p.add_argument("--no-embeddings", action="store_true", help="lexical value matching only")
    p.add_argument("--limit", type=int, default=None, help="only the first N questions")
    p.add_argument("--items", default=None, help="write every outcome as JSON lines to this file")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run)
