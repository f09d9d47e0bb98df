"""The kuzu engine in a child process: a query that crashes kuzu ends the child, not the caller."""

from __future__ import annotations

import os
import signal
import textwrap

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


def test_an_engine_crash_is_an_error_and_the_store_answers_the_next_query(path):
    store = KuzuStore(path)
    try:
        assert store.isolated and store.query(COUNT) == [{"n": 3}]
        first = store.engine.proc.pid
        with pytest.raises(EngineCrashError, match=r"crashed on this query \(signal 11\)"):
            store.query(CRASH)
        assert store.query(COUNT) == [{"n": 3}]  # a fresh engine process
        assert store.engine.proc.pid != first
    finally:
        store.close()


def test_text_to_cypher_reports_the_crash_as_the_attempts_error(path):
    store = KuzuStore(path)
    try:
        rows, error = TextToCypher(store, None).run(CRASH)
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
