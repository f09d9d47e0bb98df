"""Schema-driven SQL repairs on a real SQLite file: wrong-table columns, translated literals."""

import sqlite3

import pytest

from queryweave.testing import ScriptedChatModel
from queryweave.tools.retrieval.self_query_match import named_value
from queryweave.tools.sql.database import SqlDatabase
from queryweave.tools.sql.schema_fix import fix_columns
from queryweave.tools.sql.text_to_sql import TextToSQL
from queryweave.tools.sql.value_map import closest_value, map_translated, proposal_of


@pytest.fixture()
def db(sql_db_from):
    return sql_db_from("""
        CREATE TABLE car_names (MakeId INTEGER PRIMARY KEY, Model TEXT, Make TEXT);
        CREATE TABLE cars_data (Id INTEGER PRIMARY KEY REFERENCES car_names(MakeId), mpg REAL, weight INTEGER);
        CREATE TABLE visitor (ID INTEGER PRIMARY KEY, Name TEXT, Age INTEGER);
        CREATE TABLE visit (visitor_ID INTEGER REFERENCES visitor(ID), museum TEXT, pet_age INTEGER);
        CREATE TABLE documents (document_id INTEGER PRIMARY KEY, document_name TEXT);
        INSERT INTO car_names VALUES (1, 'amc', 'amc hornet'), (2, 'ford', 'ford torino'), (3, 'ford', 'ford pinto');
        INSERT INTO cars_data VALUES (1, 18.0, 3504), (2, 25.0, 2100), (3, 31.0, 1900);
        INSERT INTO visitor VALUES (1, 'Ann', 25), (2, 'Bob', 40), (3, 'Cy', 22);
        INSERT INTO visit VALUES (1, 'Louvre', 1), (1, 'Prado', 2), (2, 'Louvre', 3);
        INSERT INTO documents VALUES (1, 'Customer reviews'), (2, 'Summer Show'), (3, 'Welcome to NY');
        """, "cars.sqlite")


def test_column_of_a_neighbour_is_joined_on_the_key(db):
    sql, notes = fix_columns(db, "SELECT Model FROM cars_data ORDER BY mpg DESC LIMIT 1")
    assert notes == ["JOIN car_names for model"]
    assert db.run(sql).rows == [("ford",)]


def test_table_is_replaced_when_one_table_has_every_column_and_the_question_names_it(db):
    sql, notes = fix_columns(db, "SELECT count(*) FROM visit WHERE Age < 30", "How many visitors are younger than 30?")
    assert notes == ["FROM visit -> FROM visitor"]
    assert db.run(sql).rows == [(2,)]


def test_without_a_question_the_join_keeps_the_models_table(db):
    sql, notes = fix_columns(db, "SELECT count(*) FROM visit WHERE Age < 30")
    assert notes == ["JOIN visitor for age"]
    assert db.run(sql).rows == [(2,)]  # visits by visitors under 30


def test_qualified_column_moves_to_the_table_of_the_scope_that_has_it(db):
    sql, notes = fix_columns(db, "SELECT T2.Name FROM visit AS T1 JOIN visitor AS T2 ON T1.visitor_ID = T2.ID "
                                 "WHERE T1.Age > 30")
    assert notes == ["T1.Age -> t2.Age"]
    assert "T2.Age > 30" in sql and db.run(sql).rows == [("Bob",)]


def test_an_alias_no_from_defines_joins_the_table_that_has_the_column(db):
    # T2 is named but never joined: the owner of `museum` is joined on the key, the column qualified by it
    sql, notes = fix_columns(db, "SELECT T1.Name FROM visitor AS T1 WHERE T2.museum = 'Prado'")
    assert notes == ["JOIN visit for museum"]
    assert db.run(sql).rows == [("Ann",)]
    # an outer query's alias inside a subquery is a correlated reference, not an unknown one
    correlated = "SELECT Name FROM visitor AS v WHERE 1 < (SELECT count(*) FROM visit WHERE visitor_ID = v.ID)"
    assert fix_columns(db, correlated) == (correlated, [])


def test_of_several_tables_with_every_column_the_one_a_column_is_named_after_is_taken(sql_db_from):
    # no declared keys (as in GeoQuery): lake and state both hold area and state_name
    geo = sql_db_from("""
        CREATE TABLE border_info (state_name TEXT, border TEXT);
        CREATE TABLE lake (lake_name TEXT, area REAL, state_name TEXT);
        CREATE TABLE state (state_name TEXT, area REAL, population INTEGER);
        CREATE TABLE city (city_name TEXT, population INTEGER, state_name TEXT);
        CREATE TABLE river (river_name TEXT, length INTEGER);
        INSERT INTO border_info VALUES ('ohio', 'indiana'), ('ohio', 'michigan');
        INSERT INTO lake VALUES ('erie', 25700, 'ohio'), ('grand', 54, 'ohio');
        INSERT INTO river VALUES ('ohio', 1579);
        INSERT INTO state VALUES ('ohio', 106765, 10798000), ('indiana', 94321, 5490000);
        INSERT INTO city VALUES ('columbus', 564871, 'ohio');
        """, "geo.sqlite")
    sql, notes = fix_columns(geo, "SELECT area FROM border_info WHERE state_name = 'ohio'")
    assert notes == ["FROM border_info -> FROM state"]
    assert geo.run(sql).rows == [(106765,)]
    sql, notes = fix_columns(geo, "SELECT population FROM border_info WHERE state_name = 'indiana'")
    assert notes == ["FROM border_info -> FROM state"] and geo.run(sql).rows == [(5490000,)]
    # no column names either table (lake and state both hold area): nothing is chosen
    unnamed = "SELECT max(area) FROM river"
    assert fix_columns(geo, unnamed) == (unnamed, [])


def test_near_miss_column_name_is_renamed(db):
    sql, notes = fix_columns(db, "SELECT museum FROM visit ORDER BY PetAge DESC LIMIT 1")
    assert notes == ["PetAge -> pet_age"]
    assert db.run(sql).rows == [("Louvre",)]


def test_queries_that_run_and_correlated_references_are_left_alone(db):
    good = "SELECT Name AS n, Age FROM visitor WHERE ID IN (SELECT visitor_ID FROM visit) ORDER BY n"
    assert fix_columns(db, good) == (good, [])
    correlated = ("SELECT Name FROM visitor AS v WHERE EXISTS "
                  "(SELECT 1 FROM visit WHERE visit.visitor_ID = v.ID AND Age > 30)")
    assert fix_columns(db, correlated) == (correlated, [])
    assert fix_columns(db, "not sql at all (") == ("not sql at all (", [])


def test_closest_value_accepts_only_a_real_value():
    values = ["Customer reviews", "Summer Show", "Welcome to NY"]
    assert closest_value("customer reviews", values) == "Customer reviews"
    assert closest_value("'Customer review'", values) == "Customer reviews"
    assert closest_value("Winter Party", values) is None
    assert closest_value("", values) is None


def test_translated_literal_is_mapped_to_the_database_value(db):
    asked = []

    def translate(value, table, column, examples):
        asked.append((value, table, column))
        return {"客户评论": "Customer Review", "冬季派对": "Winter Party"}[value]

    sql, notes = map_translated(db, "SELECT document_id FROM documents WHERE document_name = '客户评论'", translate)
    assert sql.endswith("= 'Customer reviews'") and notes == ["'客户评论' -> 'Customer reviews'"]
    assert asked == [("客户评论", "documents", "document_name")]
    unchanged = "SELECT document_id FROM documents WHERE document_name = '冬季派对'"
    assert map_translated(db, unchanged, translate) == (unchanged, [])
    ascii_sql = "SELECT document_id FROM documents WHERE document_name = 'Nope'"
    assert map_translated(db, ascii_sql, translate) == (ascii_sql, [])
    assert len(asked) == 2  # ASCII literals are never sent for translation


def test_a_chinese_like_pattern_is_translated_only_when_the_translation_matches_rows(db):
    asked = []

    def translate(value, table, column, examples):
        asked.append(value)
        return {"评论": "Review", "夏季": "Summer", "冬季": "Winter", "纽": "N"}[value]

    sql, notes = map_translated(db, "SELECT document_id FROM documents WHERE document_name LIKE '%评论%'", translate)
    assert sql.endswith("LIKE '%Review%'") and notes == ["'%评论%' -> '%Review%'"]
    assert db.run(sql).rows == [(1,)]  # LIKE ignores case: 'Customer reviews'
    sql, _ = map_translated(db, "SELECT document_id FROM documents WHERE document_name LIKE '夏季%'", translate)
    assert sql.endswith("LIKE 'Summer%'") and db.run(sql).rows == [(2,)]  # the wildcards as they were
    for kept in ("'%冬季%'", "'%纽%'"):  # matches nothing; too short to say anything
        unchanged = f"SELECT document_id FROM documents WHERE document_name LIKE {kept}"
        assert map_translated(db, unchanged, translate) == (unchanged, [])
    english = "SELECT document_id FROM documents WHERE document_name LIKE '%Show%'"
    assert map_translated(db, english, translate) == (english, [])
    assert asked == ["评论", "夏季", "冬季", "纽"]  # English patterns are never sent


def test_pipeline_maps_a_chinese_like_pattern(db):
    llm = ScriptedChatModel(responses=[
        "```sql\nSELECT document_id FROM documents WHERE document_name LIKE '%评论%'\n```", "reviews"])
    answer = TextToSQL(db, llm, bilingual=False).ask("名字里有“评论”的文档的编号是什么？", lang="zh")
    assert answer.ok and answer.rows == [(1,)] and answer.attempts[0]["repairs"] == ["'%评论%' -> '%reviews%'"]


def test_a_translation_given_as_a_sentence_yields_its_quoted_value(db):
    assert proposal_of("The value '西' in the database column Addresses.city would be stored as 'West'.") == "West"
    assert proposal_of("Mary's Diner") == "Mary's Diner" and proposal_of('"Hidden"') == '"Hidden"'
    llm = ScriptedChatModel(responses=[
        "```sql\nSELECT document_id FROM documents WHERE document_name = '夏季展览'\n```",
        "The value '夏季展览' of documents.document_name would be stored as \"Summer Show\"."])
    answer = TextToSQL(db, llm, bilingual=False).ask("“夏季展览”文档的编号是什么？", lang="zh")
    assert answer.ok and answer.rows == [(2,)]


def test_pipeline_translates_a_chinese_literal_with_one_short_model_call(db):
    llm = ScriptedChatModel(responses=[
        "```sql\nSELECT document_id FROM documents WHERE document_name = '客户评论'\n```",
        "Customer Reviews",
    ])
    answer = TextToSQL(db, llm, translate_questions=False, bilingual=False).ask("名为“客户评论”的文档的编号是多少？", lang="zh")
    assert answer.ok and answer.rows == [(1,)]
    assert answer.attempts[0]["repairs"] == ["'客户评论' -> 'Customer reviews'"]
    assert len(llm.calls) == 2 and "document_name" in llm.calls[1][0].content
    assert "Summer Show" not in llm.calls[1][0].content  # no example values to echo


def test_a_literal_the_dictionary_reads_is_mapped_without_a_model_call(db):
    asked = []

    def translate(value, table, column, examples):
        asked.append(value)
        return None

    sql, notes = map_translated(db, "SELECT document_id FROM documents WHERE document_name = '客户评论'", translate,
                                named=named_value)
    assert sql.endswith("= 'Customer reviews'") and notes == ["'客户评论' -> 'Customer reviews'"] and asked == []
    # a localised name that means another thing (a Chinese city for 'Aberdeen') is left to the model, then as is
    other = "SELECT document_id FROM documents WHERE document_name = '哈尔滨'"
    assert map_translated(db, other, translate, named=named_value) == (other, []) and asked == ["哈尔滨"]
    assert map_translated(db, other, None, named=named_value) == (other, [])  # no model at all: unchanged


def test_pipeline_maps_a_dictionary_literal_with_no_second_model_call(db):
    llm = ScriptedChatModel(responses=["```sql\nSELECT document_id FROM documents WHERE document_name = '客户评论'\n```"])
    answer = TextToSQL(db, llm, value_names=named_value, bilingual=False).ask("名为“客户评论”的文档的编号是多少？", lang="zh")
    assert answer.ok and answer.rows == [(1,)] and len(llm.calls) == 1
    assert answer.attempts[0]["repairs"] == ["'客户评论' -> 'Customer reviews'"]


def test_pipeline_repairs_a_wrong_table_column_without_a_retry(db):
    llm = ScriptedChatModel(responses=["```sql\nSELECT Model FROM cars_data ORDER BY mpg DESC LIMIT 1\n```"])
    answer = TextToSQL(db, llm, fix_schema=True).ask("Which model has the best mpg?")
    assert answer.ok and answer.rows == [("ford",)] and len(llm.calls) == 1
    off = TextToSQL(db, ScriptedChatModel(responses=["SELECT Model FROM cars_data"]), fix_schema=False, max_retries=0)
    assert "no such column" in (off.ask("Which models?").error or "")


def test_column_behind_a_bridge_table_joins_both(tmp_path):
    path = tmp_path / "pets.sqlite"
    con = sqlite3.connect(path)
    con.executescript(
        """
        CREATE TABLE Student (StuID INTEGER PRIMARY KEY, Fname TEXT);
        CREATE TABLE Pets (PetID INTEGER PRIMARY KEY, PetType TEXT);
        CREATE TABLE Has_Pet (StuID INTEGER REFERENCES Student(StuID), PetID INTEGER REFERENCES Pets(PetID));
        INSERT INTO Student VALUES (1, 'Linda'), (2, 'Tracy');
        INSERT INTO Pets VALUES (10, 'cat'), (11, 'dog'), (12, 'dog');
        INSERT INTO Has_Pet VALUES (1, 10), (1, 11), (2, 12);
        """
    )
    con.commit()
    con.close()
    db = SqlDatabase(str(path))
    sql, notes = fix_columns(db, "SELECT Fname FROM Student WHERE PetType = 'cat' "
                                 "INTERSECT SELECT Fname FROM Student WHERE PetType = 'dog'")
    assert notes == ["JOIN Has_Pet -> Pets for pettype"] * 2
    assert db.run(sql).rows == [("Linda",)]
    sql, notes = fix_columns(db, "SELECT T1.Fname FROM Has_Pet AS T1 JOIN Pets AS T2 ON T1.PetID = T2.PetID "
                                 "WHERE T2.PetType = 'dog' ORDER BY T1.Fname")
    assert notes == ["JOIN Student for fname"]
    assert db.run(sql).rows == [("Linda",), ("Tracy",)]
    db.close()


def test_chinese_question_is_translated_once_and_answered_in_english(db):
    llm = ScriptedChatModel(responses=[
        "How many visitors are younger than 30?",
        "```sql\nSELECT count(*) FROM visit WHERE Age < 30\n```",
    ])
    answer = TextToSQL(db, llm, translate_questions=True).ask("30岁以下的游客有多少？", lang="zh")
    assert answer.translation == "How many visitors are younger than 30?"
    assert "30岁以下的游客有多少" in llm.calls[0][0].content
    assert llm.calls[1][-1].content == "Question: How many visitors are younger than 30?"
    # the English question also decides between joining and replacing the table
    assert answer.ok and answer.rows == [(2,)] and answer.attempts[0]["repairs"] == ["FROM visit -> FROM visitor"]
    # an unusable translation (still Chinese) falls back to the question as asked
    llm = ScriptedChatModel(responses=["游客", "```sql\nSELECT count(*) FROM visitor WHERE Age < 30\n```"])
    answer = TextToSQL(db, llm, translate_questions=True).ask("30岁以下的游客有多少？", lang="zh")
    assert answer.translation == "" and answer.rows == [(2,)] and "问题：" in llm.calls[1][-1].content


def test_question_translation_is_off_by_default(db):
    # by default the translation is shown beside the Chinese question, which stays the question asked
    llm = ScriptedChatModel(responses=["How many visitors are under 30?",
                                       "```sql\nSELECT count(*) FROM visitor WHERE Age < 30\n```"])
    answer = TextToSQL(db, llm).ask("30岁以下的游客有多少？", lang="zh")
    assert answer.rows == [(2,)] and len(llm.calls) == 2
    assert llm.calls[1][-1].content == "问题：30岁以下的游客有多少？\n（英文：How many visitors are under 30?）"
    llm = ScriptedChatModel(responses=["```sql\nSELECT count(*) FROM visitor WHERE Age < 30\n```"])
    answer = TextToSQL(db, llm, bilingual=False).ask("30岁以下的游客有多少？", lang="zh")
    assert answer.translation == "" and answer.rows == [(2,)] and len(llm.calls) == 1


def test_a_column_named_like_a_foreign_key_becomes_the_key_it_refers_to(db):
    sql, notes = fix_columns(db, "SELECT Name FROM visitor WHERE visitor_ID NOT IN "
                                 "(SELECT visitor_ID FROM visit WHERE museum = 'Prado') ORDER BY Name")
    assert notes == ["visitor_ID -> ID (the key visitor_id refers to)"]
    assert db.run(sql).rows == [("Bob",), ("Cy",)]  # a join of visit instead would lose Cy, who made no visit
    sql, notes = fix_columns(db, "SELECT Make FROM car_names WHERE Id = 2")  # cars_data.Id -> car_names.MakeId
    assert notes == ["Id -> MakeId (the key id refers to)"] and db.run(sql).rows == [("ford torino",)]
