"""Citations for a model answer written without `[n]` marks (`tools/grounding/attribution`)."""

from queryweave.tools.grounding.attribution import attribute

PASSAGES = [
    "Room 默认的日志模式是 `JournalMode.AUTOMATIC`：在非低内存设备上会启用 SQLite 的 WAL 模式。",
    "OkHttp 的缓存默认关闭。默认只缓存 GET 请求的响应。",
    "The max_connections setting limits concurrent connections. Its default value is 100 connections.",
]


def test_each_sentence_cites_the_passage_that_carries_it():
    assert attribute("Room 默认的日志模式是 `JournalMode.AUTOMATIC`。", PASSAGES) == [1]
    assert attribute("OkHttp 默认只缓存 GET 请求的响应。", PASSAGES) == [2]
    assert attribute("By default max_connections is 100. OkHttp caches only GET responses by default.",
                     PASSAGES) == [3]  # the second sentence (English against a Chinese page) is carried by none


def test_an_answer_from_memory_cites_nothing():
    assert attribute("The default page size of a new SQLite database is 4096 bytes.", PASSAGES) == []
    assert attribute("", PASSAGES) == [] and attribute("anything", []) == []


def test_invented_numbers_are_those_neither_question_nor_passages_hold():
    from queryweave.tools.grounding.attribution import invented_numbers

    passages = ["The pool holds 1,000 connections and waits thirty seconds."]
    assert invented_numbers("It holds 1000 connections and waits 30 s.", "How big is the pool?", passages) == []
    assert invented_numbers("The page size is 4096 bytes.", "What is the page size?", passages) == ["4096"]
    assert invented_numbers("Version 3 adds it.", "What does version 3 add?", passages) == []  # from the question
    assert invented_numbers("它有一个默认值。", "默认值是多少？", passages) == []  # words, not digits


def test_vet_answer_reads_marks_attributes_unmarked_answers_and_says_why_it_refuses():
    from queryweave.tools.grounding.attribution import vet_answer

    q = "What is the default of max_connections?"
    assert vet_answer("The default is 100 connections [3].", q, PASSAGES) == ([3], None)
    assert vet_answer("Its default value is 100 connections.", q, PASSAGES) == ([3], None)  # cited by attribution
    assert vet_answer("[2][3]", q, PASSAGES)[1] == "the answer held citation marks only"
    assert vet_answer("Zebras migrate every July.", q, PASSAGES)[1].startswith("the answer cites no passage")
    assert "(250)" in vet_answer("The default is 250 connections [3].", q, PASSAGES)[1]
    assert vet_answer("The default is 250 connections [3].", q, PASSAGES, check_numbers=False) == ([3], None)
