"""Schema-derived few-shot examples for Text-to-SQL: real stored values, valid SQL, the question's language."""

import sqlite3

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from queryweave.testing import ScriptedChatModel
from queryweave.tools.sql.database import SqlDatabase
from queryweave.tools.sql.fewshot import sql_examples
from queryweave.tools.sql.text_to_sql import TextToSQL, extract_sql


@pytest.fixture()
def db(sql_db_from):
    return sql_db_from("""
        CREATE TABLE stadium (stadium_id INTEGER PRIMARY KEY, location TEXT, capacity INTEGER);
        CREATE TABLE singer (singer_id INTEGER PRIMARY KEY, name TEXT, country TEXT, age INTEGER,
                             stadium_id INTEGER REFERENCES stadium(stadium_id));
        INSERT INTO stadium VALUES (1, 'Raith Rovers', 10104), (2, 'Glebe Park', 4125);
        INSERT INTO singer VALUES (1, 'Joe Sharp', 'Netherlands', 52, 1), (2, 'Timbaland', 'United States', 32, 2),
                                  (3, 'Justin Brown', 'France', 29, 1), (4, 'Rose White', 'France', 41, 2);
        """, "music.sqlite")


def test_examples_use_stored_values_and_run(db):
    pairs = sql_examples(db, ["singer", "stadium"], "en")
    assert len(pairs) == 3
    for _, sql in pairs:
        assert db.run(sql).error is None
    filt, join, count = (sql for _, sql in pairs)
    # the filter's literal is a value the column really stores
    value = filt.split("= ")[-1].strip("'")
    assert db.run(filt).rows and value in {"Joe Sharp", "Netherlands", "France", "United States", "Timbaland",
                                           "Justin Brown", "Rose White"}
    assert "JOIN stadium AS T2 ON T1.stadium_id = T2.stadium_id" in join
    # grouped on a column whose values repeat (country), not on a unique one (name)
    assert count == "SELECT country, COUNT(*) FROM singer GROUP BY country"
    assert sorted(db.run(count).rows) == [("France", 2), ("Netherlands", 1), ("United States", 1)]


def test_chinese_questions_keep_stored_literals(db):
    pairs = sql_examples(db, ["singer", "stadium"], "zh")
    assert pairs and all(any("\u4e00" <= ch <= "\u9fff" for ch in q) for q, _ in pairs)
    assert [s for _, s in pairs] == [s for _, s in sql_examples(db, ["singer", "stadium"], "en")]
    # the stored English value appears both in the Chinese question and in its SQL
    question, sql = pairs[0]
    literal = sql.split("= ")[-1]
    assert literal in question and literal.strip("'").isascii()


def test_examples_are_earlier_turns_and_can_be_turned_off(db):
    llm = ScriptedChatModel(responses=["```sql\nSELECT count(*) FROM singer WHERE country = 'France'\n```"])
    answer = TextToSQL(db, llm, bilingual=False).ask("法国有多少歌手？", lang="zh")
    assert answer.ok and answer.rows == [(2,)]
    sent = llm.calls[0]
    assert isinstance(sent[1], HumanMessage) and isinstance(sent[2], AIMessage)
    assert extract_sql(str(sent[2].content)) and sent[-1].content.endswith("法国有多少歌手？")
    assert len(sent) == 1 + 2 * 3 + 1
    plain, _ = TextToSQL(db, llm, examples=0).messages("法国有多少歌手？", "zh")
    assert len(plain) == 2


def test_thin_schema_gives_no_examples(tmp_path):
    path = tmp_path / "thin.sqlite"
    con = sqlite3.connect(path)
    con.executescript("CREATE TABLE t (id INTEGER PRIMARY KEY, n INTEGER); INSERT INTO t VALUES (1, 2);")
    con.commit()
    con.close()
    database = SqlDatabase(str(path))
    assert sql_examples(database, ["t"], "en") == []
    database.close()


def test_bridge_table_gives_a_three_table_join(tmp_path):
    path = tmp_path / "school.sqlite"
    con = sqlite3.connect(path)
    con.executescript(
        """
        CREATE TABLE teacher (teacher_id INTEGER PRIMARY KEY, name TEXT);
        CREATE TABLE course (course_id INTEGER PRIMARY KEY, course TEXT);
        CREATE TABLE arrange (teacher_id INTEGER REFERENCES teacher(teacher_id),
                              course_id INTEGER REFERENCES course(course_id), grade INTEGER);
        INSERT INTO teacher VALUES (1, 'Ann'), (2, 'Bo');
        INSERT INTO course VALUES (1, 'Math'), (2, 'Art');
        INSERT INTO arrange VALUES (1, 1, 5), (2, 1, 6), (2, 2, 6);
        """
    )
    con.commit()
    con.close()
    database = SqlDatabase(str(path))
    joins = [sql for _, sql in sql_examples(database, ["teacher", "course", "arrange"], "en") if "JOIN" in sql]
    assert len(joins) == 1 and "FROM arrange AS T1 JOIN" in joins[0] and "JOIN course AS" in joins[0]
    assert "JOIN teacher AS" in joins[0]
    rows = sorted(tuple(sorted(r)) for r in database.run(joins[0]).rows)
    assert rows == [("Ann", "Math"), ("Art", "Bo"), ("Bo", "Math")]
    database.close()
