"""Run resource-exhaustion queries in a child process and report, per query, the outcome, the time
it took and the growth of peak RSS (SQLite and kuzu allocate outside Python, so tracemalloc cannot
see them), summed over the child and the processes it started (a read-only kuzu store runs the engine
in a process of its own). Peak RSS is reset before each query (`/proc/PID/clear_refs`), so one child
serves a whole list. The parent kills a child whose RSS, with its own children's, passes `KILL_RSS` (a
limit that failed must not take the machine with it).

As a script: `python resource_probe.py SPEC_JSON` prints one JSON line per query.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

KILL_RSS = 1536 * 1024 * 1024


def _status(field: str, pid: str = "self") -> int:
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    return 0


def _family(pid: str = "self") -> list[str]:
    """`pid` and the processes it started (one level: the kuzu engine's child)."""
    pid = str(os.getpid()) if pid == "self" else pid
    found = [pid]
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as fh:
                found += fh.read().split()
    except OSError:
        pass
    return found


def _total(field: str, pids: list[str]) -> dict[str, int]:
    out = {}
    for pid in pids:
        try:
            out[pid] = _status(field, pid)
        except OSError:  # ended meanwhile (an engine that crashed is started again)
            pass
    return out


def _open(spec: dict):
    if spec["kind"] == "sql":
        from queryweave.tools.sql.database import SqlDatabase

        db = SqlDatabase(spec["path"], **spec.get("limits", {}))
        db.run("SELECT 1")

        def run(q: str) -> tuple[str | None, int]:
            res = db.run(q)
            return res.error, len(res.rows)
    else:
        from queryweave.tools.cypher.store import KuzuStore

        store = KuzuStore(spec["path"], **spec.get("limits", {}))
        store.query("MATCH (n) RETURN count(*) AS n")

        def run(q: str) -> tuple[str | None, int]:
            try:
                return None, len(store.query(q))
            except Exception as exc:  # noqa: BLE001 - the message is what is judged
                return f"{type(exc).__name__}: {exc}", 0
    return run


def main(spec_path: str) -> int:
    """Run every query of the spec; one JSON line each: query, error, rows, seconds, rss_growth."""
    spec = json.loads(Path(spec_path).read_text())
    run = _open(spec)
    for q in spec["queries"]:
        family = _family()
        for pid in family:
            with open(f"/proc/{pid}/clear_refs", "w") as fh:
                fh.write("5")  # peak RSS := current RSS
        before = _total("VmRSS", family)
        start = time.monotonic()
        error, rows = run(q)
        seconds = time.monotonic() - start
        after = _total("VmHWM", family)
        growth = sum(after[p] - before[p] for p in after if p in before)
        print(json.dumps({"query": q, "error": error, "rows": rows, "seconds": seconds, "rss_growth": growth}),
              flush=True)
    return 0


def probe(spec: dict, tmp_path: Path, timeout_s: float = 120) -> list[dict]:
    """Run `spec` in a child process (this checkout first on the path); its result lines."""
    spec_file = tmp_path / f"probe_{spec['kind']}.json"
    spec_file.write_text(json.dumps(spec))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(Path(__file__).resolve().parents[1]),
                                                       os.environ.get("PYTHONPATH", "")]))
    child = subprocess.Popen([sys.executable, __file__, str(spec_file)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=env)
    killed: list[int] = []

    def watch() -> None:
        while child.poll() is None:
            rss = sum(_total("VmRSS", _family(str(child.pid))).values())
            if not rss:
                return
            if rss > KILL_RSS:
                killed.append(rss)
                child.kill()
                return
            time.sleep(0.02)

    threading.Thread(target=watch, daemon=True).start()
    out, err = child.communicate(timeout=timeout_s)
    assert not killed, f"child killed at {killed[0] >> 20} MB RSS; output so far: {out[-2000:]}"
    assert child.returncode == 0, err[-3000:]
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
