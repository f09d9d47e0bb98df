"""Post-ingest enrichers chosen by configuration: each gets the KB and the sources that changed.

Summaries, the entity graph and Doc2Query register here; the ingest pipeline stays unaware of them.
Doc2Query (feature `doc2query`, off by default) needs an LLM: there is no offline question generator.
"""

from __future__ import annotations

from typing import Any

from queryweave.tools.ingest.pipeline import Enricher


def enrichers(ctx: Any) -> list[Enricher]:
    """The enrichers switched on for this context."""
    out: list[Enricher] = []
    if ctx.feature("doc2query", False):
        from queryweave.tools.ingest.doc2query import doc2query_enricher

        out.append(doc2query_enricher(ctx))
    if ctx.feature("summaries", True):
        from queryweave.tools.ingest.summaries import summaries_enricher

        out.append(summaries_enricher(ctx))
    if ctx.feature("entity_graph", True):
        from queryweave.tools.ingest.entity_graph import entity_graph_enricher

        out.append(entity_graph_enricher(ctx))
    return out
