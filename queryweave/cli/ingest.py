"""`queryweave ingest PATH...` and `queryweave delete SOURCE...`."""

from __future__ import annotations

import argparse

from queryweave.cli.main import print_json


def _kb(args: argparse.Namespace):
    from queryweave.tools.stores.kb import open_kb_for

    ctx = args.context
    return open_kb_for(ctx)


def enrichers_for(ctx) -> list:
    """Post-ingest steps switched on in the context (summaries, entity graph, Doc2Query...)."""
    from queryweave.tools.ingest.enrich import enrichers

    out = enrichers(ctx)
    if ctx.feature("unit_vectors", True):  # the texts answering embeds, embedded now rather than per question
        from queryweave.tools.grounding.unit_vectors import unit_vectors_enricher

        out.insert(0, unit_vectors_enricher())
    return out


def run_ingest(args: argparse.Namespace) -> int:
    """Ingest files and folders."""
    from queryweave.tools.ingest.pipeline import ingest

    kb = _kb(args)
    report = ingest(kb, args.paths, max_chars=args.chunk_chars, overlap=args.chunk_overlap,
                    progress=not args.json and not args.quiet, enrichers=enrichers_for(args.context))
    if args.json:
        print_json(report.as_dict() | {"data_dir": str(kb.data_dir)})
    else:
        print(f"ingested into {kb.data_dir}: {report.seen} documents seen, {report.added} added, "
              f"{report.updated} updated, {report.unchanged} unchanged; chunks +{report.chunks_added} "
              f"-{report.chunks_removed}")
    return 0


def run_delete(args: argparse.Namespace) -> int:
    """Delete documents by source (a trailing '/' deletes every source under that prefix)."""
    from queryweave.tools.ingest.pipeline import delete_sources

    kb = _kb(args)
    n = delete_sources(kb, args.sources, enrichers=enrichers_for(args.context))
    if args.json:
        print_json({"deleted": n})
    else:
        print(f"deleted {n} document(s)")
    return 0 if n else 1


def run_reconcile(args: argparse.Namespace) -> int:
    """Make Chroma and BM25 agree with the catalog (after a crash)."""
    from queryweave.tools.ingest.pipeline import reconcile

    out = reconcile(_kb(args))
    print_json(out) if args.json else print(out)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add `ingest`, `delete` and `reconcile`."""
    p = sub.add_parser("ingest", help="ingest files/folders (Markdown, MDX, reStructuredText, Word .docx, notebooks .ipynb, text, HTML, PDF, BEIR corpus.jsonl)")
    p.add_argument("paths", nargs="+")
    p.add_argument("--chunk-chars", type=int, default=800)
    p.add_argument("--chunk-overlap", type=int, default=100)
    p.add_argument("--json", action="store_true")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=run_ingest)
    d = sub.add_parser("delete", help="delete documents by source")
    d.add_argument("sources", nargs="+")
    d.add_argument("--json", action="store_true")
    d.set_defaults(func=run_delete)
    r = sub.add_parser("reconcile", help="repair the stores after an interrupted ingest")
    r.add_argument("--json", action="store_true")
    r.set_defaults(func=run_reconcile)
