"""An empty SQL result says which compared value the data does not hold, and which values it does:
the user can ask again with a stored value (a Chinese question names 德国 where the data says 'Germany',
or a name the data does not have at all)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from queryweave.graph.builder import graph
from queryweave.testing import ScriptedChatModel, use_model_in_nodes


def _ask(ctx, singers_db, monkeypatch, question: str, sql: str) -> dict:
    def reply(messages):
        text = str(messages[-1].content)
        if text.startswith("Translate"):
            return "Germany"  # neither the question's value nor its translation is stored
        return f"```sql\n{sql}\n```"

    use_model_in_nodes(monkeypatch, ScriptedChatModel(responses=[reply]))
    return graph.invoke({"question": question}, context=replace(
        ctx, sql_url=f"sqlite:///{singers_db}", llm="openai", sql_bilingual=False))


@pytest.mark.parametrize("question, value, words", [
    ("国家是“德国”的歌手叫什么名字？", "德国", "没有匹配的行"),
    ("What are the names of the singers from 'Germany'?", "Germany", "Nothing matched"),
])
def test_an_empty_result_names_the_value_the_data_lacks(ctx, singers_db, monkeypatch, question, value, words):
    out = _ask(ctx, singers_db, monkeypatch, question, f"SELECT name FROM singer WHERE country = '{value}'")
    assert out["route"] == "sql" and out["rows"] == []
    assert words in out["answer"] and repr(value) in out["answer"]
    for stored in ("France", "Netherlands", "United States"):  # what the user can ask for instead
        assert repr(stored) in out["answer"]
    assert out["confidence"] < 0.5


def test_an_empty_result_of_stored_values_adds_no_note(ctx, singers_db, monkeypatch):
    out = _ask(ctx, singers_db, monkeypatch, "Which singers from 'France' are older than 60?",
               "SELECT name FROM singer WHERE country = 'France' AND age > 60")
    assert out["route"] == "sql" and out["rows"] == []
    assert "(no rows)" in out["answer"] and "Nothing matched" not in out["answer"]
    assert out["confidence"] == 0.5
