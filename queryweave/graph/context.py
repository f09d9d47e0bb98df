"""The graph's context schema: the run configuration `queryweave.config.Context`.

The class lives in `queryweave.config` so that nodes (below the graph) can read it without importing
the graph; this module names it as the schema the builder passes to `StateGraph(context_schema=...)`
and keeps `from queryweave.graph.context import Context` working for notebooks and Studio users.
"""

from queryweave.config import Context, context_of

__all__ = ["Context", "context_of"]
