"""Post-ingest enrichers chosen by configuration: each gets the KB and the sources that changed.

Summaries, the entity graph and Doc2Query register here; the ingest pipeline stays unaware of them.
"""

from __future__ import annotations

from typing import Any

from queryweave.tools.ingest import Enricher


def enrichers(ctx: Any) -> list[Enricher]:
    """The enrichers switched on for this context (none yet in the foundation)."""
    return []
