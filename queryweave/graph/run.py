"""One turn of the graph for the faces: `run_question` (what `queryweave ask` and the HTTP API's plain
calls run) and `shape` (the stable JSON shape of `ask --json`, which the API builds on)."""

from __future__ import annotations

import uuid
from typing import Any

from queryweave.config import Context


def durability(ctx: Context) -> str:
    """The LangGraph durability mode of a turn (`Context.checkpoint_durability`; 'exit' unless valid)."""
    mode = (ctx.checkpoint_durability or "exit").strip().lower()
    return mode if mode in {"exit", "async", "sync"} else "exit"


def run_question(ctx: Context, question: str | None, thread_id: str | None = None,
                 resume: str | None = None, image: str | None = None, audio: str | None = None,
                 audio_language: str | None = None) -> dict[str, Any]:
    """Invoke the graph with the SQLite/PostgreSQL checkpointer; returns the output plus `thread_id`."""
    from langgraph.types import Command

    from queryweave.graph.builder import build_graph
    from queryweave.graph.checkpoint import make_checkpointer

    thread_id = thread_id or uuid.uuid4().hex[:12]
    graph = build_graph(checkpointer=make_checkpointer(ctx))
    config = {"configurable": {"thread_id": thread_id}}
    if resume is not None:
        payload: Any = Command(resume=resume)
    else:
        payload = {"question": question or ""}
        if image:
            payload["image"] = image
        if audio:  # transcribed by the `speech` node (tools/media/speech.py)
            payload["audio"] = audio
            if audio_language:
                payload["audio_language"] = audio_language
    result = dict(graph.invoke(payload, config=config, context=ctx, durability=durability(ctx)))
    interrupts = result.pop("__interrupt__", None)
    if interrupts:
        value = interrupts[0].value if hasattr(interrupts[0], "value") else interrupts[0]
        result["clarification"] = value
        result.setdefault("answer", "")
    if not result.get("backend"):  # a pause before any answering node still says which back-end runs
        from queryweave.models import resolve_backend

        result["backend"] = resolve_backend(ctx.model_settings())
    result["thread_id"] = thread_id
    return result


def shape(result: dict[str, Any]) -> dict[str, Any]:
    """The stable JSON shape of `ask --json`."""
    citations = [{"chunk_id": c.get("chunk_id"), "source": c.get("source"), "title": c.get("title", ""),
                  "text": c.get("text", "")} for c in result.get("citations") or []]
    out = {
        "answer": result.get("answer", ""),
        "citations": citations,
        "intent": result.get("intent"),
        "route": result.get("route"),
        "k": result.get("k"),
        "confidence": result.get("confidence"),
        "backend": result.get("backend"),
        "timings": result.get("timings") or {},
        "resolved_query": result.get("resolved_query"),
        "needs_retrieval": result.get("needs_retrieval", True),
        "thread_id": result.get("thread_id"),
        "degraded": bool(result.get("degraded")),
        "abstained": bool(result.get("abstained")),
    }
    for key in ("missing_terms", "nearest", "withheld", "clarification", "sql", "cypher", "rows", "verdicts", "strategy", "attempts", "degraded_reasons",
                "transcript", "confidence_features"):
        if result.get(key):
            out[key] = result[key]
    return out
