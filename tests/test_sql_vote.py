"""Text-to-SQL self-consistency: sampled queries vote by their results on a real SQLite file."""

import pytest
from conftest import sql_reply

from queryweave.testing import ScriptedChatModel
from queryweave.tools.common.vote import majority, result_key
from queryweave.tools.sql.text_to_sql import TextToSQL


@pytest.fixture()
def db(singers_sql):
    return singers_sql


def test_result_key_ignores_row_order_and_majority_prefers_rows():
    assert result_key([(2, "b"), (1, "a")]) == result_key([(1, "a"), (2, "b")])
    assert result_key([(1,), (1,)]) != result_key([(1,)])  # duplicates count
    assert majority([(0, [(1,)]), (1, [(2,)]), (2, [(2,)])]) == (1, 2)
    assert majority([(0, [(1,)]), (1, [(2,)])]) == (0, 1)  # a tie goes to the first query
    assert majority([(0, []), (1, []), (2, [(3,)])]) == (2, 1)  # empty results vote only alone
    assert majority([(0, []), (1, [])]) == (0, 2) and majority([]) == (-1, 0)


def test_the_result_most_samples_agree_on_wins(db):
    wrong = "SELECT name FROM singer WHERE age > 40"
    right = "SELECT name FROM singer WHERE country = 'France'"
    same_rows = "SELECT name FROM singer WHERE country IN ('France')"
    llm = ScriptedChatModel(responses=[sql_reply(wrong), sql_reply(right), "DROP TABLE singer", sql_reply(same_rows)])
    ans = TextToSQL(db, llm, samples=4).ask("Which singers are from France?")
    assert sorted(ans.rows) == [("Justin Brown",), ("Rose White",)] and ans.sql == right
    assert ans.votes == {"samples": 4, "ran": 3, "agree": 2}  # the DROP was blocked and did not vote
    assert ans.attempts[-1]["vote"] is True and len(llm.calls) == 4
    assert db.run("SELECT count(*) FROM singer").rows == [(4,)]


def test_one_sample_is_the_plain_loop_and_a_failing_endpoint_keeps_the_first_answer(db):
    first = "SELECT name FROM singer WHERE age < 30"
    llm = ScriptedChatModel(responses=[sql_reply(first)])
    ans = TextToSQL(db, llm).ask("Who is younger than 30?")
    assert ans.rows == [("Justin Brown",)] and ans.votes == {} and len(llm.calls) == 1
    llm = ScriptedChatModel(responses=[sql_reply(first), RuntimeError("endpoint down")])
    ans = TextToSQL(db, llm, samples=3).ask("Who is younger than 30?")
    assert ans.rows == [("Justin Brown",)] and ans.error is None
    assert ans.votes == {"samples": 3, "ran": 1, "agree": 1}


def test_a_seed_makes_the_samples_repeatable_and_each_sample_of_a_question_distinct(db):
    """Against an OpenAI-compatible endpoint: the sampled calls carry seeds base, base+1, … per question
    (the greedy call none); without a seed none is sent (the endpoint's random state decides)."""
    from fake_openai import fake_openai
    from langchain_openai import ChatOpenAI

    with fake_openai(text="```sql\nSELECT name FROM singer WHERE country = 'France'\n```") as fake:
        llm = ChatOpenAI(base_url=fake.url, api_key="x", model="fake", temperature=0)
        tool = TextToSQL(db, llm, samples=3, max_retries=0, shape_select=0, seed=11)
        for _ in range(2):
            ans = tool.ask("Which singers are from France?")
            assert ans.votes == {"samples": 3, "ran": 3, "agree": 3}
        seeded = [(b.get("seed"), b.get("temperature")) for b in fake.bodies]
        fake.bodies.clear()
        TextToSQL(db, llm, samples=3, max_retries=0, shape_select=0).ask("Which singers are from France?")
        unseeded = [b.get("seed") for b in fake.bodies]
    assert seeded == [(None, 0.0), (11, 0.7), (12, 0.7)] * 2
    assert unseeded == [None, None, None]
