"""Wiring only: nodes, edges and routers. `graph` (no checkpointer) serves the LangGraph dev server;
`build_graph(checkpointer=...)` serves the CLI and the LangServe app.
"""

from __future__ import annotations

from typing import Any, Literal

from langgraph.graph import END, START, StateGraph

from queryweave.graph.context import Context
from queryweave.graph.state import InputState, OutputState, State
from queryweave.nodes.analyze import analyze
from queryweave.nodes.clarify import clarify
from queryweave.nodes.finish import finish
from queryweave.nodes.generate import generate
from queryweave.nodes.grade_documents import grade_documents
from queryweave.nodes.necessity import necessity
from queryweave.nodes.ocr import ocr
from queryweave.nodes.reflect import reflect
from queryweave.nodes.rerank import rerank
from queryweave.nodes.resolve import begin, resolve
from queryweave.nodes.respond_direct import respond_direct
from queryweave.nodes.retrieve import retrieve
from queryweave.nodes.rewrite import rewrite
from queryweave.nodes.route import route
from queryweave.nodes.self_query import self_query
from queryweave.nodes.speech import speech
from queryweave.nodes.structured import text_to_cypher, text_to_sql
from queryweave.nodes.summary_retrieve import summary_retrieve


def after_necessity(state: State) -> Literal["analyze", "respond_direct"]:
    """Retrieval needed -> analyze; otherwise answer directly."""
    return "analyze" if state.get("needs_retrieval", True) else "respond_direct"


def after_analyze(state: State) -> Literal["clarify", "route"]:
    """Ambiguous -> ask the user; otherwise route."""
    return "clarify" if (state.get("ambiguity") or {}).get("ambiguous") else "route"


def after_route(state: State) -> Literal["rewrite", "self_query", "text_to_sql", "text_to_cypher",
                                         "summary_retrieve"]:
    """The node of the chosen route."""
    return {"self_query": "self_query", "sql": "text_to_sql", "cypher": "text_to_cypher",
            "summary": "summary_retrieve"}.get(state.get("route") or "vector", "rewrite")


def after_grading(state: State) -> Literal["generate", "rewrite"]:
    """Passages enough (or no widening left) -> generate; else rewrite and retrieve again, wider."""
    return "rewrite" if (state.get("grade") or {}).get("widen") and \
        (state.get("reflection") or {}).get("action") == "widen" else "generate"


def after_reflect(state: State) -> Literal["rewrite", "finish"]:
    """A failed check with attempts left -> rewrite and retrieve again with the new plan; else finish."""
    return "rewrite" if (state.get("reflection") or {}).get("action") == "retry" else "finish"


def build_graph(checkpointer: Any = None):
    """Compile the QueryWeave graph, optionally with a checkpointer for conversation memory."""
    builder = StateGraph(State, context_schema=Context, input_schema=InputState, output_schema=OutputState)
    for name, node in [("begin", begin), ("ocr", ocr), ("speech", speech), ("resolve", resolve), ("necessity", necessity),
                       ("respond_direct", respond_direct), ("analyze", analyze), ("clarify", clarify),
                       ("route", route), ("self_query", self_query), ("text_to_sql", text_to_sql),
                       ("text_to_cypher", text_to_cypher), ("summary_retrieve", summary_retrieve),
                       ("rewrite", rewrite), ("retrieve", retrieve), ("rerank", rerank),
                       ("grade_documents", grade_documents), ("generate", generate),
                       ("reflect", reflect), ("finish", finish)]:
        builder.add_node(name, node)
    builder.add_edge(START, "begin")
    builder.add_edge("begin", "ocr")
    builder.add_edge("ocr", "speech")
    builder.add_edge("speech", "resolve")
    builder.add_edge("resolve", "necessity")
    builder.add_conditional_edges("necessity", after_necessity)
    builder.add_edge("respond_direct", "finish")
    builder.add_conditional_edges("analyze", after_analyze)
    builder.add_edge("clarify", "analyze")
    builder.add_conditional_edges("route", after_route)
    builder.add_edge("self_query", "rewrite")
    builder.add_edge("rewrite", "retrieve")
    builder.add_edge("text_to_sql", "finish")
    builder.add_edge("text_to_cypher", "finish")
    builder.add_edge("summary_retrieve", "generate")
    builder.add_edge("retrieve", "rerank")
    builder.add_edge("rerank", "grade_documents")
    builder.add_conditional_edges("grade_documents", after_grading)
    builder.add_edge("generate", "reflect")
    builder.add_conditional_edges("reflect", after_reflect)
    builder.add_edge("finish", END)
    return builder.compile(checkpointer=checkpointer, name="queryweave")


graph = build_graph()
