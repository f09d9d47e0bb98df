"""Resource-exhaustion Cypher against a real read-only kuzu store (through `KuzuStore.query`):
variable-length path explosions, huge `range()` lists, string padding, cross products collected
whole. Each ends within 2x the time limit with one readable line and at most 256 MB of peak RSS
growth (measured in a child process); the store is unchanged afterwards."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from resource_probe import probe

from queryweave.tools.cypher.guard import check_cypher

TIMEOUT_S = 1.0
MAX_GROWTH = 256 * 1024 * 1024

ATTACKS = [
    "MATCH p = (a)-[*1..1000000]-(b) RETURN count(*)",
    "MATCH (a:Person)-[:KNOWS*1..50]->(b:Person) RETURN count(*)",
    "MATCH (a)-[*]-(b) RETURN a.name, b.name",
    "MATCH (a)-[*1..10]-(b)-[*1..10]-(c) RETURN count(*)",
    "UNWIND range(1, 1000000000) AS x RETURN count(x)",
    "UNWIND range(1, toInteger('1000000000')) AS x RETURN count(x)",
    "RETURN size(repeat('x', 100000000)) AS n",
    "RETURN size(lpad('x', 100000000, 'y')) AS n",
    "MATCH (a), (b), (c), (d), (e) RETURN collect(a.name) AS names",
]


@pytest.fixture()
def dense_graph(tmp_path: Path) -> Path:
    from queryweave.tools.cypher.loader import load_script

    people = [f"(p{i}:Person {{name:'Person {i}', born:{1950 + i}}})" for i in range(40)]
    knows = [f"(p{i})-[:KNOWS]->(p{(i * 7 + k) % 40})" for i in range(40) for k in range(1, 7)]
    script = tmp_path / "dense.cypher"
    script.write_text("CREATE " + ",\n".join(people + knows))
    path = tmp_path / "dense.kuzu"
    load_script(script, path)
    return path


def _digest(path: Path) -> str:
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
    return hashlib.sha256(b"".join(p.read_bytes() for p in files)).hexdigest()


def test_attacks_end_in_time_with_a_readable_error_and_bounded_memory(dense_graph):
    before = _digest(dense_graph)
    limits = {"timeout_s": TIMEOUT_S, "max_memory_mb": 64}
    results = probe({"kind": "cypher", "path": str(dense_graph), "limits": limits, "queries": ATTACKS},
                    dense_graph.parent)
    assert [r["query"] for r in results] == ATTACKS
    for r in results:
        q = r["query"]
        assert r["error"], f"no error for {q}: {r['rows']} rows"
        assert r["error"].split(":")[0] in {"QueryBlockedError", "QueryLimitError"}, r["error"]
        assert "\n" not in r["error"] and len(r["error"]) < 220, r["error"]
        assert r["seconds"] <= 2 * TIMEOUT_S, (q, r["seconds"], r["error"])
        assert r["rss_growth"] <= MAX_GROWTH, (q, r["rss_growth"] >> 20, r["error"])
    errors = [r["error"] for r in results]
    assert "over the limit of 10 hops" in errors[0] and "range()" in errors[4]
    assert any("time limit of 1s" in e or "memory limit of 64 MB" in e for e in errors[2:4])
    assert _digest(dense_graph) == before


def test_ordinary_queries_still_run(dense_graph):
    from queryweave.tools.cypher.store import KuzuStore

    store = KuzuStore(dense_graph, timeout_s=TIMEOUT_S, max_memory_mb=64, max_rows=50)
    try:
        hops = store.query("MATCH (p:Person {name: 'Person 1'})-[:KNOWS*1..2]->(q) RETURN count(DISTINCT q) AS n")
        assert hops[0]["n"] > 6
        assert store.query("UNWIND range(1, 5) AS x RETURN sum(x) AS s") == [{"s": 15}]
        assert len(store.query("MATCH (a:Person), (b:Person) RETURN a.name, b.name")) == 50  # row cap
    finally:
        store.close()


@pytest.mark.parametrize("query", [
    "MATCH (p:Person)-[:ACTED_IN]->(m:Movie) WHERE m.released > 2000 RETURN p.name, count(m) AS n "
    "ORDER BY n DESC LIMIT 3",
    "MATCH p = shortestPath((a:Person {name: 'Tom Hanks'})-[*]-(b:Person {name: 'Kevin Bacon'})) RETURN length(p)",
    "MATCH (a:Person)-[:KNOWS*1..3]->(b:Person) RETURN DISTINCT b.name",
    "MATCH (m:Movie) RETURN [x IN collect(m.released) | x * 2][0..3] AS doubled, lpad(m.title, 20, '.') AS t",
    "UNWIND range(0, 100, 10) AS x RETURN x",
])
def test_gold_like_queries_pass_the_guard(query):
    verdict = check_cypher(query)
    assert verdict.allowed, verdict.reason


@pytest.mark.parametrize(("query", "reason"), [
    ("MATCH (a)-[:KNOWS*2..1000000]->(b) RETURN b", "over the limit of 10 hops"),
    ("MATCH (a)-[*50]-(b) RETURN b", "over the limit of 10 hops"),
    ("MATCH (a)-[* SHORTEST 1..100]-(b) RETURN b", "over the limit of 10 hops"),
    ("UNWIND range(1, 100000000) AS x RETURN x", "more than 100000 elements"),
    ("MATCH (n) UNWIND range(1, n.born) AS x RETURN x", "integer literals"),
    ("RETURN rpad('x', 2000000000, 'y')", "rpad() length"),
])
def test_resource_attacks_are_refused_by_the_guard(query, reason):
    verdict = check_cypher(query)
    assert not verdict.allowed and reason in verdict.reason, verdict.reason
