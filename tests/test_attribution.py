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
