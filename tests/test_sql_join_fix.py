"""Join repairs along declared foreign keys, on a real SQLite file: the repaired query returns the
rows the question asks for; queries whose joins agree with the keys are left exactly as written."""

import pytest
from conftest import sqlite_file

from queryweave.testing import ScriptedChatModel
from queryweave.tools.sql.database import SqlDatabase
from queryweave.tools.sql.join_fix import fix_joins
from queryweave.tools.sql.text_to_sql import TextToSQL
from queryweave.tools.understanding.glossary import question_terms

SCRIPT = """
        CREATE TABLE shop (Shop_ID INTEGER PRIMARY KEY, Name TEXT, District TEXT);
        CREATE TABLE employee (Employee_ID INTEGER PRIMARY KEY, Name TEXT, Age INTEGER);
        CREATE TABLE hiring (Shop_ID INTEGER REFERENCES shop(Shop_ID),
                             Employee_ID INTEGER REFERENCES employee(Employee_ID), Start_from TEXT);
        CREATE TABLE car_names (MakeId INTEGER PRIMARY KEY, Model TEXT);
        CREATE TABLE cars_data (Id INTEGER PRIMARY KEY REFERENCES car_names(MakeId), Accelerate REAL);
        CREATE TABLE stadium (Stadium_ID INTEGER PRIMARY KEY, Name TEXT);
        CREATE TABLE concert (concert_ID INTEGER PRIMARY KEY, Stadium_ID INTEGER REFERENCES stadium(Stadium_ID));
        CREATE TABLE loose (id INTEGER, label TEXT);
        CREATE TABLE award (Employee_ID INTEGER REFERENCES employee(Employee_ID), title TEXT);
        INSERT INTO shop VALUES (1, 'North', 'A'), (2, 'South', 'B'), (3, 'East', 'C');
        INSERT INTO employee VALUES (1, 'Ann', 30), (2, 'Bob', 41), (3, 'Cy', 25), (4, 'Di', 50);
        INSERT INTO hiring VALUES (2, 1, '2010'), (2, 2, '2011'), (2, 3, '2012'), (1, 4, '2013');
        INSERT INTO car_names VALUES (1, 'volvo'), (2, 'ford'), (3, 'volvo');
        INSERT INTO cars_data VALUES (1, 12.0), (2, 19.5), (3, 15.5);
        INSERT INTO stadium VALUES (1, 'Hampden'), (2, 'Balmoor'), (3, 'Glebe'), (4, 'Somerset');
        INSERT INTO concert VALUES (1, 2), (2, 2), (3, 4), (4, 1);
        INSERT INTO loose VALUES (1, 'x'), (2, 'y');
        INSERT INTO award VALUES (3, 'best'), (3, 'fastest'), (1, 'kindest');
"""


@pytest.fixture()
def db(tmp_path):
    database = SqlDatabase(str(sqlite_file(tmp_path / "shops.sqlite", SCRIPT)))
    yield database
    database.close()


def test_a_join_condition_on_one_table_takes_the_foreign_key(db):
    broken = ("SELECT T2.Accelerate FROM car_names AS T1 JOIN cars_data AS T2 ON T1.MakeId = T1.MakeId "
              "WHERE T1.Model = 'volvo' ORDER BY T2.Accelerate")
    assert len(db.run(broken).rows) == 6  # every car_names row times every cars_data row that passes
    sql, notes = fix_joins(db, broken)
    assert notes and "MakeId" in sql and "Id" in sql
    assert db.run(sql).rows == [(12.0,), (15.5,)]


def test_a_condition_naming_only_the_joined_table_is_repaired_too(db):
    sql, notes = fix_joins(db, "SELECT T1.Name FROM shop AS T1 JOIN hiring AS T2 ON T2.Shop_ID = T2.Employee_ID "
                               "WHERE T2.Start_from = '2013'")
    assert notes
    assert db.run(sql).rows == [("North",)]


def test_an_in_subquery_on_an_unrelated_key_selects_the_referring_column(db):
    broken = "SELECT Name FROM stadium WHERE Stadium_ID NOT IN (SELECT concert_ID FROM concert)"
    sql, notes = fix_joins(db, broken)
    assert notes
    assert db.run(sql).rows == [("Glebe",)]


def test_a_count_ordered_without_grouping_joins_the_referring_table(db):
    broken = "SELECT Name FROM shop ORDER BY COUNT(*) DESC LIMIT 1"
    assert db.run(broken).error  # no engine runs it
    sql, notes = fix_joins(db, broken, "Which shop has the most employees?")
    assert any("hiring" in n for n in notes)
    assert db.run(sql).rows == [("South",)]


def test_a_joined_count_without_grouping_is_grouped_by_the_selected_tables_key(db):
    broken = ("SELECT T1.Name FROM shop AS T1 JOIN hiring AS T2 ON T1.Shop_ID = T2.Shop_ID "
              "ORDER BY COUNT(*) ASC LIMIT 1")
    sql, notes = fix_joins(db, broken)
    assert "GROUP BY" in sql
    assert db.run(sql).rows == [("North",)]


def test_several_referring_tables_are_told_apart_by_the_question(db):
    broken = "SELECT Name FROM employee ORDER BY COUNT(*) DESC LIMIT 1"  # hiring and award refer to it
    sql, notes = fix_joins(db, broken, "Which employee won the most award titles?")
    assert any("award" in n for n in notes)
    assert db.run(sql).rows == [("Cy",)]
    assert fix_joins(db, broken, "Which one has the most?") == (broken, [])  # nothing to choose by


@pytest.mark.parametrize("sql", [
    "SELECT T2.Accelerate FROM car_names AS T1 JOIN cars_data AS T2 ON T2.Id = T1.MakeId",
    "SELECT Name FROM stadium WHERE Stadium_ID NOT IN (SELECT Stadium_ID FROM concert)",
    "SELECT T1.Name, COUNT(*) FROM shop AS T1 JOIN hiring AS T2 ON T1.Shop_ID = T2.Shop_ID GROUP BY T1.Shop_ID",
    "SELECT label FROM loose AS a JOIN loose AS b ON a.id = b.id",  # no keys declared: nothing to go by
    "SELECT Name FROM shop WHERE Shop_ID IN (SELECT Shop_ID FROM hiring WHERE Start_from > '2011')",
    "SELECT COUNT(*) FROM shop",
])
def test_queries_that_agree_with_the_keys_are_left_as_written(db, sql):
    assert fix_joins(db, sql) == (sql, [])


def test_unparsable_sql_is_returned_unchanged(db):
    assert fix_joins(db, "SELEC nonsense FROM") == ("SELEC nonsense FROM", [])


def test_the_tool_runs_the_repaired_join_and_says_so(db):
    reply = "```sql\nSELECT Name FROM shop ORDER BY COUNT(*) DESC LIMIT 1\n```"
    tool = TextToSQL(db, ScriptedChatModel(responses=[reply]), max_retries=0, examples=0, shape_select=0)
    answer = tool.ask("Which shop has the most employees?")
    assert answer.error is None and answer.rows == [("South",)]
    assert any("hiring" in r for r in answer.attempts[-1]["repairs"])
    off = TextToSQL(db, ScriptedChatModel(responses=[reply]), max_retries=0, examples=0, shape_select=0,
                    fix_joins=False).ask("Which shop has the most employees?")
    assert off.error


def test_a_join_nothing_uses_and_the_question_does_not_name_is_dropped(db):
    broken = ("SELECT T1.Name FROM employee AS T1 JOIN hiring AS T2 ON T1.Employee_ID = T2.Employee_ID "
              "WHERE T1.Age > 28")
    question = "Which employees are older than 28?"
    assert sorted(db.run(broken).rows) == [("Ann",), ("Bob",), ("Di",)]  # hiring only filters and repeats
    sql, notes = fix_joins(db, broken, question, drop_unneeded=True)
    assert any("dropped JOIN hiring" in n for n in notes) and "hiring" not in sql
    assert sorted(db.run(sql).rows) == sorted(db.run("SELECT Name FROM employee WHERE Age > 28").rows)
    chinese = "年龄大于28岁的员工有哪些？"
    assert fix_joins(db, broken, chinese, drop_unneeded=question_terms)[0] == sql  # the same in Chinese,
    assert fix_joins(db, broken, chinese, drop_unneeded=True) == (broken, [])  # read by the glossary only
    assert fix_joins(db, broken, question) == (broken, [])  # off by default


def test_the_tool_drops_the_join_only_when_asked(db):
    reply = ("```sql\nSELECT T1.Name FROM employee AS T1 JOIN hiring AS T2 ON T1.Employee_ID = T2.Employee_ID "
             "WHERE T1.Age > 45\n```")
    question = "Which employees are older than 45?"
    on = TextToSQL(db, ScriptedChatModel(responses=[reply]), max_retries=0, examples=0, shape_select=0,
                   drop_joins=True).ask(question)
    assert on.rows == [("Di",)] and "hiring" not in on.sql
    assert any("dropped JOIN hiring" in r for r in on.attempts[-1]["repairs"])
    off = TextToSQL(db, ScriptedChatModel(responses=[reply]), max_retries=0, examples=0, shape_select=0).ask(question)
    assert "hiring" in off.sql


def test_the_first_table_of_the_from_clause_is_dropped_when_nothing_uses_it(db):
    broken = ("SELECT T2.Name FROM hiring AS T1 JOIN employee AS T2 ON T1.Employee_ID = T2.Employee_ID "
              "WHERE T2.Age < 40")
    sql, notes = fix_joins(db, broken, "Name the employees younger than 40.", drop_unneeded=True)
    assert notes and db.run(sql).rows == [("Ann",), ("Cy",)]


@pytest.mark.parametrize("sql, question", [
    # the question names the joined table: the join is the filter it asks for
    ("SELECT T1.Name FROM employee AS T1 JOIN hiring AS T2 ON T1.Employee_ID = T2.Employee_ID",
     "Which employees have a hiring record?"),
    ("SELECT T1.Name FROM employee AS T1 JOIN award AS T2 ON T1.Employee_ID = T2.Employee_ID",
     "哪些员工获得过奖项？"),  # 奖项 "award"
    # a count over the joined rows counts what the join repeats
    ("SELECT T1.Name, COUNT(*) FROM employee AS T1 JOIN hiring AS T2 ON T1.Employee_ID = T2.Employee_ID "
     "GROUP BY T1.Name", "How many places did each employee work?"),
    ("SELECT T1.Name FROM employee AS T1 JOIN hiring AS T2 ON T1.Employee_ID = T2.Employee_ID "
     "GROUP BY T1.Name ORDER BY COUNT(*) DESC LIMIT 1", "Who worked the most?"),
    # a column of the joined table is used, or may be (unqualified, or *)
    ("SELECT T1.Name FROM employee AS T1 JOIN hiring AS T2 ON T1.Employee_ID = T2.Employee_ID "
     "WHERE T2.Start_from > '2011'", "Who started after 2011?"),
    ("SELECT T1.Name FROM employee AS T1 JOIN hiring AS T2 ON T1.Employee_ID = T2.Employee_ID "
     "WHERE Start_from > '2011'", "Who started after 2011?"),
    ("SELECT * FROM employee AS T1 JOIN hiring AS T2 ON T1.Employee_ID = T2.Employee_ID", "Everyone who started"),
    # an outer join keeps every row: not this rule's business
    ("SELECT T1.Name FROM employee AS T1 LEFT JOIN hiring AS T2 ON T1.Employee_ID = T2.Employee_ID",
     "List the employees."),
])
def test_joins_that_the_question_or_the_query_needs_are_kept(db, sql, question):
    assert fix_joins(db, sql, question, drop_unneeded=question_terms) == (sql, [])
