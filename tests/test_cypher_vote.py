"""Self-consistency for Text-to-Cypher: sampled queries vote by their results on the real kuzu store."""

import textwrap

import pytest

from queryweave.eval.cypher_folds import cypher_candidates
from queryweave.testing import ScriptedChatModel
from queryweave.tools.cypher.text_to_cypher import TextToCypher

SCRIPT = textwrap.dedent(
    """\
    CREATE (Fly:Book {title:'Flying Home', published:1990})
    CREATE (Sea:Book {title:'Sea Light', published:2004})
    CREATE (Ada:Author {name:'Ada Park', born:1950})
    CREATE (Ben:Author {name:'Ben Ortiz', born:1971})
    CREATE (Ada)-[:WROTE]->(Fly), (Ben)-[:WROTE]->(Sea), (Ada)-[:EDITED]->(Sea);
    """
)
WRONG = "```cypher\nMATCH (a:Author)-[:EDITED]->(b:Book) RETURN a.name\n```"
RIGHT = "```cypher\nMATCH (a:Author)-[:WROTE]->(b:Book) RETURN a.name\n```"
RIGHT_AGAIN = "```cypher\nMATCH (b:Book)<-[:WROTE]-(a:Author) RETURN a.name AS author\n```"  # same rows
BROKEN = "```cypher\nMATCH (a:Author)-[:WROTE]->(b:Book) RETURN a.nam\n```"


@pytest.fixture()
def store(kuzu_from):
    return kuzu_from(SCRIPT)


def ask(store, replies, samples):
    llm = ScriptedChatModel(responses=replies)
    answer = TextToCypher(store, llm, max_retries=0, examples=0, samples=samples).ask("Who wrote a book?")
    return answer, llm


def test_the_result_most_sampled_queries_return_wins(store):
    answer, llm = ask(store, [WRONG, RIGHT, RIGHT_AGAIN], samples=3)
    assert answer.error is None
    assert sorted(r for row in answer.rows for r in row.values()) == ["Ada Park", "Ben Ortiz"]
    assert answer.query == "MATCH (a:Author)-[:WROTE]->(b:Book) RETURN a.name"  # the earliest of the group
    assert answer.votes == {"samples": 3, "ran": 3, "agree": 2}
    assert len(llm.calls) == 3 and [a.get("sampled", False) for a in answer.attempts] == [False, True, True]


def test_a_tie_keeps_the_greedy_query_and_failed_samples_do_not_vote(store):
    answer, _ = ask(store, [WRONG, RIGHT, BROKEN], samples=3)
    assert [r["a.name"] for r in answer.rows] == ["Ada Park"]  # greedy (EDITED) vs one sample: a tie
    assert answer.votes == {"samples": 3, "ran": 2, "agree": 1}
    assert answer.attempts[-1]["error"]  # the broken sample is kept in the record, not in the vote


def test_samples_that_run_rescue_a_greedy_query_that_failed(store):
    answer, _ = ask(store, [BROKEN, RIGHT, RIGHT_AGAIN], samples=3)
    assert answer.error is None and len(answer.rows) == 2 and answer.votes["agree"] == 2


def test_one_sample_asks_the_model_once(store):
    answer, llm = ask(store, [WRONG, RIGHT, RIGHT_AGAIN], samples=1)
    assert len(llm.calls) == 1 and answer.votes == {} and [r["a.name"] for r in answer.rows] == ["Ada Park"]


def test_the_folds_offer_voting_rows_and_the_default_does_not_vote():
    rows = {c.name: c.kwargs() for c in cypher_candidates()}
    assert rows["+examples+vote"]["samples"] == 3 and rows["+examples+vote"]["examples"] == 5
    assert rows["default"]["samples"] == 1 and rows["minimal"]["samples"] == 1


def test_a_seed_gives_each_sample_its_own_repeatable_seed(store):
    from fake_openai import fake_openai
    from langchain_openai import ChatOpenAI

    with fake_openai(text=RIGHT) as fake:
        llm = ChatOpenAI(base_url=fake.url, api_key="x", model="fake", temperature=0)
        tool = TextToCypher(store, llm, max_retries=0, examples=0, samples=3, seed=5)
        answers = [tool.ask("Who wrote a book?") for _ in range(2)]
    assert all(a.votes == {"samples": 3, "ran": 3, "agree": 3} for a in answers)
    assert [b.get("seed") for b in fake.bodies] == [None, 5, 6] * 2
