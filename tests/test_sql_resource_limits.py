"""Resource-exhaustion SQL against a real read-only SQLite file, straight through `SqlDatabase.run`
(no guard in front): string amplification, recursive CTEs counting to 1e9, self cross joins, wide
and long results. Each ends within 2x its time limit with one readable line, grows peak RSS by at
most 256 MB (measured in a child process), and writes nothing. Also: the guard's cost rules, the
allow-list by canonical name, and the PostgreSQL session settings."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest
from resource_probe import probe

from queryweave.tools.sql.database import SqlDatabase, _engine_options, postgres_session_sql
from queryweave.tools.sql.guard import check_sql

TIMEOUT_S = 1.0
MAX_GROWTH = 256 * 1024 * 1024
S100 = "'" + "x" * 100 + "'"
MEGA = f"replace(replace({S100}, 'x', {S100}), 'x', {S100})"  # 1e6 chars
ROWS_OF = f"(SELECT {MEGA} AS s)"

ATTACKS = [
    "SELECT printf('%.*c', 1000000000, 'x')",
    "SELECT printf('%1000000000c', 'x')",
    "SELECT length(printf('%.*c', 2147483647, 'x'))",
    "SELECT hex(zeroblob(100000000))",
    "SELECT length(randomblob(1000000000))",
    "SELECT repeat('x', 1000000000)",
    "SELECT lpad('x', 1000000000, 'y')",
    "SELECT rpad('x', 1000000000)",
    "SELECT replace(replace(replace(replace(replace(replace('xxxxxxxxxx', 'x', 'xxxxxxxxxx'), 'x', 'xxxxxxxxxx'),"
    " 'x', 'xxxxxxxxxx'), 'x', 'xxxxxxxxxx'), 'x', 'xxxxxxxxxx'), 'x', 'xxxxxxxxxx')",
    f"SELECT length({MEGA} || {MEGA} || {MEGA})",
    "SELECT hex(hex(hex(hex(hex(printf('%.*c', 1000, 'x'))))))",
    "WITH RECURSIVE r(s) AS (SELECT 'x' UNION ALL SELECT s || s FROM r WHERE length(s) < 1e9) "
    "SELECT max(length(s)) FROM r",
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000000) SELECT count(*) FROM c",
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION SELECT x + 1 FROM c WHERE x < 1000000000) SELECT count(*) FROM c",
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c ORDER BY x DESC LIMIT 1",
    "SELECT count(*) FROM singer a, singer b, singer c, singer d, singer e, singer f",
    "SELECT * FROM singer a, singer b, singer c, singer d, singer e ORDER BY random() LIMIT 5",
    "SELECT group_concat(a.name || b.name || c.name || d.name) FROM singer a, singer b, singer c, singer d",
    "WITH v(s) AS " + ROWS_OF + " SELECT " + ", ".join("s" for _ in range(60)) + " FROM v",
    "WITH v(s) AS " + ROWS_OF + " SELECT " + ", ".join("s" for _ in range(500)) + " FROM v",
    "WITH v(s) AS " + ROWS_OF + " SELECT s || name FROM v, singer",
]


@pytest.fixture()
def db_path(tmp_path: Path) -> Path:
    path = tmp_path / "music.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE singer (singer_id INTEGER PRIMARY KEY, name TEXT, country TEXT, age INTEGER)")
    conn.executemany("INSERT INTO singer VALUES (?, ?, ?, ?)",
                     [(i, f"Singer {i}", ["France", "Spain", "Japan"][i % 3], 20 + i) for i in range(60)])
    conn.commit()
    conn.close()
    return path


def test_attacks_end_in_time_with_a_readable_error_bounded_memory_and_no_writes(db_path):
    before = (hashlib.sha256(db_path.read_bytes()).hexdigest(), sorted(p.name for p in db_path.parent.iterdir()))
    limits = {"timeout_s": TIMEOUT_S, "max_result_bytes": 8 * 1024 * 1024}
    results = probe({"kind": "sql", "path": str(db_path), "limits": limits, "queries": ATTACKS}, db_path.parent)
    assert [r["query"] for r in results] == ATTACKS
    for r in results:
        q = r["query"][:80]
        assert r["error"], f"no error for {q}: {r['rows']} rows"
        assert "\n" not in r["error"] and "Traceback" not in r["error"] and len(r["error"]) < 200, r["error"]
        assert r["seconds"] <= 2 * TIMEOUT_S, (q, r["seconds"], r["error"])
        assert r["rss_growth"] <= MAX_GROWTH, (q, r["rss_growth"] >> 20, r["error"])
    by_query = {r["query"]: r["error"] for r in results}
    assert "time limit of 1s" in by_query[ATTACKS[12]]  # counting to 1e9
    assert "larger than the limit of 2 MB" in by_query[ATTACKS[3]]  # hex(zeroblob(...))
    assert "resource limits" in by_query[ATTACKS[0]]  # printf width: refused before it runs
    assert "result is larger than the limit of 8 MB" in by_query[ATTACKS[-1]]
    after = (hashlib.sha256(db_path.read_bytes()).hexdigest(), sorted(p.name for p in db_path.parent.iterdir()))
    assert after[0] == before[0] and set(before[1]) <= set(after[1])
    assert {n for n in after[1] if n.startswith("music")} == {"music.sqlite"}  # no journal, no copy


def test_limits_leave_ordinary_queries_alone(db_path):
    db = SqlDatabase(str(db_path), timeout_s=TIMEOUT_S, max_rows=1000)
    res = db.run("SELECT country, count(*), printf('%5.1f', avg(age)), unicode(char(65)) FROM singer "
                 "GROUP BY country ORDER BY country")
    assert res.error is None and [r[0] for r in res.rows] == ["France", "Japan", "Spain"] and res.rows[0][3] == 65
    capped = db.run("SELECT a.name, b.name FROM singer a, singer b")
    assert capped.error is None and capped.truncated and len(capped.rows) == 1000
    small = SqlDatabase(str(db_path), max_result_bytes=2000)
    part = small.run("SELECT name FROM singer")
    assert part.error is None and part.truncated and 0 < len(part.rows) < 60
    # the pooled connection keeps no limits or handlers: a later query of the same engine runs normally
    assert db.run("SELECT count(*) FROM singer").rows == [(60,)]


@pytest.mark.parametrize("sql", [
    "SELECT unicode(char(0))",
    "SELECT name FROM singer WHERE age > (SELECT avg(age) FROM singer)",
    "SELECT country, count(*) FROM singer GROUP BY country HAVING count(*) > 1 ORDER BY count(*) DESC LIMIT 3",
    "SELECT T1.name FROM singer AS T1 JOIN singer AS T2 ON T1.age = T2.age WHERE T2.country = 'France'",
    "SELECT lpad(name, 12, '.'), replace(replace(name, 'a', ''), 'e', ''), printf('%05d', age) FROM singer",
    "SELECT bool_and(age > 18), var_pop(age), random() FROM singer",
])
def test_gold_like_and_harmless_queries_pass_the_guard(sql):
    verdict = check_sql(sql)
    assert verdict.allowed, verdict.reason


@pytest.mark.parametrize(("sql", "reason"), [
    ("SELECT printf('%.*c', 1000000000, 'x')", "width/precision from `*`"),
    ("SELECT printf('%1000000000c', 'x')", "over the limit of 1000"),
    ("SELECT printf(name, 1) FROM singer", "literal format string"),
    ("SELECT repeat('x', 1000 * 1000)", "repeat() length"),
    ("SELECT lpad('x', 100000000)", "lpad() length"),
    ("SELECT replace(replace(replace(replace('x', 'x', 'xx'), 'x', 'xx'), 'x', 'xx'), 'x', 'xx')", "nested"),
    ("SELECT " + ", ".join(f"hex(name) AS h{i}" for i in range(17)) + " FROM singer", "length-multiplying"),
    ("SELECT " + ", ".join(f"age AS c{i}" for i in range(65)) + " FROM singer", "65 result columns"),
    ("SELECT randomblob(100)", "allow-list"),
    ("SELECT zeroblob(100)", "allow-list"),
])
def test_amplification_is_refused_by_the_guard(sql, reason):
    verdict = check_sql(sql)
    assert not verdict.allowed and reason in verdict.reason, verdict.reason
    for dialect in ("sqlite", "postgres"):
        assert not check_sql(sql, dialect).allowed


def test_postgres_sessions_are_read_only_with_a_statement_timeout():
    opts = _engine_options("postgresql+psycopg2://reader@db/app", 2.5)["connect_args"]["options"]
    assert "default_transaction_read_only=on" in opts and "statement_timeout=2500" in opts
    statements = postgres_session_sql(2.5)
    assert statements[0] == "SET TRANSACTION READ ONLY" and "SET LOCAL statement_timeout = 2500" in statements
    assert _engine_options("sqlite:///x.db", 2.5) == {}
