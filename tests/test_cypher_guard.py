"""The Cypher guard blocks every write/escape in the attack corpus and allows read queries."""

from pathlib import Path

import pytest

from queryweave.tools.cypher.guard import blank_literals, check_cypher

ATTACKS = [
    line.strip()
    for line in (Path(__file__).parent / "data" / "cypher_attacks.txt").read_text(encoding="utf-8").splitlines()
    if line.strip()
]

LEGIT = [
    "MATCH (m:Movie) WHERE m.tagline CONTAINS 'real' AND m.released < 2000 RETURN m ORDER BY m.released LIMIT 3",
    "MATCH (p:Person)-[r:REVIEWED]->(m:Movie) WHERE r.rating > 80 RETURN m.title, r.summary, r.rating",
    "MATCH (p:Person)-[:ACTED_IN]->(m:Movie) WITH p, count(m) AS n ORDER BY n DESC LIMIT 3 RETURN p.name, n",
    "MATCH (a:Person)-[:FOLLOWS*1..3]->(b:Person) RETURN DISTINCT b.name",
    "OPTIONAL MATCH (p:Person {name: 'Nobody'})-[:DIRECTED]->(m) RETURN p, m",
    "MATCH (p:Person) WHERE p.name = 'Set Delete Create' RETURN p",
    "MATCH (p:Person) // DELETE everything\nRETURN p.name",
    "MATCH (p:Person) /* MERGE */ RETURN p.name",
    "UNWIND [1, 2, 3] AS x RETURN x",
    "MATCH (p:Person) RETURN p.name AS `create`",
    "MATCH (start:Person) RETURN start.name",
    "CALL db.labels()",
    "CALL db.schema.visualization()",
    "CALL show_tables() RETURN *",
    "CALL table_info('Person') RETURN *",
    "MATCH (p:Person) CALL { WITH p MATCH (p)-[:ACTED_IN]->(m) RETURN count(m) AS c } RETURN p.name, c",
    "MATCH (m:Movie) RETURN m.title;",
    'MATCH (p:Person {name: "Tom \\"The\\" Hanks"}) RETURN p',
    "MATCH (p:Person) WHERE p.born IS NOT NULL RETURN p.name, p.born, collect(p.name)[..2]",
]


def test_attack_corpus_is_large_enough():
    assert len(ATTACKS) >= 20


@pytest.mark.parametrize("query", ATTACKS)
def test_attacks_are_blocked(query):
    result = check_cypher(query)
    assert not result.allowed, query
    assert result.reason


@pytest.mark.parametrize("query", LEGIT)
def test_read_queries_are_allowed(query):
    result = check_cypher(query)
    assert result.allowed, (query, result.reason)


def test_literals_and_comments_are_blanked():
    bare = blank_literals("MATCH (n {x: 'DELETE'}) // CREATE\nRETURN n /* SET */")
    assert "DELETE" not in bare and "CREATE" not in bare and "SET" not in bare and "RETURN" in bare


def test_reasons():
    assert check_cypher("MATCH (n) RETURN n; MATCH (n) RETURN n").reason.startswith("2 statements")
    assert "apoc" in check_cypher("CALL apoc.help('x')").reason
    assert check_cypher("MATCH (n) SET n.x = 1").reason.startswith("SET")
    assert check_cypher("MATCH (n RETURN n").reason == "parse error: unbalanced brackets"
    assert check_cypher("").reason == "empty statement"
