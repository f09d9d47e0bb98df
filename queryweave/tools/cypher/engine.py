"""Where kuzu runs: in this process (the loader's trusted DDL) or in a child process (every read query).

kuzu 0.11 crashes the whole process on some valid read queries: `MATCH (d:Person)-[:DIRECTED]->(m:Movie)
WITH d, collect(m.title) AS t ORDER BY size(t) DESC LIMIT 3 RETURN d.name, size(t)` corrupts the heap
(a segmentation fault, at once or a few calls later), and a model sampling queries writes such things.
So read-only stores run their queries in a child process (`IsolatedEngine`: `python -m
queryweave.tools.cypher.engine`, talking over two pipes of its own, so nothing of the caller's main
module is run again there, as multiprocessing's "spawn" would, and no threads are forked). When the
engine dies there, the query is tried once more on a fresh child (the damage may have been done by
an earlier query); a second crash reaches the caller as `EngineCrashError` (one readable line), and
the application, its graph state and its other stores live on.
A hard wall-clock limit also holds (twice the engine's own timeout, plus 5 s): a child that does
not answer in time is killed and the call reported as `QueryLimitError`.
Rows are read, converted to plain Python and capped (`max_rows`, `max_result_bytes`) inside the
child, so an oversized result never crosses the pipe.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from queryweave.tools.cypher.guard import MAX_PATH_HOPS

MB = 1024 * 1024
START_S = 60.0  # opening kuzu in a fresh interpreter, on a busy machine


class StoreBusyError(RuntimeError):
    """The graph store is locked by another process (a kuzu file opened read-write elsewhere)."""


class QueryLimitError(RuntimeError):
    """A query ran into the store's time, memory or result-size limit."""


class EngineCrashError(RuntimeError):
    """The graph engine died on a query (kuzu crashed in its child process); the store was reopened."""


def approx_size(value: Any) -> int:
    """A rough byte count of a plain row value (for the result-size cap)."""
    if isinstance(value, dict):
        return 64 + sum(len(str(k)) + approx_size(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return 56 + sum(approx_size(v) for v in value)
    return len(value) + 40 if isinstance(value, str | bytes) else 32


def plain(value: Any) -> Any:
    """kuzu values to plain Python: nodes/rels as property dicts (internal ids dropped)."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items() if k not in {"_id", "_src", "_dst", "_qid"}}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def open_kuzu(path: str, read_only: bool, max_memory_mb: int, timeout_s: float) -> tuple[Any, Any]:
    """(database, connection) with the store's limits; `StoreBusyError` when the file is locked."""
    import kuzu

    pool = {"buffer_pool_size": max_memory_mb * MB} if read_only and max_memory_mb else {}
    try:
        db = kuzu.Database(path, read_only=read_only, **pool)
        conn = kuzu.Connection(db)
    except RuntimeError as exc:
        if "lock" in str(exc).lower():
            raise StoreBusyError(
                f"graph store {path} is locked/busy: another process has it open for writing "
                "(close it, or wait until loading has finished)") from exc
        raise
    conn.set_query_timeout(int(timeout_s * 1000))
    conn.execute(f"CALL var_length_extend_max_depth={MAX_PATH_HOPS}")
    return db, conn


def read_rows(conn: Any, cypher: str, params: dict[str, Any] | None, max_rows: int,
              max_result_bytes: int) -> list[dict[str, Any]]:
    """Run one statement on a kuzu connection; rows as plain dicts, capped."""
    result = conn.execute(cypher, params or {})
    if isinstance(result, list):  # several statements: keep the last result
        result = result[-1]
    cols = result.get_column_names()
    rows, used = [], 0
    while result.has_next() and len(rows) < max_rows:
        row = dict(zip(cols, (plain(v) for v in result.get_next()), strict=False))
        used += approx_size(row)
        if used > max_result_bytes:
            if not rows:
                raise QueryLimitError(f"a result row is larger than the limit of {max_result_bytes / MB:g} MB")
            break
        rows.append(row)
    return rows


class LocalEngine:
    """kuzu in this process (read-write stores: the loader)."""

    def __init__(self, path: str, read_only: bool, max_memory_mb: int, timeout_s: float, max_rows: int,
                 max_result_bytes: int):
        self.db, self.conn = open_kuzu(path, read_only, max_memory_mb, timeout_s)
        self.max_rows, self.max_result_bytes = max_rows, max_result_bytes

    def execute(self, cypher: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        return read_rows(self.conn, cypher, params, self.max_rows, self.max_result_bytes)

    def close(self) -> None:
        self.conn.close()
        self.db.close()


def _serve(pipe: Any, path: str, max_memory_mb: int, timeout_s: float, max_rows: int,
           max_result_bytes: int) -> None:
    """The child: open the store read-only, then answer (cypher, params) requests until None."""
    try:
        engine = LocalEngine(path, True, max_memory_mb, timeout_s, max_rows, max_result_bytes)
    except Exception as exc:  # reported to the parent, which raises it
        pipe.send(("error", type(exc).__name__, str(exc)))
        return
    pipe.send(("ready", "", ""))
    while True:
        try:
            request = pipe.recv()
        except EOFError:
            break
        if request is None:
            break
        try:
            pipe.send(("ok", engine.execute(*request), ""))
        except Exception as exc:
            pipe.send(("error", type(exc).__name__, str(exc)))
    engine.close()


_ERRORS = {"StoreBusyError": StoreBusyError, "QueryLimitError": QueryLimitError}


class IsolatedEngine:
    """kuzu in a child process that is started again after it dies (read-only stores)."""

    def __init__(self, path: str, max_memory_mb: int, timeout_s: float, max_rows: int, max_result_bytes: int):
        self.args = (path, max_memory_mb, timeout_s, max_rows, max_result_bytes)
        self.timeout_s = timeout_s
        self.lock = threading.Lock()  # one request on the pipe at a time (a store is shared by threads)
        self.proc: Any = None
        self.pipe: Any = None  # replies from the child
        self.requests: Any = None  # requests to it
        self._start()  # a locked or missing store fails here, as an in-process open would

    def _start(self) -> None:
        req_r, req_w = os.pipe()
        resp_r, resp_w = os.pipe()
        # the child imports this very package, wherever it was imported from (a notebook's sys.path too)
        root = str(Path(__file__).resolve().parents[3])
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p))
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "queryweave.tools.cypher.engine", str(req_r), str(resp_w), json.dumps(self.args)],
            pass_fds=(req_r, resp_w), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, close_fds=True, env=env)
        os.close(req_r)
        os.close(resp_w)
        self.pipe = Connection(resp_r, writable=False)
        self.requests = Connection(req_w, readable=False)
        status, kind, text = self._reply(START_S, "the graph engine did not start")
        if status != "ready":
            self._stop()
            raise _ERRORS.get(kind, RuntimeError)(text)

    def _reply(self, wait_s: float, late: str) -> tuple[str, Any, str]:
        try:
            if self.pipe.poll(wait_s):
                return self.pipe.recv()
        except (EOFError, OSError):
            code = self.proc.wait(5)
            self._stop()
            how = f"signal {-code}" if code and code < 0 else f"exit code {code}"
            raise EngineCrashError(f"the graph engine crashed on this query ({how}); it was not answered, "
                                   "and the store has been reopened for the next one") from None
        self._stop()
        raise QueryLimitError(late)

    def execute(self, cypher: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """Rows of one query in the child. A crash may come from an earlier query's heap damage, so the
        query is tried once more on a fresh child before its `EngineCrashError` is raised."""
        try:
            return self._execute(cypher, params)
        except EngineCrashError:
            return self._execute(cypher, params)

    def _execute(self, cypher: str, params: dict[str, Any] | None) -> list[dict[str, Any]]:
        with self.lock:
            if self.proc is None or self.proc.poll() is not None:
                self._stop()
                self._start()
            try:
                self.requests.send((cypher, params))
            except OSError:  # it died since the last query
                self._stop()
                self._start()
                self.requests.send((cypher, params))
            status, payload, text = self._reply(
                2 * self.timeout_s + 5, f"query exceeded the time limit of {self.timeout_s:g}s (stopped)")
            if status == "ok":
                return payload
            raise _ERRORS.get(payload, RuntimeError)(text)

    def _stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(5)
        for end in (self.pipe, self.requests):
            if end is not None:
                end.close()
        self.proc = self.pipe = self.requests = None

    def close(self) -> None:
        with self.lock:
            if self.proc is not None and self.proc.poll() is None:
                try:
                    self.requests.send(None)
                    self.proc.wait(5)
                except (OSError, ValueError, subprocess.TimeoutExpired):
                    pass
            self._stop()


if __name__ == "__main__":  # the child: python -m queryweave.tools.cypher.engine REQ_FD RESP_FD ARGS_JSON
    _requests = Connection(int(sys.argv[1]), writable=False)
    _replies = Connection(int(sys.argv[2]), readable=False)

    class _Both:
        """recv from the request pipe, send on the reply pipe."""

        recv = _requests.recv
        send = _replies.send

    _serve(_Both(), *json.loads(sys.argv[3]))  # type: ignore[arg-type]
