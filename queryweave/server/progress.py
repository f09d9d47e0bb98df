"""Node progress of one run as a stream of small JSON events (for SSE, LangServe's stream and the page).

`stream_events` runs the graph with `stream_mode=["tasks", "messages", "custom"]` and yields:
`start` (thread id), `step` (a node started: `status="running"`; finished: `status="done"` with its
wall time and a few facts it decided — intent, route, k…), `token` (LLM text of `generate`, when a
model is used; `id` names the message, a new id is a new attempt after reflection), `note` (what a node wrote with LangGraph's stream writer), then exactly one of
`clarify` (the graph paused: question and options), `answer` (the final output) or `error`.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

from queryweave.config import Context
from queryweave.graph.run import durability, shape
from queryweave.server.schemas import jsonable

STEP_LABELS = {
    "begin": "Starting", "ocr": "Reading the image", "speech": "Transcribing the audio", "resolve": "Resolving the question",
    "necessity": "Deciding whether to search", "respond_direct": "Answering directly",
    "analyze": "Analysing intent", "clarify": "Asking for clarification", "route": "Choosing a strategy",
    "rewrite": "Rewriting the query", "self_query": "Building a metadata filter", "retrieve": "Retrieving",
    "rerank": "Reranking", "grade_documents": "Grading the documents", "text_to_sql": "Querying SQL",
    "text_to_cypher": "Querying the graph", "summary_retrieve": "Reading summaries",
    "generate": "Writing the answer", "reflect": "Checking the answer", "finish": "Finishing",
}
FACTS = ("intent", "strategy", "route", "k", "needs_retrieval", "resolved_query", "confidence", "filters",
         "queries", "sql", "cypher")
TOKEN_NODES = {"generate", "respond_direct"}
RESET_NODES = {"begin"}  # they only clear the previous turn: no facts worth showing


def label_of(node: str) -> str:
    """A readable label for a node name."""
    return STEP_LABELS.get(node, node.replace("_", " ").capitalize())


def _facts(result: Any) -> dict[str, Any]:
    items = result.items() if isinstance(result, dict) else (result or [])
    out = {}
    for key, value in items:
        if key in FACTS and value not in (None, "", [], {}):
            out[key] = jsonable(value)
    if isinstance(result, dict) and result.get("documents"):
        out["documents"] = len(result["documents"])
    return out


def interrupt_value(interrupts: Any) -> dict[str, Any] | None:
    """The first interrupt's value as a dict (`question`, `options`), or None."""
    for item in interrupts or ():
        value = getattr(item, "value", None) if not isinstance(item, dict) else item.get("value")
        if value is not None:
            return value if isinstance(value, dict) else {"question": str(value), "options": []}
    return None


def pending_clarification(graph: Any, thread_id: str) -> dict[str, Any] | None:
    """The clarification a thread is waiting on, or None."""
    state = graph.get_state({"configurable": {"thread_id": thread_id}})
    interrupts = list(getattr(state, "interrupts", ()) or ())
    for task in getattr(state, "tasks", ()) or ():
        interrupts.extend(getattr(task, "interrupts", ()) or ())
    return interrupt_value(interrupts)


def shape_output(result: dict[str, Any]) -> dict[str, Any]:
    """The API's output for a run's result or state values: `ask --json`'s shape, numbered citations."""
    out = shape(result)
    out["strategy"] = result.get("strategy") or None
    out["degraded_reasons"] = list(result.get("degraded_reasons") or [])
    out["citations"] = [{"n": c.get("n") or i, "chunk_id": c.get("chunk_id"), "source": c.get("source"),
                         "title": c.get("title") or "", "text": c.get("text") or ""}
                        for i, c in enumerate(result.get("citations") or [], 1)]
    return jsonable(out)


def final_output(graph: Any, thread_id: str) -> dict[str, Any]:
    """The shaped output of a thread's latest state."""
    values = dict(graph.get_state({"configurable": {"thread_id": thread_id}}).values)
    return shape_output(values | {"thread_id": thread_id})


def stream_events(graph: Any, ctx: Context, payload: Any, thread_id: str) -> Iterator[dict[str, Any]]:
    """Run `payload` (an input dict or a `Command`) on `thread_id`, yielding progress events."""
    config = {"configurable": {"thread_id": thread_id}}
    yield {"event": "start", "thread_id": thread_id}
    started: dict[str, float] = {}
    try:
        for mode, chunk in graph.stream(payload, config, context=ctx, durability=durability(ctx),
                                        stream_mode=["tasks", "messages", "custom"]):
            if mode == "tasks":
                name = chunk.get("name", "")
                if "input" in chunk:
                    started[chunk.get("id", name)] = time.perf_counter()
                    yield {"event": "step", "node": name, "label": label_of(name), "status": "running"}
                else:
                    t0 = started.pop(chunk.get("id", name), None)
                    ms = round((time.perf_counter() - t0) * 1000, 1) if t0 else None
                    status = "error" if chunk.get("error") else (
                        "waiting" if chunk.get("interrupts") else "done")
                    facts = {} if name in RESET_NODES else _facts(chunk.get("result"))
                    yield {"event": "step", "node": name, "label": label_of(name), "status": status,
                           "ms": ms, "facts": facts}
            elif mode == "messages":
                message, meta = chunk
                text = getattr(message, "content", "")
                if isinstance(text, str) and text and meta.get("langgraph_node") in TOKEN_NODES:
                    yield {"event": "token", "node": meta.get("langgraph_node"), "text": text,
                           "id": getattr(message, "id", None) or meta.get("checkpoint_ns")}
            elif mode == "custom":
                yield {"event": "note", "data": jsonable(chunk)}
    except Exception as exc:  # a node failed: report it, do not kill the stream mid-way
        yield {"event": "error", "thread_id": thread_id, "message": f"{type(exc).__name__}: {exc}"[:500]}
        return
    clarification = pending_clarification(graph, thread_id)
    if clarification is not None:
        yield {"event": "clarify", "thread_id": thread_id, "clarification": jsonable(clarification)}
        return
    yield {"event": "answer", **final_output(graph, thread_id)}
