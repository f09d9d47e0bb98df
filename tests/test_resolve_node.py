"""The `resolve` node on a thread: a rule guess that attaches the last topic to a question with no
reference word is kept only when the knowledge base does not show the question standing alone."""

from __future__ import annotations

from queryweave.cli.ask import run_question


def test_an_unrelated_later_question_is_not_rewritten_against_the_earlier_one(ctx):
    first = run_question(ctx, "How does asyncio.gather run coroutines?", "resolve-unrelated")
    assert first["citations"][0]["source"].endswith("asyncio.md")
    later = run_question(ctx, "What is the build cache?", "resolve-unrelated")
    assert later["resolved_query"] == "What is the build cache?"  # not "... of asyncio.gather?"
    assert later["citations"][0]["source"].endswith("gradle-android.md")


def test_a_real_follow_up_still_gets_the_topic(ctx):
    run_question(ctx, "What does the max_connections setting limit?", "resolve-follow-up")
    follow = run_question(ctx, "What is the default value?", "resolve-follow-up")
    assert "max_connections" in follow["resolved_query"]
    assert "100" in follow["answer"]


def test_a_follow_up_kept_as_asked_searches_with_the_conversation(ctx):
    from langgraph.checkpoint.memory import InMemorySaver

    from queryweave.graph.builder import build_graph

    graph = build_graph(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "resolve-hints"}}
    graph.invoke({"question": "What does the max_connections setting limit?"}, config, context=ctx)
    graph.invoke({"question": "What is the other one for?"}, config, context=ctx)
    state = graph.get_state(config).values
    assert state["resolved_query"] == "What is the other one for?"
    assert any("max_connections" in h for h in state["search_hints"])
    assert "max_connections" in state["queries"][0] and state["queries"][1] == state["resolved_query"]
