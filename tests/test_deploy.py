"""deploy/compose.yaml runs what the tests run: the Chroma server of the locked `chromadb`, PostgreSQL 15 (the
integration tests' cluster, tests/servers.py), and only settings that `Context` reads."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def test_compose_matches_the_lock_and_the_settings():
    compose = yaml.safe_load((ROOT / "deploy" / "compose.yaml").read_text())
    pins = dict(re.findall(r"^([A-Za-z0-9_.-]+)==(\S+)$", (ROOT / "constraints.txt").read_text(), re.M))
    services = compose["services"]
    assert services["chroma"]["image"] == f"chromadb/chroma:{pins['chromadb']}"
    assert services["postgres"]["image"] == "postgres:15"
    config = (ROOT / "queryweave" / "config.py").read_text()
    env = services["queryweave"]["environment"]
    for name in env:
        if name.startswith("QUERYWEAVE_"):
            assert f'_env("{name.removeprefix("QUERYWEAVE_")}"' in config, f"{name} is not a setting"
    assert env["QUERYWEAVE_DATABASE_URL"].startswith("postgresql://")
    assert "--workers" in services["queryweave"]["command"]


def test_the_worker_app_factory_reads_the_served_context_and_closes_connections(ctx, monkeypatch):
    """What each `serve --workers N` worker builds: the CLI's Context from the environment, every response
    closing its connection and naming its worker (so requests spread over the workers)."""
    import json
    import os
    from dataclasses import asdict, replace

    from fastapi.testclient import TestClient

    from queryweave.server.app import CONTEXT_ENV, app_factory

    monkeypatch.setenv(CONTEXT_ENV, json.dumps(asdict(replace(ctx, profile="fast"))))
    client = TestClient(app_factory())
    resp = client.get("/health")
    assert resp.status_code == 200 and resp.json()["data_dir"] == ctx.data_dir
    assert resp.headers["connection"] == "close" and resp.headers["x-queryweave-worker"] == str(os.getpid())
    assert resp.json()["worker"] == os.getpid()
    out = client.post("/ask", json={"question": "What is the default value of max_connections?"})
    assert out.status_code == 200 and out.json()["profile"] == "fast" and out.headers["connection"] == "close"


def test_serve_gives_each_worker_one_blas_thread_and_a_share_of_the_cores(monkeypatch):
    import os

    from queryweave.cli import serve

    for name in serve.ONE_THREAD_VARIABLES + serve.SHARED_THREAD_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "3")  # what the operator set is kept
    monkeypatch.setattr(os, "cpu_count", lambda: 8)
    serve.thread_defaults(2)
    assert os.environ["QUERYWEAVE_EMBEDDING_THREADS"] == os.environ["OMP_NUM_THREADS"] == "1"
    assert os.environ["OPENBLAS_NUM_THREADS"] == "3"
    assert os.environ["QUERYWEAVE_RERANK_THREADS"] == os.environ["QUERYWEAVE_WHISPER_THREADS"] == "4"
