"""`finish`: close the turn — record the answer in the thread's messages (conversation memory) and
count the query in the popular-queries log that feeds search suggestions."""

from __future__ import annotations

import logging
from typing import Any

from langchain_core.messages import AIMessage

from queryweave.config import context_of
from queryweave.tools.suggest.suggester import record_query

log = logging.getLogger(__name__)


def finish(state: dict[str, Any], runtime: Any = None) -> dict[str, Any]:
    """Append the answer to the conversation, log the query, flag degraded runs."""
    out: dict[str, Any] = {"messages": [AIMessage(state.get("answer") or "")]}
    if state.get("degraded_reasons"):
        out["degraded"] = True
    ctx = context_of(runtime)
    if state.get("needs_retrieval", True) and state.get("citations") and ctx.feature("query_log"):
        try:
            record_query(state.get("resolved_query") or state.get("question") or "", ctx.data_dir)
        except Exception as exc:  # the log is a convenience: never fail an answer over it
            log.warning("could not record the query: %s", exc)
    return out
