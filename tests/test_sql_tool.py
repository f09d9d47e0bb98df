"""Text-to-SQL on a real SQLite file: read-only opening, limits, schema, table selection, repair loop."""

import sqlite3

import pytest

from queryweave.testing import ScriptedChatModel
from queryweave.tools.sql.database import SqlDatabase
from queryweave.tools.sql.naive import naive_sql
from queryweave.tools.sql.schema_select import candidate_terms, identifier_tokens, select_tables
from queryweave.tools.sql.text_to_sql import TextToSQL, extract_sql


@pytest.fixture()
def db_path(tmp_path):
    path = tmp_path / "music.sqlite"
    con = sqlite3.connect(path)
    con.executescript(
        """
        CREATE TABLE singer (singer_id INTEGER PRIMARY KEY, name TEXT, country TEXT, age INTEGER);
        CREATE TABLE concert (concert_id INTEGER PRIMARY KEY, concert_name TEXT, year INTEGER);
        CREATE TABLE singer_in_concert (concert_id INTEGER REFERENCES concert(concert_id),
                                        singer_id INTEGER REFERENCES singer(singer_id));
        CREATE TABLE stadium (stadium_id INTEGER PRIMARY KEY, location TEXT, capacity INTEGER);
        CREATE TABLE employee (employee_id INTEGER PRIMARY KEY, full_name TEXT);
        CREATE TABLE shop (shop_id INTEGER PRIMARY KEY, district TEXT);
        CREATE TABLE hiring (shop_id INTEGER REFERENCES shop(shop_id),
                             employee_id INTEGER REFERENCES employee(employee_id), start_year INTEGER);
        INSERT INTO singer VALUES (1, 'Joe Sharp', 'Netherlands', 52), (2, 'Timbaland', 'United States', 32),
                                  (3, 'Justin Brown', 'France', 29), (4, 'Rose White', 'France', 41);
        INSERT INTO concert VALUES (1, 'Auditions', 2014), (2, 'Super bootcamp', 2015);
        INSERT INTO singer_in_concert VALUES (1, 1), (1, 3), (2, 4);
        INSERT INTO stadium VALUES (1, 'Raith Rovers', 10104);
        INSERT INTO employee VALUES (1, 'George Chuter');
        INSERT INTO shop VALUES (1, 'FC Haka');
        INSERT INTO hiring VALUES (1, 1, 2010);
        """
    )
    con.commit()
    con.close()
    return path


def test_opens_read_only_and_keeps_data(db_path):
    db = SqlDatabase(str(db_path))
    assert "mode=ro" in db.url
    result = db.run("DELETE FROM singer")
    assert result.error and "readonly" in result.error
    assert db.run("SELECT count(*) FROM singer").rows == [(4,)]
    db.close()


def test_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        SqlDatabase(str(tmp_path / "nope.sqlite"))


def test_row_cap_and_time_limit(db_path):
    db = SqlDatabase(f"sqlite:///{db_path}", max_rows=2, timeout_s=0.3)
    capped = db.run("SELECT name FROM singer")
    assert len(capped.rows) == 2 and capped.truncated
    slow = db.run("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c")
    assert slow.error and "time limit" in slow.error
    assert slow.elapsed_s < 3


def test_schema_text_has_keys_samples_and_values(db_path):
    text = SqlDatabase(str(db_path)).schema_text(["singer", "singer_in_concert"], low_cardinality=5)
    assert "singer(singer_id INTEGER PK, name TEXT, country TEXT, age INTEGER)" in text
    assert "singer_id INTEGER -> singer.singer_id" in text
    assert "country values: 'Netherlands', 'United States', 'France'" in text
    assert "rows: (1, 'Joe Sharp'" in text


def test_table_selection_keeps_matches_and_bridges(db_path):
    db = SqlDatabase(str(db_path))
    assert {"car", "maker"} <= identifier_tokens("car_makers")
    picked = select_tables(db, "Which singers performed in a concert in 2014?", max_tables=3)
    assert {"singer", "concert", "singer_in_concert"} <= set(picked)
    assert "shop" not in picked and "employee" not in picked
    # a Chinese question shares no words with the schema: keep everything
    assert len(select_tables(db, "有多少歌手？", max_tables=3)) == 7
    assert "Joe Sharp" in candidate_terms("How old is Joe Sharp?")


def test_extract_sql_from_replies():
    assert extract_sql("Sure:\n```sql\nSELECT name FROM singer;\n```\nDone.") == "SELECT name FROM singer"
    assert extract_sql("SELECT 1 FROM t;\n\nThis returns one.") == "SELECT 1 FROM t"
    assert extract_sql("SELECT a FROM t; SELECT b FROM u") == "SELECT a FROM t"


def test_no_llm_gives_a_clear_message(db_path):
    answer = TextToSQL(SqlDatabase(str(db_path)), None).ask("How many singers?")
    assert not answer.ok and "needs an LLM" in answer.error


def test_error_is_fed_back_and_retried(db_path):
    llm = ScriptedChatModel(responses=["```sql\nSELECT nam FROM singer WHERE age > 40\n```",
                                       "```sql\nSELECT name FROM singer WHERE age > 40\n```"])
    answer = TextToSQL(SqlDatabase(str(db_path)), llm).ask("Which singers are older than 40?")
    assert answer.ok and sorted(answer.rows) == [("Joe Sharp",), ("Rose White",)]
    assert len(answer.attempts) == 2 and "no such column" in answer.attempts[0]["error"]
    assert "no such column" in llm.calls[1][-1].content


def test_blocked_query_never_runs_and_retries_are_bounded(db_path):
    llm = ScriptedChatModel(responses=["DROP TABLE singer"])
    db = SqlDatabase(str(db_path))
    answer = TextToSQL(db, llm, max_retries=2).ask("Delete the singers")
    assert not answer.ok and "blocked" in answer.error
    assert len(answer.attempts) == 3 and len(llm.calls) == 3
    assert db.run("SELECT count(*) FROM singer").rows == [(4,)]


def test_translated_value_is_fed_back_with_the_columns_values(db_path):
    llm = ScriptedChatModel(responses=["SELECT count(*) FROM singer WHERE country = '法国'",
                                       "SELECT count(*) FROM singer WHERE country = 'France'"])
    answer = TextToSQL(SqlDatabase(str(db_path)), llm, translate_questions=False, bilingual=False,
                       map_values=False).ask("法国有多少歌手？")
    assert answer.rows == [(2,)]
    assert "'France'" in llm.calls[1][-1].content and "法国" in llm.calls[1][-1].content
    # the first prompt already lists the low-cardinality values
    assert "'France'" in llm.calls[0][0].content


def test_case_only_mismatch_is_fixed_without_asking(db_path):
    llm = ScriptedChatModel(responses=["SELECT count(*) FROM singer WHERE country = 'france'"])
    answer = TextToSQL(SqlDatabase(str(db_path)), llm).ask("How many singers are from france?")
    assert answer.rows == [(2,)] and answer.sql.endswith("'France'") and len(llm.calls) == 1


def test_function_calling_method(db_path):
    llm = ScriptedChatModel(responses=[{"sql": "SELECT max(age) FROM singer"}])
    answer = TextToSQL(SqlDatabase(str(db_path)), llm, method="function_calling").ask("Oldest singer's age?")
    assert answer.rows == [(52,)]


def test_naive_baseline_is_one_shot(db_path):
    llm = ScriptedChatModel(responses=["SELECT nam FROM singer", "SELECT name FROM singer"])
    answer = naive_sql(SqlDatabase(str(db_path)), llm, "List singers")
    assert answer.error and len(llm.calls) == 1


def test_error_feedback_names_the_table_that_has_the_column(db_path):
    from queryweave.tools.sql.repair import explain_error

    db = SqlDatabase(str(db_path))
    assert "singer.age" in explain_error(db, "no such column: T2.age")
    assert "similar columns: concert.concert_name" in explain_error(db, "no such column: concertname")
    assert "the tables are:" in explain_error(db, "no such table: singers")
    llm = ScriptedChatModel(responses=["SELECT T1.name FROM concert AS T1", "SELECT name FROM singer"])
    TextToSQL(db, llm, fix_schema=False).ask("List the singers")
    assert "singer.name" in llm.calls[1][-1].content
    # with the schema repair on (the default), the same query is fixed without asking again
    llm = ScriptedChatModel(responses=["SELECT T1.name FROM concert AS T1"])
    answer = TextToSQL(db, llm).ask("List the singers")
    assert answer.ok and len(llm.calls) == 1 and sorted(answer.rows)[0] == ("Joe Sharp",)
