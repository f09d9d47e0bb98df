"""The result shape a question asks for (rules, en + zh), and how Text-to-SQL uses it on a real SQLite
file: shape-checked repairs and execution-guided selection among sampled queries."""

import pytest
from conftest import sql_reply

from queryweave.testing import ScriptedChatModel
from queryweave.tools.sql.shape import Shape, question_shape
from queryweave.tools.sql.text_to_sql import TextToSQL


@pytest.fixture()
def db(singers_sql):
    return singers_sql


@pytest.mark.parametrize("question,kind", [
    ("How many singers do we have?", "count"),
    ("What is the total number of concerts?", "count"),
    ("Count the number of employees.", "count"),
    ("How many singers are there for each country?", "grouped"),
    ("Show the name and the number of stadiums per each city.", "grouped"),
    ("What is the maximum age for all the different countries?", "grouped"),
    ("What is the average age of all singers?", "one"),
    ("Which country has the most singers?", "one"),
    ("What is the name of the youngest singer?", "one"),
    ("What are the names of the 3 oldest singers?", "top"),
    ("List the top five stadiums by capacity.", "top"),
    ("List the names of singers whose age is above the average.", "rows"),
    ("What are the names of singers who performed in the most recent concert?", "rows"),
    ("Show name, country and age of all singers.", "rows"),
    ("What is the average miles per gallon of the cars?", "one"),  # "per gallon" groups nothing
    ("我们有多少歌手？", "count"),
    ("歌手的总数是多少？", "count"),
    ("每个国家有多少歌手？", "grouped"),
    ("不同国家的歌手的平均年龄是多少？", "grouped"),
    ("按照不同国家显示歌手的平均年龄。", "grouped"),
    ("哪个国家的歌手最多？", "one"),
    ("年龄最大的三位歌手是谁？", "top"),
    ("列出前3个体育场的名称。", "top"),
    ("列出年龄最大的歌手都有哪些？", "rows"),
    ("航班号是多少？", "rows"),  # 是多少 asks "what is", not "how many"
    ("找出重量低于平均重量的汽车的型号。", "rows"),
    # a count word is the answer only when it is what is asked, alone
    ("有多少辆车超过6个汽缸？", "count"),
    ("4缸以上的汽车数量是多少？", "count"),
    ("30岁以下的游客有多少？", "count"),
    ("显示教师姓名和他们教的课程数量。", "rows"),  # a name beside the count: one row per teacher
    ("老师的名字是什么？他们教了多少门课？", "rows"),
    ("查找产品数量超过平均产品数量的商店的名称。", "rows"),  # the count is a condition
])
def test_question_shape_rules(question, kind):
    assert question_shape(question).kind == kind


def test_fits_each_shape():
    assert Shape("count").fits([(4,)]) and not Shape("count").fits([(4,), (2,)])
    assert not Shape("count").fits([("France",)]) and Shape("count").fits([("4",)])
    assert Shape("one").fits([("France",)]) and not Shape("one").fits([(i,) for i in range(10)])
    assert Shape("top", 3).fits([(1,), (2,), (3,)]) and not Shape("top", 3).fits([(i,) for i in range(4)])
    assert Shape("grouped").fits([(1,), (2,)]) and not Shape("grouped").fits([(6,)])
    assert not any(Shape(k, 3).fits([]) for k in ("count", "one", "top", "grouped", "rows"))
    assert "2 rows" in Shape("count").describe([(1,), (2,)]) and "一行" in Shape("one").describe([(1,)] * 5, "zh")
    assert question_shape("How many singers?").limit == 0 and question_shape("the top 10 rows").limit == 10


def test_a_result_without_the_asked_shape_is_fed_back_and_the_fitting_retry_is_taken(db):
    per_row = "SELECT age FROM singer"  # runs, but "how many" wants one number
    count = "SELECT count(*) FROM singer"
    llm = ScriptedChatModel(responses=[sql_reply(per_row), sql_reply(count)])
    ans = TextToSQL(db, llm).ask("How many singers do we have?")  # on by default
    assert ans.rows == [(4,)] and ans.sql == count and ans.shape == "count" and ans.shape_fits is True
    assert "asks for one row with a number" in llm.calls[1][-1].content  # the retry was told why
    assert ans.attempts[0]["shape"].startswith("the result has 4 rows")


def test_without_a_fitting_retry_the_first_query_that_ran_is_kept(db):
    first = "SELECT age FROM singer"
    other = "SELECT name FROM singer"
    llm = ScriptedChatModel(responses=[sql_reply(first), sql_reply(other), sql_reply(other)])
    ans = TextToSQL(db, llm, max_retries=2, shape_select=0).ask("How many singers do we have?")
    assert ans.sql == first and sorted(ans.rows) == [(29,), (32,), (41,), (52,)]
    assert ans.shape_fits is False and len(llm.calls) == 3


def test_shape_checks_off_keep_the_plain_loop(db):
    llm = ScriptedChatModel(responses=[sql_reply("SELECT age FROM singer")])
    ans = TextToSQL(db, llm, shape_repairs=False, shape_select=0).ask("How many singers do we have?")
    assert len(ans.rows) == 4 and ans.shape == "" and ans.shape_fits is None and len(llm.calls) == 1


def test_selection_samples_until_a_result_has_the_shape(db):
    all_rows = "SELECT name, age FROM singer"
    oldest = "SELECT name FROM singer ORDER BY age DESC LIMIT 1"
    llm = ScriptedChatModel(responses=[sql_reply(all_rows), "DROP TABLE singer", sql_reply(oldest), sql_reply(all_rows)])
    ans = TextToSQL(db, llm, max_retries=0, shape_repairs=False, shape_select=3).ask(
        "What is the name of the oldest singer?")
    assert ans.rows == [("Joe Sharp",)] and ans.sql == oldest and ans.shape_fits is True
    assert len(llm.calls) == 3  # sampling stopped at the first fitting result
    assert db.run("SELECT count(*) FROM singer").rows == [(4,)]


def test_voting_counts_only_results_with_the_shape(db):
    rows = "SELECT name FROM singer WHERE age > 20"  # four rows: more than a tie
    one = "SELECT name FROM singer ORDER BY age LIMIT 1"
    llm = ScriptedChatModel(responses=[sql_reply(rows), sql_reply(rows), sql_reply(one)])
    plain = TextToSQL(db, ScriptedChatModel(responses=[sql_reply(rows), sql_reply(rows), sql_reply(one)]), samples=3,
                      shape_repairs=False, shape_select=0)
    assert len(plain.ask("Who is the youngest singer?").rows) == 4  # two agree on the wrong shape
    ans = TextToSQL(db, llm, samples=3, max_retries=0, shape_select=0).ask("Who is the youngest singer?")
    assert ans.rows == [("Justin Brown",)] and ans.votes["ran"] == 3 and ans.attempts[-1]["vote"] is True


def test_eval_sql_cli_passes_the_shape_switches(tmp_path, singers_db, monkeypatch, capsys):
    import json

    from queryweave.cli import structured
    from queryweave.cli.main import main

    (tmp_path / "database" / "music").mkdir(parents=True)
    (tmp_path / "database" / "music" / "music.sqlite").write_bytes(singers_db.read_bytes())
    (tmp_path / "questions.jsonl").write_text(json.dumps(
        {"id": 0, "db_id": "music", "question_en": "How many singers do we have?",
         "gold_sql": "SELECT count(*) FROM singer"}), encoding="utf-8")

    def model():
        return ScriptedChatModel(responses=[sql_reply("SELECT age FROM singer"), sql_reply("SELECT count(*) FROM singer")])

    monkeypatch.setattr(structured, "_llm", lambda args: model())
    items = tmp_path / "items.jsonl"
    assert main(["eval", "sql", str(tmp_path), "--languages", "en", "--json", "--quiet",
                 "--items", str(items)]) == 0  # shape checks are on by default
    assert json.loads(capsys.readouterr().out)["execution_accuracy"] == 1.0
    row = json.loads(items.read_text().splitlines()[0])
    assert row["shape"] == "count" and row["shape_fits"] is True and row["attempts"] == 2
    assert main(["eval", "sql", str(tmp_path), "--languages", "en", "--no-shape-repairs", "--shape-select", "0",
                 "--json", "--quiet"]) == 0
    assert json.loads(capsys.readouterr().out)["execution_accuracy"] == 0.0  # without them: four ages
