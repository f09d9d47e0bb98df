"""Schema-derived few-shot examples for Text-to-Cypher: built from the schema only, valid on the store."""

import textwrap

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from queryweave.testing import ScriptedChatModel
from queryweave.tools.cypher.fewshot import schema_examples
from queryweave.tools.cypher.guard import check_cypher
from queryweave.tools.cypher.store import GraphSchema
from queryweave.tools.cypher.text_to_cypher import TextToCypher

SCRIPT = textwrap.dedent(
    """\
    CREATE (Fly:Book {title:'Flying Home', published:1990, blurb:'Wings over the sea'})
    CREATE (Sea:Book {title:'Sea Light', published:2004, blurb:'Quiet tides'})
    CREATE (Ada:Author {name:'Ada Park', born:1950})
    CREATE (Ben:Author {name:'Ben Ortiz', born:1971})
    CREATE (Ada)-[:WROTE]->(Fly), (Ben)-[:WROTE]->(Sea), (Ada)-[:EDITED]->(Sea),
    (Ben)-[:RATED {score:4}]->(Fly), (Ada)-[:RATED {score:2}]->(Sea);
    """
)


@pytest.fixture()
def store(kuzu_from):
    return kuzu_from(SCRIPT)


def test_examples_follow_the_schema_and_run(store):
    pairs = schema_examples(store.schema())
    assert 4 <= len(pairs) <= 5
    queries = [q for _, q in pairs]
    for query in queries:
        assert check_cypher(query).allowed
        store.query(query)  # every example runs on the engine
    # relationship directions are the schema's; a relationship property is read from the relationship
    assert all("(b:Author)" not in q and "-[:WROTE]->(a:Author" not in q for q in queries)
    assert any("r.score" in q and "[r:RATED]" in q for q in queries)
    # only the example whose question asks for a top N orders or limits by a count
    ordered = [(question, q) for question, q in pairs if "ORDER BY" in q]
    assert len(ordered) == 1 and ordered[0][0].startswith("Which 3 ")
    # the filter example returns whole nodes and uses a sample value of the data
    assert any(q.endswith("RETURN n LIMIT 3") and "CONTAINS" in q for q in queries)
    assert any("'Ada Park'" in q or "'Flying Home'" in q for q in queries)
    # rows of the top-N example are the real counts
    top = store.query(ordered[0][1])
    assert top and all(list(row.values())[-1] >= 1 for row in top)


def test_thin_schema_gives_few_or_no_examples():
    assert schema_examples(GraphSchema()) == []
    only_nodes = GraphSchema(nodes={"Thing": {"id": "INT64"}})
    assert schema_examples(only_nodes) == []
    assert len(schema_examples(GraphSchema(nodes={"A": {"name": "STRING"}, "B": {"label": "STRING"}},
                                           patterns=[("A", "LINKS", "B")]), limit=2)) <= 2


def test_prompt_shows_examples_as_earlier_turns(store):
    llm = ScriptedChatModel(responses=["MATCH (b:Book) RETURN b.title"])
    tool = TextToCypher(store, llm)
    answer = tool.ask("Which books are there?")
    assert answer.ok and len(answer.rows) == 2
    sent = llm.calls[0]
    n = len(schema_examples(store.schema()))
    assert len(sent) == 2 + 2 * n and sent[-1].content == "Question: Which books are there?"
    assert isinstance(sent[1], HumanMessage) and isinstance(sent[2], AIMessage) and "```cypher" in sent[2].content
    assert len(TextToCypher(store, llm, examples=0).messages("q")) == 2


def test_sql_between_is_rewritten_before_running(store):
    from queryweave.tools.cypher.text_to_cypher import repair_between

    assert repair_between("MATCH (b:Book) WHERE b.published BETWEEN 1980 AND 2000 RETURN b") == (
        "MATCH (b:Book) WHERE b.published >= 1980 AND b.published <= 2000 RETURN b")
    kept = "MATCH (b:Book) WHERE b.blurb = 'x BETWEEN 1 AND 2' AND b.published NOT BETWEEN 1 AND 2 RETURN b"
    assert repair_between(kept) == kept
    llm = ScriptedChatModel(responses=["MATCH (b:Book) WHERE b.published BETWEEN 2000 AND 2010 RETURN b.title"])
    answer = TextToCypher(store, llm, max_retries=0).ask("Which books came out between 2000 and 2010?")
    assert answer.ok and answer.rows == [{"b.title": "Sea Light"}]


def test_a_relationship_written_against_the_schemas_direction_is_turned_round(store):
    from queryweave.tools.cypher.text_to_cypher import repair_directions

    schema = store.schema()
    wrong = "MATCH (b:Book)<-[r:RATED]-(a:Author) RETURN b.title AS t, r.score AS s ORDER BY s"
    backwards = "MATCH (b:Book)-[r:RATED]->(a:Author) RETURN b.title AS t, r.score AS s ORDER BY s"
    assert repair_directions(wrong, schema) == wrong  # already the schema's direction
    assert store.query(backwards) == []  # runs, matches nothing
    fixed = repair_directions(backwards, schema)
    assert fixed == wrong and store.query(fixed) == store.query(wrong) != []
    later = "MATCH (a:Author) MATCH (b:Book)-[:WROTE]->(a) RETURN b.title"  # a's label from elsewhere
    assert [r["b.title"] for r in store.query(repair_directions(later, schema))] != []
    for unchanged in ("MATCH (b:Book)-[:RATED]-(a:Author) RETURN b",  # no direction
                      "MATCH (b)-[:RATED]->(a) RETURN b",  # labels unknown
                      "MATCH (a:Author {name: '(x:Book)-[:WROTE]->(y:Author)'}) RETURN a"):
        assert repair_directions(unchanged, schema) == unchanged


def test_the_tool_runs_the_turned_round_query(store):
    reply = "```cypher\nMATCH (b:Book)-[:WROTE]->(a:Author) RETURN a.name AS name ORDER BY name\n```"
    answer = TextToCypher(store, ScriptedChatModel(responses=[reply]), max_retries=0, examples=0).ask(
        "Who wrote each book?")
    assert answer.error is None and [r["name"] for r in answer.rows] == ["Ada Park", "Ben Ortiz"]
