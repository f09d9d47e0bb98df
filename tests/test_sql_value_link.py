"""Value-based column linking on a real SQLite file: a comparison moves to the column that holds its values."""


import pytest

from queryweave.testing import ScriptedChatModel
from queryweave.tools.sql.text_to_sql import TextToSQL
from queryweave.tools.sql.value_link import relink_values


@pytest.fixture()
def db(sql_db_from):
    return sql_db_from("""
        CREATE TABLE country (Code TEXT PRIMARY KEY, Name TEXT, Continent TEXT, Region TEXT, Life REAL);
        CREATE TABLE city (ID INTEGER PRIMARY KEY, Name TEXT, CountryCode TEXT REFERENCES country(Code),
                           District TEXT);
        INSERT INTO country VALUES ('KEN', 'Kenya', 'Africa', 'Eastern Africa', 48.0),
            ('EGY', 'Egypt', 'Africa', 'Northern Africa', 63.0), ('JAM', 'Jamaica', 'North America', 'Caribbean', 75.0),
            ('CUB', 'Cuba', 'North America', 'Caribbean', 76.0), ('FRA', 'France', 'Europe', 'Western Europe', 78.0),
            ('AUS', 'Australia', 'Oceania', 'Oceania', 80.0), ('USA', 'United States', 'North America',
            'North America', 77.0);
        INSERT INTO city VALUES (1, 'Nairobi', 'KEN', 'Nairobi'), (2, 'Paris', 'FRA', 'Ile-de-France'),
            (3, 'Havana', 'CUB', 'La Habana'), (4, 'Sydney', 'AUS', 'New South Wales');
        """, "world.sqlite")


def test_a_value_its_column_never_holds_moves_to_the_column_that_does(db):
    sql, notes = relink_values(db, "SELECT avg(Life) FROM country WHERE Region = 'Africa'")
    assert notes == ["Region = 'Africa' -> Continent = 'Africa'"]
    assert db.run(sql).rows == [(55.5,)]


def test_a_misspelled_value_takes_the_stored_spelling_of_its_one_close_match(db):
    sql, notes = relink_values(db, "SELECT count(*) FROM country WHERE Continent = 'Carribean'")
    assert notes == ["Continent = 'Carribean' -> Region = 'Caribbean'"]
    assert db.run(sql).rows == [(2,)]


def test_across_joined_tables_the_column_takes_its_tables_alias(db):
    sql, notes = relink_values(db, "SELECT T1.Name FROM city AS T1 JOIN country AS T2 ON T1.CountryCode = T2.Code "
                                   "WHERE T1.District = 'Europe'")
    assert notes == ["T1.District = 'Europe' -> T2.Continent = 'Europe'"]
    assert db.run(sql).rows == [("Paris",)]


def test_an_in_list_moves_only_when_one_column_holds_every_value(db):
    sql, notes = relink_values(db, "SELECT Name FROM country WHERE Region IN ('Africa', 'Europe') ORDER BY Name")
    assert notes and db.run(sql).rows == [("Egypt",), ("France",), ("Kenya",)]
    mixed = "SELECT Name FROM country WHERE Region IN ('Africa', 'Kenya')"  # a continent and a name
    assert relink_values(db, mixed) == (mixed, [])


def test_a_close_match_needs_four_characters(db):
    sql, notes = relink_values(db, "SELECT Code FROM country WHERE Region = 'Kenia'")
    assert notes == ["Region = 'Kenia' -> Name = 'Kenya'"] and db.run(sql).rows == [("KEN",)]


def test_comparisons_left_alone(db):
    held = "SELECT Name FROM country WHERE Continent = 'Africa'"  # the column holds it
    nowhere = "SELECT Name FROM country WHERE Name = 'Atlantis'"  # no column holds it: an honest empty answer
    two_homes = "SELECT Code FROM country WHERE Name = 'Oceania'"  # Continent and Region both hold it
    short = "SELECT Code FROM country WHERE Region = 'Cba'"  # too short for a close match ('Cuba', ratio 0.86)
    case_only = "SELECT Name FROM country WHERE Continent = 'africa'"  # the column holds it ignoring case
    for sql in (held, nowhere, two_homes, short, case_only, "not sql ("):
        assert relink_values(db, sql) == (sql, [])


def test_the_pipeline_links_the_value_before_running_and_can_be_switched_off(db):
    reply = "```sql\nSELECT avg(Life) FROM country WHERE Region = 'Africa'\n```"
    answer = TextToSQL(db, ScriptedChatModel(responses=[reply])).ask("Average life expectancy in Africa?")
    assert answer.ok and answer.rows == [(55.5,)]
    assert answer.attempts[0]["repairs"] == ["Region = 'Africa' -> Continent = 'Africa'"]
    off = TextToSQL(db, ScriptedChatModel(responses=[reply]), link_values=False, max_retries=0, shape_repairs=False,
                    shape_select=0).ask("Average life expectancy in Africa?")
    assert off.rows == [(None,)] and off.attempts[0]["repairs"] == []


def test_eval_sql_cli_links_values_by_default_and_not_with_no_link_values(tmp_path, db, monkeypatch, capsys):
    import json

    from queryweave.cli import structured
    from queryweave.cli.main import main

    folder = tmp_path / "spider"
    (folder / "database" / "world").mkdir(parents=True)
    (folder / "database" / "world" / "world.sqlite").write_bytes((tmp_path / "world.sqlite").read_bytes())
    (folder / "questions.jsonl").write_text(json.dumps(
        {"id": 0, "db_id": "world", "question_en": "What is the average life expectancy in Africa?",
         "gold_sql": "SELECT avg(Life) FROM country WHERE Continent = 'Africa'"}), encoding="utf-8")
    reply = "```sql\nSELECT avg(Life) FROM country WHERE Region = 'Africa'\n```"
    monkeypatch.setattr(structured, "_llm", lambda args: ScriptedChatModel(responses=[reply] * 6))
    assert main(["eval", "sql", str(folder), "--languages", "en", "--json", "--quiet"]) == 0
    assert json.loads(capsys.readouterr().out)["execution_accuracy"] == 1.0
    assert main(["eval", "sql", str(folder), "--languages", "en", "--no-link-values", "--json", "--quiet"]) == 0
    assert json.loads(capsys.readouterr().out)["execution_accuracy"] == 0.0
