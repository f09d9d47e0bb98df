"""The kuzu engine in a child process: a query that crashes kuzu ends the child, not the caller."""

from __future__ import annotations

import os
import signal
import textwrap
import threading

import pytest

from queryweave.tools.cypher.loader import load_script
from queryweave.tools.cypher.store import EngineCrashError, KuzuStore, QueryLimitError
from queryweave.tools.cypher.text_to_cypher import TextToCypher

SCRIPT = textwrap.dedent(
    """\
    CREATE (Fly:Book {title:'Flying Home'}), (Sea:Book {title:'Sea Light'}), (Owl:Book {title:'Owl Night'})
    CREATE (Ada:Author {name:'Ada Park'}), (Ben:Author {name:'Ben Ortiz'})
    CREATE (Ada)-[:WROTE]->(Fly), (Ada)-[:WROTE]->(Owl), (Ben)-[:WROTE]->(Sea);
    """
)
# valid read Cypher on which kuzu 0.11 corrupts its heap and dies (found by sampling a model's queries)
CRASH = ("MATCH (a:Author)-[:WROTE]->(b:Book) WITH a, collect(b.title) AS t ORDER BY size(t) DESC LIMIT 3 "
         "RETURN a.name, size(t)")
COUNT = "MATCH (b:Book) RETURN count(*) AS n"


@pytest.fixture()
def path(tmp_path):
    load_script(SCRIPT, tmp_path / "books.kuzu")
    return tmp_path / "books.kuzu"


@pytest.fixture()
def big(tmp_path):
    """20 authors with 3 books each: large enough for CRASH to damage kuzu's heap often."""
    lines = [f"CREATE (b{i}:Book {{title:'Book {i}'}})" for i in range(60)]
    lines += [f"CREATE (a{i}:Author {{name:'Author {i}'}})" for i in range(20)]
    lines += [f"CREATE (a{i % 20})-[:WROTE]->(b{i})" for i in range(60)]
    load_script("\n".join(lines) + ";", tmp_path / "big.kuzu")
    return tmp_path / "big.kuzu"


def test_queries_that_crash_kuzu_leave_the_caller_and_the_store_standing(big):
    """kuzu's heap damage kills its process at once or some queries later (not every time): in this
    process it would end the test run; here every plain query after it is answered, and any crash left
    is one readable line."""
    store = KuzuStore(big)
    try:
        assert store.isolated
        for _ in range(8):
            try:
                rows = store.query(CRASH)
                assert rows and list(rows[0].values())[1] == 3
            except EngineCrashError as exc:
                assert "crashed on this query (signal" in str(exc) and "\n" not in str(exc)  # SIGSEGV or SIGABRT
            assert store.query(COUNT) == [{"n": 60}]
    finally:
        store.close()


def _killed_while_answering(store: KuzuStore) -> None:
    """Freeze the engine process, and kill it half a second later (mid-request)."""
    pid = store.engine.proc.pid
    os.kill(pid, signal.SIGSTOP)
    threading.Timer(0.5, os.kill, (pid, signal.SIGKILL)).start()


def test_an_engine_that_dies_mid_query_is_an_error_then_a_fresh_engine(path):
    store = KuzuStore(path)
    try:
        first = store.engine.proc.pid
        _killed_while_answering(store)
        with pytest.raises(EngineCrashError, match=r"crashed on this query \(signal 9\); it was not answered"):
            store.engine._execute(COUNT, None)  # one try
        assert store.query(COUNT) == [{"n": 3}] and store.engine.proc.pid != first
        _killed_while_answering(store)
        assert store.query(COUNT) == [{"n": 3}]  # the query is tried once more on a fresh engine
    finally:
        store.close()


def test_text_to_cypher_reports_the_crash_as_the_attempts_error(path):
    store = KuzuStore(path)
    try:
        _killed_while_answering(store)
        store.engine.execute = store.engine._execute  # no second try: the crash reaches Text-to-Cypher
        rows, error = TextToCypher(store, None).run(COUNT)
        assert rows == [] and "graph engine crashed" in error
    finally:
        store.close()


def test_an_engine_that_stops_answering_is_killed_at_twice_the_time_limit(path):
    store = KuzuStore(path, timeout_s=0.5)
    try:
        os.kill(store.engine.proc.pid, signal.SIGSTOP)  # hung: neither answers nor dies
        with pytest.raises(QueryLimitError, match="time limit of 0.5s"):
            store.query(COUNT)
        assert store.query(COUNT) == [{"n": 3}]
    finally:
        store.close()


def test_the_loader_keeps_kuzu_in_process_and_a_closed_store_leaves_no_child(path):
    writer = KuzuStore(path, read_only=False)
    assert not writer.isolated and writer.execute(COUNT) == [{"n": 3}]
    writer.close()
    store = KuzuStore(path)
    child = store.engine.proc
    store.close()
    assert child.poll() is not None
    with pytest.raises(ValueError, match="read-only"):
        KuzuStore(path, read_only=False, isolated=True)
