"""Helpers every node uses: the knowledge base for a context, timing, the question's language."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from queryweave.config import Context
from queryweave.tools.common.text import detect_language
from queryweave.tools.stores.catalogs import has_catalog
from queryweave.tools.stores.kb import KnowledgeBase, open_kb_for


class MissingKnowledgeBaseError(FileNotFoundError):
    """The data dir has no knowledge base (wrong `data_dir`, or nothing ingested yet)."""


def missing_knowledge_base(ctx: Context) -> str | None:
    """Why `ctx` has no knowledge base to answer from, or None. A data dir without a catalog (its
    `catalog.sqlite`, or its rows in the PostgreSQL catalog) is one (unless a SQL or graph source is
    configured: those answer without documents)."""
    if ctx.sql_url or ctx.graph_url:
        return None
    folder = Path(ctx.data_dir).expanduser()
    if has_catalog(folder, ctx.catalog_database, ctx.kb_name):
        return None
    return (f"no knowledge base at {folder} (wrong data_dir? run `queryweave --data-dir {folder} ingest "
            "PATH` first)")


def knowledge_base(ctx: Context) -> KnowledgeBase:
    """The knowledge base configured by `ctx` (opened once per process). `MissingKnowledgeBaseError`
    when the data dir has none: an empty one is never created just to answer "not found"."""
    problem = missing_knowledge_base(ctx)
    if problem:
        raise MissingKnowledgeBaseError(problem)
    return open_kb_for(ctx)


def query_of(state: dict[str, Any]) -> str:
    """The question to work with: the resolved (standalone) query, else the raw question."""
    return (state.get("resolved_query") or state.get("question") or "").strip()


def language_of(state: dict[str, Any], ctx: Context | None = None) -> str:
    """Answer language: the configured one, else that of the question."""
    if ctx is not None and ctx.language in {"zh", "en"}:
        return ctx.language
    return state.get("language") or detect_language(state.get("question") or "")


def timed(name: str) -> Callable:
    """Decorator: add the node's wall time in ms to `timings[name]`."""

    def wrap(fn: Callable) -> Callable:
        @functools.wraps(fn)
        def inner(state: dict[str, Any], runtime: Any = None) -> dict[str, Any]:
            t = time.perf_counter()
            out = fn(state, runtime) or {}
            timings = dict(out.get("timings") or {})
            timings[name] = round((time.perf_counter() - t) * 1000 + timings.get(name, 0.0), 2)
            return {**out, "timings": timings}

        return inner

    return wrap
