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
