"""RAG necessity: direct replies for greetings/chit-chat/arithmetic, retrieval for everything else."""

from __future__ import annotations

import pytest

from queryweave.tools.understanding.necessity import NecessityOutput, arithmetic, needs_retrieval


@pytest.mark.parametrize("text,kind", [
    ("你好", "greeting"), ("Hello!", "greeting"), ("good morning", "greeting"),
    ("谢谢你的帮助", "chitchat"), ("Thanks a lot!", "chitchat"), ("再见", "chitchat"),
    ("你是谁？", "chitchat"), ("What can you do?", "chitchat"),
    ("12 * 7", "general"), ("3 加 5 等于多少", "general"), ("今天天气怎么样？", "general"),
    ("好的，明白了", "chitchat"), ("Thanks, that helped a lot", "chitchat"),
])
def test_no_retrieval_cases(text, kind):
    d = needs_retrieval(text)
    assert not d.needs and d.kind == kind and d.reply


def test_reply_language_and_says_no_retrieval():
    zh = needs_retrieval("你好").reply
    en = needs_retrieval("hello").reply
    assert "无需检索" in zh and "retrieval" in en.lower()


def test_arithmetic_is_computed():
    assert arithmetic("what is 12 times 7?")[1] == 84
    assert arithmetic("(2 + 3) * 4")[1] == 20
    assert arithmetic("Redis 6379") is None
    assert "84" in needs_retrieval("12*7=?").reply


@pytest.mark.parametrize("text", [
    "Redis 的默认端口是多少？", "你好，Redis 怎么配置持久化？", "How does Gradle caching work?",
    "What is the max_connections default?", "天气 API 的限流策略是什么？", "2023",
    "thanks! how do I configure Redis persistence?", "谢谢，那 Kafka 的分区数怎么修改？",
])
def test_informational_goes_to_retrieval(text):
    d = needs_retrieval(text)
    assert d.needs and d.kind == "kb" and d.reply is None


def test_kb_vocabulary_overrides_generic_patterns():
    assert not needs_retrieval("今天天气怎么样").needs
    assert needs_retrieval("今天天气怎么样", kb_vocabulary={"天气", "forecast"}).needs


def test_no_overlap_with_vocabulary_still_retrieves_but_unsure():
    d = needs_retrieval("Who won the 2018 World Cup?", kb_vocabulary={"redis", "gradle", "kotlin"})
    assert d.needs and not d.confident


def test_schema_round_trip():
    out = NecessityOutput.model_validate({"needs_retrieval": False, "kind": "greeting", "reply": "hi"})
    assert out.kind == "greeting"


def test_a_name_the_corpus_holds_makes_retrieval_certain():
    held = {"rrf", "gradle"}

    def known(text):
        return text.lower() in held

    d = needs_retrieval("倒数排名融合（RRF）是谁提出的？", kb_vocabulary={"redis"}, known=known)
    assert d.needs and d.confident  # no model is asked to answer it from memory
    unsure = needs_retrieval("MongoDB 默认监听哪个端口？", kb_vocabulary={"redis"}, known=known)
    assert unsure.needs and not unsure.confident  # a name the corpus lacks: the model may still decide
    assert not needs_retrieval("Translate this sentence into French: I like tea", known=lambda t: True).needs
    assert not needs_retrieval("hello", known=lambda t: True).needs
