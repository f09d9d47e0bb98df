"""The SQL guard blocks every write/escape in the attack corpus and allows ordinary read queries."""

from pathlib import Path

import pytest

from queryweave.tools.common.guard_result import GuardResult
from queryweave.tools.sql.guard import check_sql

ATTACKS = [
    line.strip()
    for line in (Path(__file__).parent / "data" / "sql_attacks.txt").read_text(encoding="utf-8").splitlines()
    if line.strip()
]

LEGIT = [
    "SELECT count(*) FROM singer",
    "select name, country, age from singer order by age desc",
    "SELECT avg(age), min(age), max(age) FROM singer WHERE country = 'France'",
    "SELECT T2.name FROM concert AS T1 JOIN stadium AS T2 ON T1.stadium_id = T2.stadium_id GROUP BY T2.name HAVING count(*) > 1",
    "SELECT name FROM stadium EXCEPT SELECT name FROM stadium WHERE capacity > 100",
    "SELECT a FROM t UNION ALL SELECT b FROM u ORDER BY 1 LIMIT 5",
    "WITH top AS (SELECT name, age FROM singer ORDER BY age DESC LIMIT 3) SELECT name FROM top",
    "SELECT name FROM singer WHERE singer_id NOT IN (SELECT singer_id FROM singer_in_concert)",
    "SELECT name FROM singer WHERE name LIKE '%Hey%' AND age BETWEEN 20 AND 30",
    "SELECT CASE WHEN age > 30 THEN 'old' ELSE 'young' END FROM singer",
    "SELECT CAST(age AS REAL) / 2, round(avg(age), 2), abs(-1), coalesce(name, '') FROM singer",
    "SELECT lower(name), upper(name), length(name), substr(name, 1, 3), trim(name) FROM singer",
    "SELECT strftime('%Y', date), julianday('now') - julianday(date) FROM events",
    "SELECT group_concat(name, ', ') FROM singer GROUP BY country",
    "SELECT name FROM singer WHERE EXISTS (SELECT 1 FROM concert WHERE concert.year = 2014)",
    "SELECT 'DROP TABLE x; DELETE FROM y' AS text_only FROM singer",
    "SELECT name FROM singer -- DROP TABLE singer",
    "SELECT name FROM singer;",
    "SELECT \"update\" FROM \"delete\"",
    "SELECT row_number() OVER (ORDER BY age) FROM singer",
    "SELECT name FROM sqlite_master WHERE type = 'table'",
    "(SELECT name FROM singer)",
    "SELECT ifnull(age, 0), nullif(age, 0), iif(age > 1, 1, 0), instr(name, 'a'), replace(name, 'a', 'b') FROM singer",
]


def test_attack_corpus_is_large_enough():
    assert len(ATTACKS) >= 40


@pytest.mark.parametrize("sql", ATTACKS)
def test_attacks_are_blocked(sql):
    result = check_sql(sql)
    assert isinstance(result, GuardResult)
    assert not result.allowed, sql
    assert result.reason


@pytest.mark.parametrize("sql", LEGIT)
def test_read_queries_are_allowed(sql):
    result = check_sql(sql)
    assert result.allowed, (sql, result.reason)


def test_reasons_are_specific():
    assert "2 statements" in check_sql("SELECT 1; DROP TABLE t").reason
    assert "load_extension" in check_sql("SELECT load_extension('x.so')").reason
    assert "INTO" in check_sql("SELECT * INTO t2 FROM t").reason
    assert check_sql("SELEC 1 FROM t").reason.startswith("parse error")
    assert check_sql("PRAGMA table_info(t)").reason.startswith("PRAGMA")
    assert check_sql("   ").reason == "empty statement"


def test_postgres_dialect():
    assert check_sql("SELECT pg_sleep(1)", dialect="postgres").allowed is False
    assert check_sql("SELECT name FROM t WHERE age > 3", dialect="postgres").allowed
    assert check_sql("COPY t TO PROGRAM 'sh'", dialect="postgres").allowed is False


def test_result_is_frozen_and_prints_a_line():
    r = check_sql("SELECT 1")
    assert r.line().startswith("allowed")
    with pytest.raises(AttributeError):
        r.allowed = False  # type: ignore[misc]
