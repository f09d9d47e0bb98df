"""A Chinese question's tables are chosen by the English readings of its words, not by its numbers."""

import pytest

from queryweave.testing import ScriptedChatModel
from queryweave.tools.sql.schema_select import own_words, question_words, select_tables
from queryweave.tools.sql.text_to_sql import TextToSQL
from queryweave.tools.understanding.glossary import question_terms

SCHEMA = """
    CREATE TABLE Addresses (address_id INTEGER PRIMARY KEY, line_1 TEXT, line_2 TEXT, city TEXT);
    CREATE TABLE Students (student_id INTEGER PRIMARY KEY, address_id INTEGER REFERENCES Addresses(address_id),
                           first_name TEXT);
    CREATE TABLE Departments (department_id INTEGER PRIMARY KEY, department_name TEXT);
    CREATE TABLE Degree_Programs (degree_program_id INTEGER PRIMARY KEY,
                                  department_id INTEGER REFERENCES Departments(department_id), degree_summary TEXT);
    CREATE TABLE Courses (course_id INTEGER PRIMARY KEY, course_name TEXT);
    CREATE TABLE Sections (section_id INTEGER PRIMARY KEY, course_id INTEGER REFERENCES Courses(course_id),
                           section_name TEXT);
    CREATE TABLE Semesters (semester_id INTEGER PRIMARY KEY, semester_name TEXT);
    INSERT INTO Addresses VALUES (1, '2294 Grant Square', 'Apt. 370', 'Port Chelsea');
    INSERT INTO Students VALUES (1, 1, 'Timmothy');
    INSERT INTO Courses VALUES (1, 'ds'), (2, 'math'), (3, 'os');
    INSERT INTO Sections VALUES (1, 1, 'a'), (2, 1, 'b'), (3, 1, 'c'), (4, 2, 'd');
"""
ZH = "最多有2个章节的课程的名称和ID是什么？"  # names and ids of the courses with at most 2 sections
EN = "What are the names and id of courses having at most 2 sections?"
GOLD = "SELECT T1.course_name, T1.course_id FROM Courses AS T1 JOIN Sections AS T2 ON T1.course_id = T2.course_id " \
       "GROUP BY T1.course_id HAVING count(*) <= 2"


@pytest.fixture()
def db(sql_db_from):
    return sql_db_from(SCHEMA, "school.sqlite")


def test_the_readings_pick_the_tables_a_chinese_question_names(db):
    assert {"cours", "section"} <= question_words(ZH, question_terms)
    picked = select_tables(db, ZH, max_tables=3, reader=question_terms)
    assert {"Courses", "Sections"} <= set(picked)
    assert "Addresses" not in picked and "Semesters" not in picked


def test_a_bare_number_names_no_table(db):
    # without a reader the "2" of the question matches the column line_2: Addresses alone (and its neighbour)
    assert set(select_tables(db, ZH, max_tables=3)) == {"Addresses", "Students"}
    # the question's own words less numbers match nothing, so the whole schema is shown
    assert len(select_tables(db, ZH, max_tables=3, reader=own_words)) == 7
    assert "2" not in question_words(ZH, own_words)


def test_english_questions_are_read_as_before(db):
    assert select_tables(db, EN, max_tables=3, reader=question_terms) == select_tables(db, EN, max_tables=3)
    assert question_words(EN, question_terms) == question_words(EN)


def test_the_prompt_shows_the_linked_tables_when_switched_on(db):
    shown, _ = TextToSQL(db, None, max_tables=3, cross_lingual_tables=question_terms).messages(ZH, "zh")
    assert "Sections(" in shown[0].content and "Addresses(" not in shown[0].content
    default, _ = TextToSQL(db, None, max_tables=3).messages(ZH, "zh")  # off by default
    assert "Sections(" not in default[0].content and "Addresses(" in default[0].content
    whole, _ = TextToSQL(db, None, max_tables=3, cross_lingual_tables=own_words).messages(ZH, "zh")
    assert all(f"{t}(" in whole[0].content for t in ("Addresses", "Sections", "Semesters"))


def _schema_reader(messages):
    """A model that can only use what the prompt shows: the right query when Sections is listed."""
    if "Sections(" in messages[0].content:
        return f"```sql\n{GOLD}\n```"
    return "```sql\nSELECT line_1, address_id FROM Addresses\n```"


def test_eval_sql_cli_links_chinese_tables_with_the_switch_on_only(tmp_path, monkeypatch, capsys):
    from queryweave.cli import structured
    from tests.conftest import eval_sql_accuracy, spider_folder

    # eight tables, more than the five a prompt shows
    script = SCHEMA + "CREATE TABLE Transcripts (transcript_id INTEGER PRIMARY KEY, transcript_date TEXT);"
    folder = spider_folder(tmp_path, "school", script, {"question_en": EN, "question_zh": ZH, "gold_sql": GOLD})
    monkeypatch.setattr(structured, "_llm", lambda args: ScriptedChatModel(responses=[_schema_reader] * 12))
    assert eval_sql_accuracy(folder, capsys, "--languages", "zh", "--cross-lingual-tables") == 1.0
    assert eval_sql_accuracy(folder, capsys, "--languages", "zh") == 0.0
