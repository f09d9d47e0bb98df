"""The attribute check: an answer to "what is the default / licence / port" must speak of it."""

from __future__ import annotations

from queryweave.tools.grounding.attributes import asked_attributes, unstated_attributes


def test_a_default_asked_for_must_be_spoken_of() -> None:
    assert unstated_attributes("What is the default max_age?", "max_age - Sets a maximum time. Defaults to 600.") == []
    assert unstated_attributes("What is the default value of allow_origin_regex?",
                               "allow_origin_regex - A regex string to match against origins.") == ["default"]
    assert unstated_attributes("连接池默认大小是多少？", "maximumPoolSize 默认为 10。") == []
    assert unstated_attributes("If unset, what does max_age default to?", "If not set, browsers cache for 5 s.") == []


def test_code_keywords_state_no_default() -> None:
    code = "`import { defineConfig } from 'vite' export default defineConfig({ test: { globals: true } })`"
    assert unstated_attributes("Vitest 不配置 environment 时默认用什么测试环境？", code) == ["default"]
    assert unstated_attributes("What is the default of q?", "`q: str | None = Query(default=None)`") == []


def test_default_qualifying_another_attribute_is_met_by_that_one() -> None:
    assert unstated_attributes("PgBouncer 默认监听哪个端口？", "PgBouncer listens on port 6432.") == []
    assert unstated_attributes("Which port does the API server use by default?",
                               "Kubernetes restarts containers whose probes fail.") == ["default", "port"]


def test_licence_and_questions_that_ask_no_attribute() -> None:
    assert unstated_attributes("Under which license is LeakCanary released?",
                               "LeakCanary is an open-source library by Square.") == ["license"]
    assert unstated_attributes("LeakCanary 用什么开源协议？", "LeakCanary is released under the Apache 2.0 License.") == []
    assert asked_attributes("Who created HikariCP?") == [] and unstated_attributes("谁写的？", "无关") == []


def test_the_graph_declines_an_answer_that_never_speaks_of_the_default(ctx) -> None:
    from dataclasses import replace

    from queryweave.graph.builder import graph

    ok = graph.invoke({"question": "What is the default value of max_connections?"}, context=ctx)
    assert not ok.get("abstained") and "100" in ok["answer"]
    for question in ("What is the default build variant of an Android Gradle build?",  # the fixture never says
                     "Which port does PgBouncer listen on by default?"):
        off = graph.invoke({"question": question}, context=replace(ctx, features="attribute_check=off"))
        assert off["citations"] and not off.get("abstained")  # answered with sentences about the thing
        out = graph.invoke({"question": question}, context=ctx)
        assert out["abstained"] is True and out["citations"] == [] and out["nearest"]


def test_prose_about_a_case_still_speaks_of_its_default() -> None:
    assert unstated_attributes("What is the default pool size?", "In that case the default is 10: raise it.") == []
