"""Follow-up resolution, constraint accumulation and history compression (rule layer, both languages)."""

from __future__ import annotations

from datetime import date

import pytest

from queryweave.tools.understanding.coref import (
    Resolution,
    accumulate_constraints,
    resolve_followup,
    summarize_history,
)
from queryweave.tools.understanding.mentions import extract_mentions


def _q(question: str, history: list[tuple[str, str]]) -> Resolution:
    return resolve_followup(question, history)


def test_no_history_leaves_the_question_alone():
    r = _q("它的默认值是多少？", [])
    assert r.query == "它的默认值是多少？" and not r.changed


def test_zh_pronoun_replaced_by_last_entity():
    h = [("user", "Redis 是什么？"), ("assistant", "Redis 是一个开源的内存数据库，常用作缓存。")]
    r = _q("它的默认端口是多少？", h)
    assert r.changed and r.confident
    assert "Redis" in r.query and "它" not in r.query and "默认端口" in r.query


def test_zh_demonstrative_with_class_noun_prefers_code_token():
    h = [("user", "Redis 的 max_connections 参数有什么作用？"), ("assistant", "它限制同时连接的客户端数量。")]
    r = _q("该参数的默认值是多少？", h)
    assert r.antecedent == "max_connections"
    assert r.query.startswith("max_connections") and "该" not in r.query


def test_zh_ellipsis_swaps_entity_in_previous_question():
    h = [("user", "Java 中怎么读取文件？"), ("assistant", "可以用 Files.readAllLines。")]
    r = _q("那 Python 呢？", h)
    assert r.query == "Python 中怎么读取文件？"


def test_zh_chain_of_ellipses_keeps_the_frame():
    h = [("user", "Java 中怎么读取文件？"), ("assistant", "用 Files.readAllLines。"),
         ("user", "那 Python 呢？"), ("assistant", "用 open()。")]
    assert _q("Go 呢？", h).query == "Go 中怎么读取文件？"


def test_zh_attribute_ellipsis():
    h = [("user", "Redis 的默认端口是多少？"), ("assistant", "6379。")]
    r = _q("它的超时时间呢？", h)
    assert "Redis" in r.query and "超时时间" in r.query and "端口" not in r.query


def test_en_its_attribute_ellipsis():
    h = [("user", "What is the default value of max_connections in PostgreSQL?"), ("assistant", "It is 100.")]
    r = _q("what about its timeout?", h)
    assert r.query == "What is the timeout of max_connections in PostgreSQL?"


def test_en_year_ellipsis_replaces_year():
    h = [("user", "What was the revenue of Acme in 2022?"), ("assistant", "About $3M.")]
    assert _q("and in 2023?", h).query == "What was the revenue of Acme in 2023?"


def test_en_it_replaced_and_dummy_it_kept():
    h = [("user", "How do I install Redis on Ubuntu?"), ("assistant", "Run apt install redis-server.")]
    assert _q("Does it support clustering?", h).query == "Does Redis support clustering?"
    h2 = [("user", "Tell me about Kotlin coroutines."), ("assistant", "They are light-weight threads.")]
    r = _q("Is it possible to cancel a coroutine?", h2)
    assert not r.changed


def test_en_plural_pronoun_uses_both_entities():
    h = [("user", "Compare Kafka and RabbitMQ for event streaming."), ("assistant", "Kafka is a log.")]
    r = _q("Which of them is easier to operate?", h)
    assert "Kafka" in r.query and "RabbitMQ" in r.query and "them" not in r.query


def test_en_ellipsis_with_preposition_appends_when_nothing_to_swap():
    h = [("user", "How do I read a file?"), ("assistant", "It depends on the language.")]
    assert _q("what about in Kotlin?", h).query == "How do I read a file in Kotlin?"


def test_standalone_question_unchanged_even_with_history():
    h = [("user", "What is Docker?"), ("assistant", "A container platform.")]
    r = _q("How do I install Kubernetes on Ubuntu?", h)
    assert not r.changed and r.query == "How do I install Kubernetes on Ubuntu?"


def test_bare_followup_is_joined_and_not_confident():
    h = [("user", "Redis 是单线程的吗？"), ("assistant", "命令处理是单线程的。")]
    r = _q("为什么？", h)
    assert r.changed and not r.confident and "Redis" in r.query


def test_constraint_only_turn_reasks_previous_question():
    h = [("user", "Gradle 构建缓存怎么配置？"), ("assistant", "设置 org.gradle.caching=true。")]
    r = _q("只看 2023 年的", h)
    assert r.query == "Gradle 构建缓存怎么配置？"


def test_langchain_style_roles_are_accepted():
    h = [{"role": "human", "content": "What is PgBouncer?"}, {"role": "ai", "content": "A connection pooler."}]
    assert "PgBouncer" in _q("How do I configure it?", h).query


def test_mentions_kinds():
    kinds = {(m.text, m.kind) for m in extract_mentions("Set `max_connections` for Spring Boot and 数据库连接池")}
    assert ("max_connections", "code") in kinds and ("Spring Boot", "name") in kinds
    assert any(k == "noun" and "连接池" in t for t, k in kinds)


def test_constraints_accumulate_and_change():
    today = date(2025, 6, 1)
    c = accumulate_constraints({}, "只看 2023 年的", today)
    assert (c["year_from"], c["year_to"]) == (2023, 2023)
    c = accumulate_constraints(c, "Kotlin 的协程怎么取消？", today)
    assert c["year_from"] == 2023  # carried over an ordinary question
    c = accumulate_constraints(c, "不要 Java", today)
    assert c["exclude"] == ["Java"]
    c = accumulate_constraints(c, "only Kotlin", today)
    assert c["include"] == ["Kotlin"] and c["language"] == "Kotlin"
    c = accumulate_constraints(c, "only Java", today)
    assert c["include"] == ["Java"] and "Java" not in c["exclude"]
    c = accumulate_constraints(c, "since 2021", today)
    assert (c["year_from"], c["year_to"]) == (2021, None)
    c = accumulate_constraints(c, "clear filters", today)
    assert c["include"] == [] and c["year_from"] is None


@pytest.mark.parametrize("text", ["What changed in 2023?", "Why does Redis only use one core?",
                                  "How do I run Gradle without internet access?", "为什么不要用 root 运行 Redis？"])
def test_content_is_not_a_constraint(text):
    c = accumulate_constraints({}, text, date(2025, 6, 1))
    assert c["year_from"] is None and c["include"] == [] and c["exclude"] == []


def test_constraint_ranges_and_relative_years():
    today = date(2025, 6, 1)
    assert accumulate_constraints({}, "2019 到 2021 年的", today)["year_to"] == 2021
    c = accumulate_constraints({}, "排除 2020 年以前的文档", today)
    assert (c["year_from"], c["year_to"]) == (2020, None)
    c = accumulate_constraints({}, "只要最近三年的", today)
    assert (c["year_from"], c["year_to"]) == (2023, 2025)
    assert accumulate_constraints({}, "请用英文回答", today)["answer_language"] == "en"


def test_summarize_history_keeps_recent_turns_and_compresses_older():
    h = []
    for i, topic in enumerate(["Redis", "PostgreSQL", "Kafka", "Gradle", "Kotlin"]):
        h += [("user", f"What is {topic}? only 2023" if i == 0 else f"What is {topic}?"), ("assistant", f"{topic} is ...")]
    out = summarize_history(h, max_turns=2)
    assert out[0][0] == "system" and "Redis" in out[0][1] and "2023" in out[0][1]
    assert out[1:] == h[-4:]
    assert summarize_history(h[:4], max_turns=2) == h[:4]


def test_zh_demonstrative_class_noun_takes_the_possessive_chain():
    h = [("user", "Gradle 的构建缓存默认开启吗？"), ("assistant", "默认关闭。")]
    assert _q("这个功能在哪里配置？", h).query == "Gradle 的构建缓存在哪里配置？"


def test_zh_plural_attribute_ellipsis():
    h = [("user", "Redis 和 Memcached 哪个更快？"), ("assistant", "差不多。")]
    q = _q("它们的内存占用呢？", h).query
    assert "Redis" in q and "Memcached" in q and "内存占用" in q


def test_object_less_question_gets_the_topic_but_is_not_confident():
    h = [("user", "PgBouncer 是什么？"), ("assistant", "PostgreSQL 的连接池。")]
    r = _q("怎么安装？", h)
    assert r.query == "PgBouncer 怎么安装？" and not r.confident


def test_bare_demonstrative_is_a_guess():
    h = [("user", "How many replicas does Kafka use by default?"), ("assistant", "The replication factor is 1.")]
    r = _q("Can I change that?", h)
    assert r.changed and not r.confident


def test_a_guess_next_to_an_unreplaced_reference_word_keeps_the_question_and_carries_hints():
    h = [("user", "连接池有哪些？"), ("assistant", "HikariCP 和 PgBouncer 都是连接池。")]
    r = _q("第二个的默认端口是多少？", h)
    assert r.query == "第二个的默认端口是多少？" and not r.changed  # no "第二个的HikariCP 的默认端口"
    assert r.dependent and any("PgBouncer" in x for x in r.hints)


def test_hints_carry_topic_previous_question_and_last_answer_without_repeats():
    h = [("system", "Teena Marie — Epic era"), ("user", "Did she go on tour?"),
         ("assistant", "Naked to the World concert tour, 1988. She fell and was hospitalized.")]
    r = _q("Most famous person she worked with?", h)
    assert r.hints[0] == "Teena Marie — Epic era"
    assert any("Naked to the World" in x for x in r.hints)
    joined = " ".join(r.hints).lower()
    assert joined.count("teena marie") == 1 and "i don't know" not in joined
    assert r.search_text.startswith(r.query)


def test_self_contained_question_is_not_dependent_but_a_short_name_is():
    h = [("user", "Who is Richard Dawkins?"), ("assistant", "An evolutionary biologist.")]
    assert not _q("Where was Mary Chapin Carpenter born?", h).dependent
    assert _q("Does Dawkins believe in creationism?", h).dependent
    assert not _q("Does Richard Dawkins believe in creationism?", h).dependent


def test_a_splicing_rewrite_is_refused():
    from queryweave.tools.understanding.coref import Resolution, _guarded

    bad = Resolution("What is what is its default connectionTimeout?", True, True, "x")
    kept = _guarded("And what is its default connectionTimeout?", bad, "What is the default maximumPoolSize?")
    assert kept.query == "And what is its default connectionTimeout?" and not kept.changed
    good = Resolution("What is HikariCP's default connectionTimeout?", True, True, "x")
    assert _guarded("What is its default connectionTimeout?", good, "What is HikariCP?") is good
