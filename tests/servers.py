"""Real database servers for the integration tests, on loopback, in temporary folders.

`PostgresServer`: a PostgreSQL cluster made with `initdb` in a temporary folder and run with `pg_ctl` on
a free 127.0.0.1 port (as an unprivileged user when the tests run as root: PostgreSQL refuses root).
`ChromaServer`: `chroma run` from the installed `chromadb` package. Both wait until they answer, report
their versions, and can be stopped and restarted (a restart keeps the data). `find_pg_bin()` /
`find_chroma()` say where the binaries are, None when they are missing (the fixtures then skip with
what to install).
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

PG_INSTALL_HINT = ("PostgreSQL server binaries (initdb, pg_ctl, postgres) not found: install Debian's `postgresql` "
                   "package (apt-get install postgresql; `.ci/run` does) or set QUERYWEAVE_TEST_PG_BIN")
CHROMA_INSTALL_HINT = "the `chroma` CLI is missing: pip install -c constraints.txt chromadb (it ships `chroma run`)"


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def find_pg_bin() -> Path | None:
    """The folder with `initdb`, `pg_ctl` and `postgres`: QUERYWEAVE_TEST_PG_BIN when set (only that one),
    else Debian's newest /usr/lib/postgresql/N/bin, or the folder of `pg_ctl` on PATH."""
    chosen = os.environ.get("QUERYWEAVE_TEST_PG_BIN", "")
    if chosen:
        candidates = [chosen]
    else:
        debian = glob.glob("/usr/lib/postgresql/*/bin")
        candidates = sorted(debian, key=lambda p: int(p.split("/")[-2]) if p.split("/")[-2].isdigit() else 0,
                            reverse=True)
        on_path = shutil.which("pg_ctl")
        if on_path:
            candidates.append(str(Path(os.path.realpath(on_path)).parent))
    for folder in candidates:
        if all((Path(folder) / tool).exists() for tool in ("initdb", "pg_ctl", "postgres")):
            return Path(folder)
    return None


def find_chroma() -> str | None:
    """The `chroma` CLI of this environment (beside the interpreter), else on PATH."""
    beside = Path(sys.executable).parent / "chroma"
    return str(beside) if beside.exists() else shutil.which("chroma")


def _as_unprivileged() -> list[str]:
    """A command prefix that drops root (PostgreSQL refuses to run as root); empty when not root."""
    if os.geteuid() != 0:
        return []
    return ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


class PostgresServer:
    """A throwaway PostgreSQL cluster on 127.0.0.1 (superuser `postgres`, trust auth on loopback only)."""

    def __init__(self, bin_dir: Path) -> None:
        self.bin = bin_dir
        self.root = Path(tempfile.mkdtemp(prefix="qw-pg-"))
        self.data = self.root / "data"
        self.port = free_port()
        self.version = ""
        if os.geteuid() == 0:
            os.chown(self.root, 65534, 65534)
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-locale")

    def _run(self, tool: str, *args: str) -> str:
        proc = subprocess.run([*_as_unprivileged(), str(self.bin / tool), *args], capture_output=True, text=True,
                              timeout=120, cwd=self.root)
        if proc.returncode != 0:
            log = (self.root / "log").read_text()[-2000:] if (self.root / "log").exists() else ""
            raise RuntimeError(f"{tool} failed ({proc.returncode}): {proc.stderr[-2000:]}\n{log}")
        return proc.stdout

    def start(self) -> PostgresServer:
        """Start the server and wait until it accepts connections."""
        options = (f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off "
                   "-c full_page_writes=off -c max_connections=200 -c shared_buffers=64MB")
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.root / "log"), "-w", "-t", "60",
                  "start")
        self.version = self.query("SHOW server_version")[0][0]
        return self

    def stop(self, mode: str = "fast") -> None:
        """Stop the server (`mode` immediate: no clean shutdown, as in a crash)."""
        if (self.data / "postmaster.pid").exists():
            self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "-t", "60", "stop")

    def restart(self, mode: str = "fast") -> None:
        """Stop and start again on the same port with the same data."""
        self.stop(mode)
        self.start()

    def cleanup(self) -> None:
        """Stop the server and remove its folder."""
        try:
            self.stop("immediate")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)

    def url(self, database: str = "postgres", user: str = "postgres", driver: str = "") -> str:
        """A libpq URL (`driver` e.g. "+psycopg" makes it a SQLAlchemy URL)."""
        return f"postgresql{driver}://{user}@127.0.0.1:{self.port}/{database}"

    def query(self, sql: str, database: str = "postgres") -> list[tuple]:
        """Run one statement as the superuser (autocommit); its rows, if any."""
        import psycopg

        with psycopg.connect(self.url(database), autocommit=True, connect_timeout=10) as conn:
            cur = conn.execute(sql)
            return cur.fetchall() if cur.description else []

    def create_database(self, name: str) -> str:
        """A new empty database; returns its URL."""
        self.query(f'CREATE DATABASE "{name}"')
        return self.url(name)


class ChromaServer:
    """`chroma run` on 127.0.0.1 with its data in a temporary folder."""

    def __init__(self, chroma: str) -> None:
        self.chroma = chroma
        self.root = Path(tempfile.mkdtemp(prefix="qw-chroma-"))
        self.port = free_port()
        self.proc: subprocess.Popen | None = None
        self.version = ""

    @property
    def url(self) -> str:
        """The server's base URL."""
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 60.0) -> ChromaServer:
        """Start the server and wait for its heartbeat."""
        log = open(self.root / "log", "ab")  # noqa: SIM115 - the child keeps it open
        env = {**os.environ, "ANONYMIZED_TELEMETRY": "FALSE", "NO_COLOR": "1"}
        self.proc = subprocess.Popen([self.chroma, "run", "--path", str(self.root / "data"), "--host", "127.0.0.1",
                                      "--port", str(self.port)], stdout=log, stderr=subprocess.STDOUT, env=env)
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"chroma run exited with {self.proc.returncode}: "
                                   f"{(self.root / 'log').read_text(errors='replace')[-2000:]}")
            try:
                if httpx.get(f"{self.url}/api/v2/heartbeat", timeout=2).status_code == 200:
                    import chromadb

                    api = httpx.get(f"{self.url}/api/v2/version", timeout=5).json()
                    self.version = f"{chromadb.__version__} (API {api})"
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise TimeoutError(f"chroma run did not answer in {timeout}s")

    def stop(self, grace_s: float = 3.0) -> None:
        """Stop the server process we started (SIGTERM, then SIGKILL after `grace_s`: `chroma run` took
        ~15 s to exit on SIGTERM)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(grace_s)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self.proc = None

    def cleanup(self) -> None:
        """Stop the server and remove its folder."""
        try:
            self.stop()
        finally:
            shutil.rmtree(self.root, ignore_errors=True)
