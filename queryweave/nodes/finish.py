"""`finish`: close the turn — record the answer in the thread's messages (conversation memory)."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage


def finish(state: dict[str, Any], runtime: Any = None) -> dict[str, Any]:
    """Append the answer to the conversation and flag degraded runs."""
    out: dict[str, Any] = {"messages": [AIMessage(state.get("answer") or "")]}
    if state.get("degraded_reasons"):
        out["degraded"] = True
    return out
