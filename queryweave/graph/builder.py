"""Wiring only: nodes, edges and routers. `graph` (no checkpointer) serves the LangGraph dev server;
`build_graph(checkpointer=...)` serves the CLI and the LangServe app.
"""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph

from queryweave.graph.context import Context
from queryweave.graph.state import InputState, OutputState, State
from queryweave.nodes.analyze import analyze
from queryweave.nodes.finish import finish
from queryweave.nodes.generate import generate
from queryweave.nodes.resolve import begin, resolve
from queryweave.nodes.retrieve import retrieve


def build_graph(checkpointer: Any = None):
    """Compile the QueryWeave graph, optionally with a checkpointer for conversation memory."""
    builder = StateGraph(State, context_schema=Context, input_schema=InputState, output_schema=OutputState)
    builder.add_node("begin", begin)
    builder.add_node("resolve", resolve)
    builder.add_node("analyze", analyze)
    builder.add_node("retrieve", retrieve)
    builder.add_node("generate", generate)
    builder.add_node("finish", finish)
    builder.add_edge(START, "begin")
    builder.add_edge("begin", "resolve")
    builder.add_edge("resolve", "analyze")
    builder.add_edge("analyze", "retrieve")
    builder.add_edge("retrieve", "generate")
    builder.add_edge("generate", "finish")
    builder.add_edge("finish", END)
    return builder.compile(checkpointer=checkpointer, name="queryweave")


graph = build_graph()
