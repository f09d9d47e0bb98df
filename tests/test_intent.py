"""Intent types and their strategies, scope x depth -> k, and ambiguity options."""

from __future__ import annotations

import pytest

from queryweave.tools.understanding.intent import STRATEGIES, classify_intent, detect_ambiguity, k_for


@pytest.mark.parametrize("text,intent", [
    ("Redis 的默认端口是多少？", "factual"),
    ("What is the default port of Redis?", "factual"),
    ("How do I enable the Gradle build cache?", "factual"),
    ("为什么 Kafka 比 RabbitMQ 快？", "reasoning"),
    ("Why does Redis use a single thread?", "reasoning"),
    ("Kafka vs Pulsar for event sourcing", "reasoning"),
    ("总结一下 JVM 的垃圾回收器", "comprehensive"),
    ("Give me an overview of Kubernetes networking", "comprehensive"),
    ("那个关于内存的东西", "fuzzy"),
    ("something about memory leaks in gradle", "fuzzy"),
])
def test_each_intent(text, intent):
    r = classify_intent(text)
    assert r.intent == intent
    assert r.strategy is STRATEGIES[intent]


def test_strategies_match_the_seeds():
    assert STRATEGIES["factual"].weights["dense"] > STRATEGIES["factual"].weights["bm25"]
    assert STRATEGIES["reasoning"].graph and "dense" in STRATEGIES["reasoning"].retrievers
    assert STRATEGIES["comprehensive"].multi_query and {"entity", "bm25", "dense"} <= set(
        STRATEGIES["comprehensive"].retrievers)
    assert STRATEGIES["fuzzy"].expand


def test_k_single_fact_vs_panorama():
    fact = classify_intent("Redis 的默认端口是多少？")
    assert (fact.scope, fact.depth) == ("narrow", "shallow") and 1 <= fact.k <= 3
    pano = classify_intent("全面详细地总结所有 JVM 垃圾回收器的原理和演进")
    assert pano.scope == "broad" and pano.depth == "deep" and pano.k == 20
    assert fact.k < classify_intent("Why does Redis use a single thread?").k < pano.k


def test_k_for_scales_into_limits():
    assert k_for("narrow", "shallow") == 2 and k_for("broad", "deep") == 20
    assert k_for("broad", "deep", 1, 10) == 10 and k_for("narrow", "shallow", 3, 10) == 3
    assert k_for("medium", "medium", 1, 40) > k_for("medium", "medium", 1, 20)


def test_unclear_question_is_not_confident():
    r = classify_intent("有什么办法加快构建")
    assert not r.confident


TITLES = ["Gradle build cache", "Gradle daemon memory settings", "Gradle Kotlin DSL primer",
          "Gradle dependency management", "Gradle build cache configuration", "JVM 内存模型", "Redis 内存优化",
          "内存泄漏排查指南", "Linux 内存管理", "Maven basics"]


def test_bare_term_with_several_topics_is_ambiguous():
    a = detect_ambiguity("Gradle", TITLES)
    assert a.ambiguous and a.term == "Gradle"
    assert 3 <= len(a.options) <= 5 and a.options[-1] == "other"
    assert all("Gradle" in o for o in a.options[:-1])
    assert not ("Gradle build cache" in a.options and "Gradle build cache configuration" in a.options)


def test_chinese_bare_term_options():
    a = detect_ambiguity("内存", TITLES)
    assert a.ambiguous and a.options[-1] == "其他" and all("内存" in o for o in a.options[:-1])


@pytest.mark.parametrize("text", ["Maven", "Kotlin", "How do I configure the Gradle build cache?", "内存泄漏怎么排查？",
                                  "Terraform"])
def test_not_ambiguous(text):
    assert not detect_ambiguity(text, TITLES).ambiguous


def test_no_titles_no_ambiguity():
    assert not detect_ambiguity("Gradle", []).ambiguous
