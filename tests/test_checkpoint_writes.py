"""A turn is written to the checkpointer once (durability "exit"), a pause for clarification included,
and the SQLite checkpointer is one connection per process and file."""

from __future__ import annotations

from dataclasses import replace

from queryweave.graph.checkpoint import make_checkpointer
from queryweave.graph.run import durability, run_question


def _writes(ctx, thread: str) -> int:
    saver = make_checkpointer(ctx)
    return len(list(saver.list({"configurable": {"thread_id": thread}})))


def test_a_turn_is_written_once_and_still_continues_and_resumes(ctx):
    first = run_question(ctx, "What is the default value of max_connections?", "dur-1")
    assert "100" in first["answer"] and _writes(ctx, "dur-1") == 1
    follow = run_question(ctx, "And what does it limit?", "dur-1")  # the thread's memory is there
    assert follow["answer"] and _writes(ctx, "dur-1") == 2
    paused = run_question(ctx, "Gradle", "dur-2")  # a pause is written too, and resumes
    assert paused["clarification"]["options"] and _writes(ctx, "dur-2") == 1
    resumed = run_question(ctx, None, "dur-2", resume="1")
    assert resumed["citations"] and "Gradle" in resumed["resolved_query"]
    steps = replace(ctx, checkpoint_durability="async")  # per-step writes, when asked for
    run_question(steps, "What is the default value of max_connections?", "dur-3")
    assert _writes(steps, "dur-3") > 5 and durability(replace(ctx, checkpoint_durability="bogus")) == "exit"


def test_one_saver_per_file_and_a_new_one_when_the_file_is_replaced(tmp_path, ctx):
    ctx = replace(ctx, data_dir=str(tmp_path))
    saver = make_checkpointer(ctx)
    assert make_checkpointer(ctx) is saver
    (tmp_path / "checkpoints.sqlite").unlink()
    for extra in ("-wal", "-shm"):
        (tmp_path / f"checkpoints.sqlite{extra}").unlink(missing_ok=True)
    fresh = make_checkpointer(ctx)
    assert fresh is not saver and not list(fresh.list(None))
