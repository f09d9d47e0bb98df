"""Helpers for tests that start a real server on loopback: free ports, a uvicorn thread, waiting, KB copies."""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def copy_kb(kb_dir: Path, dest: Path) -> Path:
    """A private copy of the shared fixture KB (servers write checkpoints, logs and feedback into it)."""
    shutil.copytree(kb_dir, dest, ignore=shutil.ignore_patterns("checkpoints.sqlite*", "feedback.jsonl",
                                                                 "retrieval_log.sqlite*", "uploads"))
    return dest


def wait_http(url: str, timeout: float = 60.0, proc: subprocess.Popen | None = None) -> httpx.Response:
    """Poll `url` until it answers 200 (fails early when `proc` exits)."""
    deadline = time.monotonic() + timeout
    last: Exception | None = None
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}")
        try:
            resp = httpx.get(url, timeout=2)
            if resp.status_code == 200:
                return resp
        except httpx.HTTPError as exc:
            last = exc
        time.sleep(0.2)
    raise TimeoutError(f"{url} did not answer in {timeout}s ({last})")


@contextlib.contextmanager
def uvicorn_thread(app: Any) -> Iterator[str]:
    """Serve `app` with uvicorn on 127.0.0.1:<free port> in a thread; yields the base URL."""
    import uvicorn

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                                           lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


def stop(proc: subprocess.Popen, timeout: float = 10.0) -> str:
    """Terminate a server process we started and return what it printed."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
    out = proc.stdout.read() if proc.stdout else ""
    return out if isinstance(out, str) else out.decode("utf-8", "replace")


def parse_sse(lines: Iterator[str]) -> Iterator[tuple[str, str]]:
    """(event, data) pairs from server-sent-event lines."""
    kind, data = "message", []
    for line in lines:
        if not line:
            if data:
                yield kind, "\n".join(data)
            kind, data = "message", []
        elif line.startswith("event:"):
            kind = line[6:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].strip())
    if data:
        yield kind, "\n".join(data)
