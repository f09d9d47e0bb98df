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


def test_a_quantity_asked_for_must_be_stated() -> None:
    q = "How many times does the loader retry a failed fetch?"
    assert unstated_attributes(q, "The loader runs again when the route changes, e.g. /users/1. [1]") == ["quantity"]
    assert unstated_attributes(q, "It retries 3 times. [1]") == []
    assert unstated_attributes(q, "It retries twice before giving up. [1]") == []
    # versions, code, links and citation markers state no quantity; nor a number the question holds
    assert unstated_attributes("How long does Vue Router wait for a guard?", "As in Vue 2, `setTimeout(f, 500)` [1]") \
        == ["quantity"]
    assert unstated_attributes("Vuex 5 的 RFC 编号是多少？", "Pinia 起源于 Vuex 5 的实验。[2]") == ["quantity"]
    assert unstated_attributes("WCAG 2.2 相比 2.1 新增了多少条准则？", "WCAG 2.0 与 WCAG 2.1 [1]") == ["quantity"]
    # a Chinese numeral with the measure word asked for; an ordinal is none
    assert unstated_attributes("最多能添加多少条路由？", "这两个链接都会匹配。[1]") == ["quantity"]
    assert unstated_attributes("最多能添加多少条路由？", "最多添加三条路由。[1]") == []
    assert unstated_attributes("插件会被安装几次？", "作为第二个参数传入。[1]") == ["quantity"]
    assert unstated_attributes("插件会被安装几次？", "只会安装一次。[1]") == []
    # no quantity asked: "某几个" / "哪几个" / "第几" are no count
    assert asked_attributes("如果只想缓存某几个组件，用哪个 prop？") == []
    assert asked_attributes("Room 有哪几个核心组件？") == [] and asked_attributes("她是第几位皇后？") == []
    assert unstated_attributes("默认最大堆是物理内存的多少？", "默认把最大堆设为物理内存的 1/4。") == []
    # a number in code counts when it is set on a key the question names
    assert unstated_attributes("MiniSearch 里 fuzzy 的值是多少？", "`searchOptions: { fuzzy: 0.2, prefix: true }` [1]") == []
    assert unstated_attributes("state 最多可以有多少个顶层属性？", "`state: () => ({ count: 0 })` [1]") == ["quantity"]


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


def test_a_version_or_a_date_asked_for_must_be_stated() -> None:
    question = "In which Widget version was the inspect command first introduced?"
    assert unstated_attributes(question, "The inspect command prints the config. [1]") == ["version"]
    assert unstated_attributes(question, "It was added in v1.2. [1]") == []
    assert unstated_attributes("Widget 从哪个版本开始支持 HTTP/2？", "从 2.1 开始支持。[1]") == []
    assert unstated_attributes("Widget 1.0 是哪天发布的？", "Widget 支持 Node.js 和 Bun。[1]") == ["date"]
    assert unstated_attributes("Widget 1.0 是哪天发布的？", "Widget 1.0 发布于 2024 年 9 月 10 日。[1]") == []
    # the question's own number and the citation marker state nothing
    assert unstated_attributes("What year was Widget 1.0 released?", "Widget 1.0 is stable. [1]") == ["date"]
    # "when" asking for a moment of a process, not a date, is not judged
    assert unstated_attributes("When is the onBeforeBuild hook called?", "Before the build starts. [1]") == []


def test_a_year_in_digits_before_1500_is_a_date_too() -> None:
    question = "莫扎伊斯克第一次见于史书记载是在哪一年？"
    assert unstated_attributes(question, "莫扎伊斯克第一次见于史书记载是在1231年，当时它是一块封地。[1]") == []
    assert unstated_attributes(question, "它是切尔尼戈夫公国下属的一块封地。[1]") == ["date"]
    # the question's own year states nothing
    assert unstated_attributes("2019年以后它在哪一年扩建？", "2019年以后它扩建了。[1]") == ["date"]


def test_a_weekday_answers_which_day() -> None:
    question = "一周是从哪天开始的可以用 first-day-of-week 设置，设为 0 时代表星期几？"
    assert unstated_attributes(question, "first-day-of-week — 说明: 日历上一周的开始，0 代表周一[1]") == []
    assert unstated_attributes(question, "first-day-of-week — 说明: 日历上一周的开始[1]") == ["date"]
    assert unstated_attributes("Which day does the week start on?", "The week starts on Monday. [1]") == []
