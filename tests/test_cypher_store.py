"""Embedded kuzu store, CREATE-script loader, Neo4j adapter (fake driver), and the Text-to-Cypher loop."""

import subprocess
import sys
import textwrap

import pytest

from queryweave.testing import ScriptedChatModel
from queryweave.tools.common.guard_result import GuardResult
from queryweave.tools.cypher.loader import declared_properties, load_script
from queryweave.tools.cypher.script import ScriptError, parse_script
from queryweave.tools.cypher.store import GraphStore, KuzuStore, Neo4jStore, StoreBusyError, open_store
from queryweave.tools.cypher.text_to_cypher import (
    TextToCypher,
    explain_error,
    extract_cypher,
    kuzu_compat,
    naive_cypher,
)

SCRIPT = textwrap.dedent(
    """\
    CREATE CONSTRAINT IF NOT EXISTS FOR (p:Person) REQUIRE (p.name) IS UNIQUE;
    // a comment with CREATE inside
    CREATE (TheMatrix:Movie {title:'The Matrix', released:1999, tagline:'Welcome to the Real World'})
    CREATE (Keanu:Person {name:'Keanu Reeves', born:1964})
    CREATE (Carrie:Person {name:"Carrie-Anne Moss", born:1967})
    CREATE (Lana:Person {name:'Lana Wachowski', born:1965})
    CREATE (Devil:Movie {title:"The Devil's Advocate", released:1997, tagline:'Evil has its winning ways'})
    CREATE
    (Keanu)-[:ACTED_IN {roles:['Neo']}]->(TheMatrix),
    (Carrie)-[:ACTED_IN {roles:['Trinity', 'Agent']}]->(TheMatrix),
    (Lana)-[:DIRECTED]->(TheMatrix),
    (Keanu)-[:ACTED_IN {roles:['Kevin Lomax']}]->(Devil),
    (Carrie)<-[:FOLLOWS]-(Keanu)
    CREATE (Jessica:Person {name:'Jessica Thompson'})-[:REVIEWED {summary:'Dark, but compelling', rating:85}]->(Devil);
    """
)
SCHEMA = "Node properties:\n- **Movie**\n  - `votes`: INTEGER Min: 1\n- **Person**\n  - `name`: STRING\nRelationship properties:\n"


@pytest.fixture()
def graph_path(tmp_path):
    path = tmp_path / "movies.kuzu"
    report = load_script(SCRIPT, path, schema_text=SCHEMA)
    assert report.nodes == 6 and report.rels == 6
    assert report.node_tables == {"Movie": "title", "Person": "name"}
    return path


def test_parser_handles_directions_lists_and_quotes():
    g = parse_script(SCRIPT)
    assert ("Movie", {"title": "The Devil's Advocate", "released": 1997, "tagline": "Evil has its winning ways"}) in g.nodes
    follows = [r for r in g.rels if r[0] == "FOLLOWS"][0]
    assert g.nodes[follows[1]][1]["name"] == "Keanu Reeves" and g.nodes[follows[2]][1]["name"] == "Carrie-Anne Moss"
    assert len(g.skipped) == 1
    with pytest.raises(ScriptError):
        parse_script("MATCH (n) DETACH DELETE n")


def test_loaded_graph_answers_queries(graph_path):
    store = KuzuStore(graph_path)
    assert isinstance(store, GraphStore)
    rows = store.query("MATCH (p:Person)-[r:ACTED_IN]->(m:Movie {title: $t}) RETURN p.name AS name, r.roles AS roles "
                       "ORDER BY name", {"t": "The Matrix"})
    assert rows == [{"name": "Carrie-Anne Moss", "roles": ["Trinity", "Agent"]},
                    {"name": "Keanu Reeves", "roles": ["Neo"]}]
    assert store.query("MATCH (a:Person)-[:FOLLOWS*1..2]->(b) RETURN b.name AS n") == [{"n": "Carrie-Anne Moss"}]
    assert store.query("MATCH (m:Movie {title: 'The Matrix'}) RETURN m.votes AS v") == [{"v": None}]
    node = store.query("MATCH (m:Movie {title: 'The Matrix'}) RETURN m")[0]["m"]
    assert node["released"] == 1999 and "_id" not in node
    store.close()


def test_schema_text_lists_labels_types_and_patterns(graph_path):
    store = KuzuStore(graph_path)
    text = store.schema().text()
    assert "Movie: title STRING" in text and "votes INT64" in text
    assert "(:Person)-[:ACTED_IN]->(:Movie)" in text and "REVIEWED: summary STRING, rating INT64" in text
    assert "'The Matrix'" in text
    store.close()


def test_read_only_store_refuses_writes(graph_path, monkeypatch):
    from queryweave.tools.cypher.store import QueryBlockedError

    store = KuzuStore(graph_path)
    with pytest.raises(QueryBlockedError, match="CREATE is not a read-only query"):  # the store's own guard ...
        store.query("CREATE (:Person {name: 'Mallory'})")
    monkeypatch.setattr("queryweave.tools.cypher.store.check_cypher", lambda q: GuardResult(True, "off", q))
    with pytest.raises(RuntimeError):  # ... and behind it the read-only database
        store.query("CREATE (:Person {name: 'Mallory'})")
    assert store.query("MATCH (p:Person) RETURN count(*) AS c") == [{"c": 4}]
    store.close()


def test_locked_store_gives_a_clear_error(graph_path):
    holder = subprocess.Popen(
        [sys.executable, "-c", "import kuzu, sys, time; d = kuzu.Database(sys.argv[1]); kuzu.Connection(d); "
         "print('ready', flush=True); time.sleep(30)", str(graph_path)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "ready"
        with pytest.raises(StoreBusyError, match="locked/busy"):
            KuzuStore(graph_path)
    finally:
        holder.kill()
        holder.wait()


def test_missing_store_and_existing_target(tmp_path, graph_path):
    with pytest.raises(FileNotFoundError):
        KuzuStore(tmp_path / "nothing.kuzu")
    with pytest.raises(FileExistsError):
        load_script(SCRIPT, graph_path)
    assert declared_properties(SCHEMA) == {"Movie": {"votes": "INT64"}, "Person": {"name": "STRING"}}


class _Record:
    def __init__(self, data):
        self._data = data

    def data(self):
        return self._data


class _Session:
    def __init__(self, log, rows):
        self.log, self.rows = log, rows

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def run(self, query, params):
        self.log.append((query.text, query.timeout, params))
        return [_Record(r) for r in self.rows.get(query.text, [])]


class _Driver:
    def __init__(self, rows):
        self.rows, self.log, self.modes, self.closed = rows, [], [], False

    def session(self, database=None, default_access_mode=None):
        self.modes.append(default_access_mode)
        return _Session(self.log, self.rows)

    def close(self):
        self.closed = True


def test_neo4j_adapter_uses_read_sessions_and_builds_schema():
    import neo4j

    rows = {
        "CALL db.schema.nodeTypeProperties()": [
            {"nodeLabels": ["Person"], "propertyName": "name", "propertyTypes": ["String"]}],
        "CALL db.schema.relTypeProperties()": [
            {"relType": ":`ACTED_IN`", "propertyName": "roles", "propertyTypes": ["StringArray"]}],
    }
    driver = _Driver(rows)
    store = Neo4jStore("bolt://localhost:7687", driver=driver, max_rows=1, timeout_s=3)
    rows[next(iter(rows))].append({"nodeLabels": ["Movie"], "propertyName": "title", "propertyTypes": ["String"]})
    schema = store.schema()
    assert schema.nodes == {"Person": {"name": "String"}, "Movie": {"title": "String"}}
    assert schema.rels == {"ACTED_IN": {"roles": "StringArray"}}
    assert set(driver.modes) == {neo4j.READ_ACCESS}
    assert driver.log[0][1] == 3
    assert len(store.query("CALL db.schema.nodeTypeProperties()")) == 1  # row cap
    store.close()
    assert driver.closed
    assert isinstance(open_store("bolt://x:7687", driver=_Driver({})), Neo4jStore)


def test_text_to_cypher_retries_on_error_and_rewrites_functions(graph_path):
    store = KuzuStore(graph_path)
    llm = ScriptedChatModel(responses=[
        "```cypher\nMATCH (p:Person)-[:ACTS_IN]->(m:Movie) RETURN p.name\n```",
        "MATCH (p:Person {name: 'Keanu Reeves'})-[r]->(m:Movie) RETURN type(r) AS t, m.title AS title ORDER BY title",
    ])
    answer = TextToCypher(store, llm).ask("What did Keanu Reeves do in which movies?")
    assert answer.ok and len(answer.attempts) == 2
    assert answer.rows == [{"t": "ACTED_IN", "title": "The Devil's Advocate"}, {"t": "ACTED_IN", "title": "The Matrix"}]
    assert "ACTS_IN" in llm.calls[1][-1].content
    assert "(:Person)-[:ACTED_IN]->(:Movie)" in llm.calls[0][0].content
    store.close()


def test_text_to_cypher_blocks_writes_and_needs_an_llm(graph_path):
    store = KuzuStore(graph_path)
    llm = ScriptedChatModel(responses=["MATCH (n) DETACH DELETE n"])
    answer = TextToCypher(store, llm, max_retries=1).ask("delete everything")
    assert not answer.ok and "blocked" in answer.error and len(llm.calls) == 2
    assert "needs an LLM" in TextToCypher(store, None).ask("who?").error
    store.close()


def test_extract_and_compat():
    assert extract_cypher("Here you go:\n```cypher\nMATCH (n) RETURN n;\n```") == "MATCH (n) RETURN n"
    assert extract_cypher("MATCH (n) RETURN n\n\nThis returns all nodes.") == "MATCH (n) RETURN n"
    assert kuzu_compat("RETURN toLower(p.name), 'type(x)'") == "RETURN lower(p.name), 'type(x)'"


def test_errors_get_schema_hints_and_the_repair_turn_lists_every_try(graph_path):
    store = KuzuStore(graph_path)
    schema = store.schema()
    assert "property title exists on: Movie.title" in explain_error(schema, "Binder exception: Cannot find property title for p.")
    assert "the properties are:" in explain_error(schema, "Binder exception: Cannot find property colour for p.")
    assert "after RETURN or WITH" in explain_error(schema, "Parser exception: Invalid input <MATCH (m:Movie) ORDER>: x")
    assert "WITH x, count(y)" in explain_error(schema, "Cannot evaluate expression with type AGGREGATE_FUNCTION.")
    assert "stay in scope" in explain_error(schema, "Binder exception: Variable m is not in scope.")
    assert explain_error(schema, "something else") == "something else"
    llm = ScriptedChatModel(responses=[
        "MATCH (p:Person) RETURN p.title",
        "MATCH (m:Movie) WHERE count(m) > 1 RETURN m.title",
        "MATCH (m:Movie) RETURN m.title ORDER BY m.title LIMIT 1",
    ])
    answer = TextToCypher(store, llm).ask("Which movie comes first by title?")
    assert answer.ok and answer.rows == [{"m.title": "The Devil's Advocate"}] and len(answer.attempts) == 3
    last = llm.calls[2][-1].content
    assert "p.title" in last and "Movie.title" in last and "WITH x, count(y)" in last
    # the same system prompt and few-shot turns, one fresh user turn: not a growing conversation
    assert len(llm.calls[2]) == len(llm.calls[0]) == len(TextToCypher(store, llm).messages("x"))
    store.close()


def test_naive_cypher_is_one_shot(graph_path):
    store = KuzuStore(graph_path)
    llm = ScriptedChatModel(responses=["MATCH (p:Person) RETURN p.title", "MATCH (p:Person) RETURN p.name"])
    answer = naive_cypher(store, llm, "Who are the people?")
    assert not answer.ok and "Cannot find property" in answer.error and len(llm.calls) == 1
    assert "Question: Who are the people?" in llm.calls[0][0].content and "ACTED_IN" in llm.calls[0][0].content
    store.close()


def test_sql_habits_are_repaired_before_running(graph_path):
    from queryweave.tools.cypher.text_to_cypher import repair_clauses

    assert repair_clauses("MATCH (p:Person) ORDER BY p.born LIMIT 2 RETURN p.name") == (
        "MATCH (p:Person) RETURN p.name ORDER BY p.born LIMIT 2")
    assert repair_clauses("MATCH (p:Person)-[:ACTED_IN]->(m) GROUP BY p.name RETURN p.name, count(m) AS n") == (
        "MATCH (p:Person)-[:ACTED_IN]->(m) RETURN p.name, count(m) AS n")
    # HAVING filters aggregates: after a WITH it becomes WHERE (before any ORDER BY/LIMIT that followed); it is
    # never dropped silently — where it cannot go (after RETURN) the query is left as written, to fail and retry
    having = "MATCH (p:Person)-[:ACTED_IN]->(m) WITH p, count(m) AS n GROUP BY p.name HAVING n > 1"
    assert repair_clauses(f"{having} RETURN p.name") == (
        "MATCH (p:Person)-[:ACTED_IN]->(m) WITH p, count(m) AS n WHERE n > 1 RETURN p.name")
    assert repair_clauses(f"{having} ORDER BY n DESC LIMIT 1 RETURN p.name") == (
        "MATCH (p:Person)-[:ACTED_IN]->(m) WITH p, count(m) AS n WHERE n > 1 WITH * ORDER BY n DESC LIMIT 1 RETURN p.name")
    after_return = "MATCH (p:Person)-[:ACTED_IN]->(m) RETURN p.name, count(m) AS n GROUP BY p.name HAVING n > 1"
    assert repair_clauses(after_return) == after_return
    valid = "MATCH (p:Person)-[:ACTED_IN]->(m) WITH p, count(m) AS n ORDER BY n DESC LIMIT 1 RETURN p.name"
    assert repair_clauses(valid) == valid
    quoted = "MATCH (m:Movie) WHERE m.title = 'ORDER BY x' RETURN m.title"
    assert repair_clauses(quoted) == quoted
    store = KuzuStore(graph_path)
    llm = ScriptedChatModel(responses=["MATCH (p:Person) ORDER BY p.born LIMIT 1 RETURN p.name"])
    answer = TextToCypher(store, llm).ask("Who is the oldest person?")
    assert answer.ok and answer.rows == [{"p.name": "Keanu Reeves"}] and len(llm.calls) == 1
    grouped = "MATCH (p:Person)-[:ACTED_IN]->(m:Movie) WITH p, count(m) AS n GROUP BY p HAVING n > 1 RETURN p.name"
    every = TextToCypher(store, None).run("MATCH (p:Person)-[:ACTED_IN]->(m:Movie) RETURN DISTINCT p.name")[0]
    answer = TextToCypher(store, ScriptedChatModel(responses=[grouped])).ask("Who acted in more than one movie?")
    assert answer.ok and 0 < len(answer.rows) < len(every)  # the filter was kept, not dropped with the GROUP BY
    # `length` of a string property is a SQL habit (Cypher's length measures a path): run as `size`
    longer = "MATCH (m:Movie) WHERE LENGTH(m.title) > 12 RETURN m.title"
    assert TextToCypher(store, None).run(longer)[1]  # as written, the engine rejects it
    answer = TextToCypher(store, ScriptedChatModel(responses=[longer])).ask("Which titles are longer than 12?")
    assert answer.ok and answer.rows == [{"m.title": "The Devil's Advocate"}]
    # the naive baseline gets no such help
    naive = naive_cypher(store, ScriptedChatModel(responses=["MATCH (p:Person) ORDER BY p.born LIMIT 1 RETURN p.name"]),
                         "Who is the oldest person?")
    assert not naive.ok and "Parser exception" in naive.error
    store.close()


def test_neo4j_adapter_guards_every_query_before_the_driver_sees_it():
    """No Neo4j server can run here: the thin adapter's own guard is tested with a fake driver."""
    import neo4j

    from queryweave.tools.cypher.store import QueryBlockedError

    driver = _Driver({"MATCH (p:Person) RETURN p.name AS name": [{"name": "Ada"}]})
    store = Neo4jStore("bolt://localhost:7687", driver=driver, timeout_s=2)
    for attack in ("MATCH (n) DETACH DELETE n", "CREATE (:Person {name: 'Mallory'})",
                   "LOAD CSV FROM 'file:///etc/passwd' AS line RETURN line",
                   "CALL apoc.periodic.iterate('MATCH (n) RETURN n', 'DELETE n', {})",
                   "MATCH (p:Person) RETURN p.name; MATCH (n) DELETE n"):
        with pytest.raises(QueryBlockedError, match="read-only guard"):
            store.query(attack)
    assert driver.log == []  # nothing reached the server
    assert store.query("MATCH (p:Person) RETURN p.name AS name") == [{"name": "Ada"}]
    assert driver.modes == [neo4j.READ_ACCESS] and driver.log[0][1] == 2
