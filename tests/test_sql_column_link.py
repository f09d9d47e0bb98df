"""Column linking by names, stored values and meaning, on a real SQLite file with foreign keys."""


import pytest
from langchain_core.embeddings import Embeddings

from queryweave.testing import ScriptedChatModel
from queryweave.tools.sql.column_link import column_scores, join_keys, table_scores, top_columns
from queryweave.tools.sql.text_to_sql import TextToSQL


class Meaning(Embeddings):
    """Vectors from a tiny bilingual concept table: 'age'/'年龄' point one way, 'name'/'名字' another."""

    CONCEPTS = (("age", "年龄", "岁"), ("name", "名字", "姓名"), ("pet", "宠物", "猫"), ("country", "国家"))

    def _vec(self, text: str) -> list[float]:
        v = [float(any(w in text.lower() for w in words)) for words in self.CONCEPTS] + [0.1]
        norm = sum(x * x for x in v) ** 0.5
        return [x / norm for x in v]

    def embed_documents(self, texts):
        return [self._vec(t) for t in texts]

    def embed_query(self, text):
        return self._vec(text)


@pytest.fixture()
def db(sql_db_from):
    return sql_db_from("""
        CREATE TABLE student (stu_id INTEGER PRIMARY KEY, first_name TEXT, age INTEGER, country TEXT);
        CREATE TABLE pets (pet_id INTEGER PRIMARY KEY, pet_type TEXT, pet_age INTEGER);
        CREATE TABLE has_pet (stu_id INTEGER REFERENCES student(stu_id), pet_id INTEGER REFERENCES pets(pet_id));
        INSERT INTO student VALUES (1, 'Ann', 20, 'France'), (2, 'Bo', 22, 'Spain');
        INSERT INTO pets VALUES (1, 'cat', 3), (2, 'dog', 5);
        INSERT INTO has_pet VALUES (1, 1), (2, 2);
    """, "pets.sqlite")


def test_names_and_values_score_columns_without_a_model(db):
    s = column_scores(db, "What is the first name of students from France?")
    assert s["student", "first_name"] >= 1 and s["student", "country"] >= 1  # a name and a stored value
    assert s["pets", "pet_type"] == 0
    assert set(top_columns(s, ["student", "pets"], k=2)) == {("student", "country"), ("student", "first_name")}
    assert top_columns(s, ["pets"]) == []  # only columns with some evidence


def test_meaning_links_a_chinese_question_to_english_columns(db):
    lexical = column_scores(db, "学生的年龄是多少？")
    assert max(lexical.values()) == 0  # no shared word at all
    s = column_scores(db, "学生的年龄是多少？", Meaning())
    best = top_columns(s, list(db.tables()), k=2)
    assert ("student", "age") in best and ("pets", "pet_age") in best
    assert table_scores(s, db, "学生的年龄是多少？")["student"] > 0


def test_join_keys_between_the_tables_of_the_top_columns(db):
    keys = join_keys(db, ["has_pet", "student", "pets"])
    assert "has_pet.stu_id = student.stu_id" in keys and "has_pet.pet_id = pets.pet_id" in keys
    assert join_keys(db, ["student"]) == []


def test_the_prompt_lists_the_linked_columns_and_their_keys(db):
    llm = ScriptedChatModel(responses=["```sql\nSELECT first_name FROM student WHERE country = 'France'\n```"])
    tool = TextToSQL(db, llm, link_columns=True, embeddings=Meaning())
    ans = tool.ask("Which students own a cat? Give their first name.")
    system = llm.calls[0][0].content
    assert "Columns that look most related to the question:" in system and "pets.pet_type" in system
    assert ans.rows == [("Ann",)]
    plain = ScriptedChatModel(responses=["```sql\nSELECT 1\n```"])
    TextToSQL(db, plain).ask("Which students own a cat?")
    assert "most related" not in plain.calls[0][0].content
    zh = ScriptedChatModel(responses=["```sql\nSELECT age FROM student\n```"])
    TextToSQL(db, zh, link_columns=True, embeddings=Meaning(), bilingual=False).ask("学生的年龄是多少？", lang="zh")
    assert "与问题最相关的列" in zh.calls[0][0].content and "student.age" in zh.calls[0][0].content
