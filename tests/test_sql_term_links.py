"""A Chinese question's words linked to the tables and columns they name, by their dictionary readings."""

import pytest

from queryweave.testing import ScriptedChatModel
from queryweave.tools.sql.schema_select import name_pieces
from queryweave.tools.sql.term_links import term_links
from queryweave.tools.sql.text_to_sql import TextToSQL
from queryweave.tools.understanding.glossary import word_senses

SCHEMA = """
    CREATE TABLE country (Code TEXT PRIMARY KEY, Name TEXT, Region TEXT, SurfaceArea REAL, Population INTEGER);
    CREATE TABLE singer (Singer_ID INTEGER PRIMARY KEY, Name TEXT, Song_Name TEXT, Song_release_year TEXT,
                         Age INTEGER);
    CREATE TABLE stadium (Stadium_ID INTEGER PRIMARY KEY, Name TEXT, Capacity INTEGER, Average INTEGER);
    CREATE TABLE teacher (Teacher_ID INTEGER PRIMARY KEY, Name TEXT, Age INTEGER);
    CREATE TABLE course_arrange (Course_ID INTEGER PRIMARY KEY,
                                 Teacher_ID INTEGER REFERENCES teacher(Teacher_ID), Grade INTEGER);
    INSERT INTO country VALUES ('ABW', 'Aruba', 'Caribbean', 193.0, 103000),
                               ('RUS', 'Russian Federation', 'Eastern Europe', 17075400.0, 146934000);
    INSERT INTO singer VALUES (1, 'Joe Sharp', 'You', '1992', 52);
"""
AREA_ZH = "面积最大的国家是哪个？"  # which country has the largest area
GOLD = "SELECT Name FROM country ORDER BY SurfaceArea DESC LIMIT 1"


@pytest.fixture()
def db(sql_db_from):
    return sql_db_from(SCHEMA, "mixed.sqlite")


def links(db, question, tables=None, **kw):
    return dict(term_links(db, question, tables or list(db.tables()), word_senses, **kw))


def test_identifiers_split_into_stemmed_pieces():
    assert name_pieces("SurfaceArea") == ["surfac", "area"]
    assert name_pieces("Song_release_year") == ["song", "releas", "year"]


def test_a_word_names_the_column_whose_last_piece_its_reading_is(db):
    found = links(db, AREA_ZH)
    assert found["面积"] == ["country.SurfaceArea"]  # "area", not Region
    assert found["国家"] == ["country"]
    assert links(db, "人口超过一亿的国家有哪些？")["人口"] == ["country.Population"]


def test_a_word_naming_a_table_does_not_name_its_key_elsewhere(db):
    found = links(db, "每个老师的年龄是多少？")
    assert found["老师"] == ["teacher"]  # not course_arrange.Teacher_ID
    assert found["年龄"] == ["teacher.Age"]  # the table named before it, not singer.Age


def test_words_that_ask_for_an_operation_name_no_column(db):
    found = links(db, "体育场的平均容量是多少？")
    assert found["容量"] == ["stadium.Capacity"]
    assert "平均" not in found and "多少" not in found  # not stadium.Average, not a count column


def test_two_words_together_name_one_column(db):
    found = links(db, "显示最年轻歌手的歌曲的名字和发行年份。")
    assert found["歌手"] == ["singer"]
    assert found["歌曲的名字"] == ["singer.Song_Name"]  # joined by 的
    assert found["发行年份"] == ["singer.Song_release_year"]  # a verb qualifying the next word


def test_a_word_naming_too_many_names_is_left_out(db):
    tables = ["country", "stadium", "teacher"]
    assert "名字" in links(db, "列出所有名字。", tables, max_names=3)
    assert "名字" not in links(db, "列出所有名字。", tables, max_names=2)


def test_english_and_empty_questions_link_nothing(db):
    assert links(db, "Which country has the largest surface area?") == {}
    assert links(db, "") == {}


def test_the_prompt_lists_the_links_only_with_the_switch_on_and_for_chinese(db):
    shown, _ = TextToSQL(db, None, term_senses=word_senses).messages(AREA_ZH, "zh")
    assert "面积 → country.SurfaceArea" in shown[0].content
    default, _ = TextToSQL(db, None).messages(AREA_ZH, "zh")  # off by default
    assert "→" not in default[0].content
    english, _ = TextToSQL(db, None, term_senses=word_senses).messages("Which country is the largest?", "en")
    assert "→" not in english[0].content


def _link_reader(messages):
    """A model that can only use what the prompt says: the area column when a link names it."""
    if "→ country.SurfaceArea" in messages[0].content:
        return f"```sql\n{GOLD}\n```"
    return "```sql\nSELECT Name FROM country ORDER BY Region LIMIT 1\n```"


def test_eval_sql_cli_links_words_with_the_switch_on_only(tmp_path, monkeypatch, capsys):
    from queryweave.cli import structured
    from tests.conftest import eval_sql_accuracy, spider_folder

    folder = spider_folder(tmp_path, "world", SCHEMA, {
        "question_en": "Which country has the largest surface area?", "question_zh": AREA_ZH, "gold_sql": GOLD})
    monkeypatch.setattr(structured, "_llm", lambda args: ScriptedChatModel(responses=[_link_reader] * 12))
    assert eval_sql_accuracy(folder, capsys, "--languages", "zh", "--term-links") == 1.0
    assert eval_sql_accuracy(folder, capsys, "--languages", "zh") == 0.0
