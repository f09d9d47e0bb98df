"""`sql_translate` (QUERYWEAVE_SQL_TRANSLATE) through the graph: a Chinese question routed to SQL is turned
into English first, its quoted value kept as written and mapped to the stored value; off, the
query-writing prompt gets the Chinese question."""

from __future__ import annotations

from dataclasses import replace

import pytest

from queryweave.graph.builder import graph
from queryweave.testing import ScriptedChatModel, use_model_in_nodes

QUESTION = "国家是“法国”的歌手叫什么名字？"


def _writes_sql(messages) -> bool:
    """A query-writing prompt (English or Chinese system prompt of `prompts.sql.SYSTEM`)."""
    first = str(messages[0].content)
    return "SELECT query that answers" in first or "SELECT 查询语句" in first


def _model(monkeypatch) -> ScriptedChatModel:
    """Translates, writes the query with the value as the question quotes it, maps 法国 to France."""
    def reply(messages):
        text = str(messages[-1].content)
        if text.startswith("Translate this question"):
            return 'What are the names of the singers whose country is "France"?'
        if _writes_sql(messages):
            return "```sql\nSELECT name FROM singer WHERE country = '法国'\n```"
        if text.startswith("Translate the value"):
            return "France"
        return ""

    fake = ScriptedChatModel(responses=[reply])
    use_model_in_nodes(monkeypatch, fake)
    return fake


def _ask(ctx, singers_db, fake, **settings):
    """The graph's answer to QUESTION over `singers_db`, and the last turns of the query-writing prompts."""
    out = graph.invoke({"question": QUESTION},
                       context=replace(ctx, sql_url=f"sqlite:///{singers_db}", llm="openai", **settings))
    return out, [str(c[-1].content) for c in fake.calls if _writes_sql(c)]


@pytest.mark.parametrize("translate", [True, False])
def test_a_chinese_question_is_translated_before_writing_sql_when_configured(ctx, singers_db, monkeypatch, translate):
    fake = _model(monkeypatch)
    assert ctx.sql_translate is False  # the default a new user gets
    out, asked = _ask(ctx, singers_db, fake, sql_translate=translate)
    assert out["route"] == "sql"
    if translate:
        assert asked[0].endswith('whose country is "法国"?')  # English, the quoted value as the user wrote it
    else:
        assert "歌手" in asked[0]
    assert sorted(next(iter(r.values())) for r in out["rows"]) == ["Justin Brown", "Rose White"]


def test_the_setting_is_read_from_the_environment(monkeypatch):
    from queryweave.config import Context

    for raw, expected in (("1", True), ("on", True), ("0", False), ("", False)):
        monkeypatch.setenv("QUERYWEAVE_SQL_TRANSLATE", raw)
        assert Context().sql_translate is expected


@pytest.mark.parametrize("bilingual", [True, False])
def test_by_default_the_translation_is_shown_beside_the_chinese_question(ctx, singers_db, monkeypatch, bilingual):
    fake = _model(monkeypatch)
    assert ctx.sql_bilingual is True  # the default a new user gets
    out, asked = _ask(ctx, singers_db, fake, sql_bilingual=bilingual)
    assert asked[0].startswith(f"问题：{QUESTION}")  # the Chinese question stays the question
    beside = '（英文：What are the names of the singers whose country is "法国"?）'
    assert asked[0].endswith(beside) is bilingual
    assert sorted(next(iter(r.values())) for r in out["rows"]) == ["Justin Brown", "Rose White"]
    monkeypatch.setenv("QUERYWEAVE_SQL_BILINGUAL", "0")
    from queryweave.config import Context

    assert Context().sql_bilingual is False


@pytest.mark.parametrize("linked", [True, False])
def test_term_links_reach_the_prompt_only_when_configured(ctx, singers_db, monkeypatch, linked):
    fake = _model(monkeypatch)
    assert ctx.sql_term_links is False  # the default a new user gets (bench/results_structured.md)
    out, _ = _ask(ctx, singers_db, fake, sql_term_links=linked, sql_bilingual=False)
    systems = [str(c[0].content) for c in fake.calls if _writes_sql(c)]
    assert systems and all(("国家 → singer.country" in s) is linked for s in systems)
    assert all(("名字 → singer.name" in s) is linked for s in systems)
    assert sorted(next(iter(r.values())) for r in out["rows"]) == ["Justin Brown", "Rose White"]
    monkeypatch.setenv("QUERYWEAVE_SQL_TERM_LINKS", "1")
    from queryweave.config import Context

    assert Context().sql_term_links is True


@pytest.mark.parametrize("language", ["en", ""])
def test_the_prompt_language_reaches_the_query_writing_prompt(ctx, singers_db, monkeypatch, language):
    fake = _model(monkeypatch)
    assert ctx.sql_prompt_language == ""  # the default a new user gets: the question's own language
    out, asked = _ask(ctx, singers_db, fake, sql_prompt_language=language, sql_bilingual=False)
    systems = [str(c[0].content) for c in fake.calls if _writes_sql(c)]
    assert systems and all(("The question is in Chinese" in s) is (language == "en") for s in systems)
    assert asked[0] == (f"Question: {QUESTION}" if language else f"问题：{QUESTION}")  # the question unchanged
    assert sorted(next(iter(r.values())) for r in out["rows"]) == ["Justin Brown", "Rose White"]
    monkeypatch.setenv("QUERYWEAVE_SQL_PROMPT_LANGUAGE", "en")
    from queryweave.config import Context

    assert Context().sql_prompt_language == "en"
