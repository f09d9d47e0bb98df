"""PostgreSQL as a Text-to-SQL source, on a running server: a Spider-style database (tests/data/
concert_singer.sql) loaded into PostgreSQL and into SQLite answers the same gold-style queries through
`SqlDatabase`; the connection is a SELECT-only role on read-only sessions with a statement timeout; the
attack corpus (tests/data/sql_attacks.txt) and resource-exhaustion queries — refused by the guard in the
PostgreSQL dialect, then run with no guard at all — write nothing and none runs past its time limit;
and through the graph a compromised model that emits writes changes nothing."""

from __future__ import annotations

import sqlite3
import time
from dataclasses import replace
from pathlib import Path

import pytest
from test_attacks_e2e import _model, _sql

from queryweave.graph.builder import graph
from queryweave.tools.common.guard_result import GuardResult
from queryweave.tools.sql.database import SqlDatabase
from queryweave.tools.sql.guard import check_sql
from queryweave.tools.stores import sources

pytestmark = pytest.mark.servers
pytest.importorskip("psycopg", reason="the postgres extra is not installed")

DATA = Path(__file__).parent / "data"
SCRIPT = (DATA / "concert_singer.sql").read_text(encoding="utf-8")
ATTACKS = [line.strip() for line in (DATA / "sql_attacks.txt").read_text(encoding="utf-8").splitlines() if line.strip()]
TIMEOUT_S = 1.0
GOLD = [  # Spider concert_singer style, unquoted identifiers (portable)
    "SELECT count(*) FROM singer",
    "SELECT name, country, age FROM singer ORDER BY age DESC",
    "SELECT avg(age), min(age), max(age) FROM singer WHERE country = 'France'",
    "SELECT song_name, song_release_year FROM singer ORDER BY age LIMIT 1",
    "SELECT DISTINCT country FROM singer WHERE age > 20 ORDER BY country",
    "SELECT country, count(*) FROM singer GROUP BY country ORDER BY country",
    "SELECT T2.name, count(*) FROM concert AS T1 JOIN stadium AS T2 ON T1.stadium_id = T2.stadium_id "
    "GROUP BY T2.name ORDER BY T2.name",
    "SELECT name FROM stadium WHERE stadium_id NOT IN (SELECT stadium_id FROM concert) ORDER BY name",
    "SELECT T2.name FROM singer_in_concert AS T1 JOIN singer AS T2 ON T1.singer_id = T2.singer_id "
    "JOIN concert AS T3 ON T1.concert_id = T3.concert_id WHERE T3.year = '2014' ORDER BY T2.name",
    "SELECT name FROM singer WHERE song_name LIKE '%Hey%'",
    "SELECT year FROM concert GROUP BY year ORDER BY count(*) DESC LIMIT 1",
    "SELECT name FROM stadium EXCEPT SELECT T2.name FROM concert AS T1 JOIN stadium AS T2 "
    "ON T1.stadium_id = T2.stadium_id WHERE T1.year = '2014' ORDER BY name",
]
RESOURCE_ATTACKS = [  # PostgreSQL's own ways to burn time or memory; each must end within 2x the limit
    "SELECT count(*) FROM generate_series(1, 10000000000)",
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000000) SELECT count(*) FROM c",
    "SELECT count(*) FROM singer a, singer b, singer c, singer d, generate_series(1, 100000000) g",
    "SELECT md5(repeat(name, 1000000)) FROM singer, generate_series(1, 1000)",
    "SELECT string_agg(repeat('x', 1000), '') FROM generate_series(1, 100000000)",
    "SELECT pg_sleep(10)",
    "SELECT repeat('x', 1000000000)",
]


@pytest.fixture(scope="module")
def music(pg_server, tmp_path_factory) -> dict[str, str]:
    """The database in PostgreSQL (owned by the superuser; `reader` may only SELECT) and in SQLite."""
    pg_server.query("DROP DATABASE IF EXISTS concert_singer")
    pg_server.query("CREATE DATABASE concert_singer")
    pg_server.query(SCRIPT, "concert_singer")
    for grant in ("DROP ROLE IF EXISTS reader", "CREATE ROLE reader LOGIN",
                  "REVOKE ALL ON DATABASE concert_singer FROM PUBLIC", "GRANT CONNECT ON DATABASE concert_singer TO reader",
                  "REVOKE CREATE ON SCHEMA public FROM PUBLIC", "GRANT USAGE ON SCHEMA public TO reader",
                  "GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader"):
        pg_server.query(grant, "concert_singer")
    path = tmp_path_factory.mktemp("sqlite") / "concert_singer.sqlite"
    conn = sqlite3.connect(path)
    conn.executescript(SCRIPT)
    conn.close()
    return {"postgres": pg_server.url("concert_singer", "reader", "+psycopg"), "sqlite": str(path),
            "admin": "concert_singer"}


def _snapshot(pg_server) -> tuple:
    """Everything a write could change: each table's rows, the relations, functions and roles."""
    tables = [r[0] for r in pg_server.query("SELECT tablename FROM pg_tables WHERE schemaname = 'public' "
                                            "ORDER BY 1", "concert_singer")]
    digests = [pg_server.query(f"SELECT md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) FROM {t} t",
                               "concert_singer")[0][0] for t in tables]
    relations = pg_server.query("SELECT relname, relkind FROM pg_class WHERE relnamespace = 'public'::regnamespace "
                                "ORDER BY 1", "concert_singer")
    functions = pg_server.query("SELECT count(*) FROM pg_proc WHERE pronamespace = 'public'::regnamespace",
                                "concert_singer")
    roles = pg_server.query("SELECT rolname, rolsuper, rolcreaterole FROM pg_roles ORDER BY 1")
    settings = pg_server.query("SELECT setrole, setdatabase, setconfig::text FROM pg_db_role_setting ORDER BY 1, 2")
    return tables, digests, relations, functions, roles, settings


def _rows(db: SqlDatabase, sql: str) -> list[tuple]:
    res = db.run(sql)
    assert res.error is None, (sql, res.error)
    return [tuple(float(v) if isinstance(v, (int, float)) or type(v).__name__ == "Decimal" else v for v in row)
            for row in res.rows]


def test_postgres_answers_the_gold_queries_like_sqlite(music):
    pg, lite = SqlDatabase(music["postgres"]), SqlDatabase(music["sqlite"])
    assert pg.dialect == "postgres" and lite.dialect == "sqlite"
    for sql in GOLD:
        assert check_sql(sql, "postgres").allowed, sql
        assert _rows(pg, sql) == _rows(lite, sql), sql
    tables = pg.tables()
    assert set(tables) == {"stadium", "singer", "concert", "singer_in_concert"}
    assert ("stadium_id", "stadium", "stadium_id") in tables["concert"].foreign_keys
    assert tables["singer"].primary_key == ["singer_id"] and len(tables["singer"].samples) == 3
    assert ("singer", "country", "France") in pg.find_values("franc")
    assert "concert_name TEXT" in pg.schema_text(["concert"])


def test_sessions_are_read_only_with_a_statement_timeout(music, pg_server):
    from sqlalchemy import text

    db = SqlDatabase(music["postgres"], timeout_s=TIMEOUT_S)
    with db.engine.connect() as conn:  # outside `run`, the session defaults still hold
        assert conn.execute(text("SHOW default_transaction_read_only")).scalar() == "on"
        assert conn.execute(text("SHOW statement_timeout")).scalar() == "1s"
        with pytest.raises(Exception, match="read-only transaction"):
            conn.execute(text("DELETE FROM singer"))
    assert not pg_server.query("SELECT has_table_privilege('reader', 'singer', 'INSERT, UPDATE, DELETE, TRUNCATE')",
                               "concert_singer")[0][0]
    assert db.run("SELECT current_setting('transaction_read_only')").rows == [("on",)]


def test_the_attack_corpus_is_refused_and_writes_nothing_even_unguarded(music, pg_server, tmp_path):
    refused = [sql for sql in ATTACKS if not check_sql(sql, "postgres").allowed]
    assert refused == ATTACKS, sorted(set(ATTACKS) - set(refused))
    db = SqlDatabase(music["postgres"], timeout_s=TIMEOUT_S)
    before = _snapshot(pg_server)
    ran, slow = [], []
    for line in ATTACKS:
        statement = line.replace("/tmp/", f"{tmp_path}/")
        t = time.monotonic()
        res = db.run(statement)
        if time.monotonic() - t > 2 * TIMEOUT_S:
            slow.append((statement, round(time.monotonic() - t, 2)))
        if res.error is None:
            ran.append(statement)
        else:
            assert "\n" not in res.error and len(res.error) < 300, res.error
    assert _snapshot(pg_server) == before
    assert list(tmp_path.iterdir()) == []  # no COPY TO, no lo_export
    assert not slow, slow
    # whatever still runs is a read (or a plan) only
    assert all(s.upper().startswith(("SELECT", "WITH", "EXPLAIN", "SHOW")) for s in ran), ran


def test_resource_attacks_end_in_time_with_a_readable_error(music, pg_server):
    db = SqlDatabase(music["postgres"], timeout_s=TIMEOUT_S, max_result_bytes=8 * 1024 * 1024)
    before = _snapshot(pg_server)
    for sql in RESOURCE_ATTACKS:
        t = time.monotonic()
        res = db.run(sql)
        took = time.monotonic() - t
        assert res.error, (sql, res.rows[:1])
        assert took <= 2 * TIMEOUT_S, (sql, took, res.error)
        assert "\n" not in res.error and len(res.error) < 300, res.error
    assert "time limit" in db.run(RESOURCE_ATTACKS[0]).error
    assert db.run("SELECT count(*) FROM singer").rows == [(6,)]  # the pooled session is still usable
    assert _snapshot(pg_server) == before
    # nothing is left running on the server
    assert pg_server.query("SELECT count(*) FROM pg_stat_activity WHERE usename = 'reader' AND state = 'active'")[0][0] == 0


@pytest.fixture()
def pg_source(music):
    sources.open_sql.cache_clear()
    sources.sql_vocabulary.cache_clear()
    yield music["postgres"]
    sources.open_sql.cache_clear()
    sources.sql_vocabulary.cache_clear()


def test_the_graph_answers_from_postgres_and_a_compromised_model_changes_nothing(ctx, pg_source, pg_server,
                                                                                 monkeypatch):
    _model(monkeypatch, [_sql("SELECT count(*) FROM singer WHERE country = 'France'")])
    out = graph.invoke({"question": "How many singers are from France?"},
                       context=replace(ctx, sql_url=pg_source, llm="openai"))
    assert out["route"] == "sql" and out["rows"] == [{"count": 4}], out.get("rows")
    before = _snapshot(pg_server)
    _model(monkeypatch, [_sql("DROP TABLE singer"), _sql("WITH d AS (DELETE FROM singer RETURNING *) SELECT count(*) FROM d"),
                         _sql("SELECT set_config('default_transaction_read_only', 'off', false)")])
    out = graph.invoke({"question": "How many singers are from France?"},
                       context=replace(ctx, sql_url=pg_source, llm="openai"))
    assert out["route"] == "sql" and "blocked by the guard" in out["answer"] and not out.get("rows")
    # and with the guard switched off, the read-only role and sessions still hold
    monkeypatch.setattr("queryweave.tools.sql.text_to_sql.check_sql",
                        lambda sql, dialect="sqlite": GuardResult(True, "guard disabled for the test", sql))
    _model(monkeypatch, [_sql("DELETE FROM singer"), _sql("CREATE TABLE evil (a int)"),
                         _sql("WITH u AS (UPDATE singer SET name = 'x' RETURNING *) SELECT count(*) FROM u")])
    out = graph.invoke({"question": "How many singers are from France?"},
                       context=replace(ctx, sql_url=pg_source, llm="openai"))
    assert out["route"] == "sql" and not out.get("rows")
    assert _snapshot(pg_server) == before
