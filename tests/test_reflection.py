"""Reflection loop: grounded answers pass, a planted unsupported claim is caught, the loop is bounded."""

from __future__ import annotations

from dataclasses import replace

from queryweave.graph.builder import graph
from queryweave.testing import ScriptedChatModel
from queryweave.tools.grounding.relevance import answer_relevance, documents_sufficiency


def _fake_llm(monkeypatch, responses):
    fake = ScriptedChatModel(responses=responses)
    monkeypatch.setattr("queryweave.nodes.generate.get_chat_model", lambda c: fake)
    monkeypatch.setattr("queryweave.nodes.reflect.get_chat_model", lambda c: None)  # offline grader
    monkeypatch.setattr("queryweave.nodes.generate.resolve_backend", lambda c: "openai")
    return fake


def test_extractive_answer_passes_reflection_first_time(ctx):
    out = graph.invoke({"question": "What is the default value of max_connections?"}, context=ctx)
    assert len(out["attempts"]) == 1 and out["attempts"][0]["passed"] is True
    assert out["verdicts"] and all(v["supported"] for v in out["verdicts"])
    assert out["citations"][0]["verified"] is True


# The planted lie states numbers no passage holds, which `generate` itself refuses since the number check
# (tests/test_graph.py); it is switched off here so that the lie reaches the reflection loop under test.
LOOP = "number_check=off"


def test_planted_unsupported_claim_is_caught_and_loop_is_bounded(ctx, monkeypatch):
    lie = "The default value of max_connections is 7345 connections, set by Oracle in 1962 [1]."
    _fake_llm(monkeypatch, [lie])
    out = graph.invoke({"question": "What is the default value of max_connections?"},
                       context=replace(ctx, max_attempts=3, features=LOOP))
    assert len(out["attempts"]) == 3  # stopped at the limit, not forever
    assert all(not a["passed"] for a in out["attempts"])
    assert any(not v["supported"] for v in out["verdicts"])
    assert out["confidence"] <= 0.4
    shown = next(a for a in out["attempts"] if a["answer"] == out["answer"])
    assert out["verdicts"] == shown["verdicts"]  # the verdicts of the answer shown


def test_second_attempt_can_recover(ctx, monkeypatch):
    lie = "The default value of max_connections is 7345 connections, set by Oracle in 1962 [1]."
    truth = "The max_connections setting has a default value of 100 connections [1]."
    _fake_llm(monkeypatch, [lie, truth])
    out = graph.invoke({"question": "What is the default value of max_connections?"},
                       context=replace(ctx, max_attempts=3, features=LOOP))
    assert [a["passed"] for a in out["attempts"]] == [False, True]
    assert "100" in out["answer"] and out["attempts"][1]["k"] >= out["attempts"][0]["k"]


def test_reflection_switch_off(ctx):
    out = graph.invoke({"question": "What is the default value of max_connections?"},
                       context=replace(ctx, features="reflect=off"))
    assert out["attempts"] == []


def test_relevance_and_sufficiency_rules():
    q = "What does statement_timeout do in PostgreSQL?"
    assert answer_relevance(q, "statement_timeout aborts statements in PostgreSQL that run too long.") > \
        answer_relevance(q, "Bread needs yeast and flour.")
    good = [{"text": "PostgreSQL statement_timeout aborts any statement that runs too long."}]
    bad = [{"text": "Kotlin coroutines are light-weight threads."}]
    assert documents_sufficiency(q, good).enough and not documents_sufficiency(q, bad).enough


def test_an_answer_is_read_with_the_titles_of_the_pages_it_cites():
    question = "大果西番莲的根部有什么作用？"
    answer = "它的根部可用来当作催吐剂与麻醉药品。"
    assert answer_relevance(question, answer, titles=["大果西番莲"]) > answer_relevance(question, answer)
    assert answer_relevance(question, answer, titles=["温室种植"]) == answer_relevance(question, answer)


def test_an_extractive_answer_below_min_confidence_is_withheld(ctx):
    q = "What is the default value of max_connections?"
    answered = graph.invoke({"question": q}, context=ctx)
    assert not answered.get("abstained") and answered["citations"]
    out = graph.invoke({"question": q}, context=replace(ctx, min_confidence=answered["confidence"] + 0.01))
    assert out["abstained"] is True and out["citations"] == [] and out["confidence"] == 0.0
    assert out["withheld"]["answer"] == answered["answer"]  # kept apart, for a UI to show as a lead
    assert out["withheld"]["confidence"] == answered["confidence"]
    assert out["nearest"] and "[1]" not in out["answer"]
    off = graph.invoke({"question": q}, context=replace(ctx, min_confidence=answered["confidence"] + 0.01,
                                                        features="abstain=off"))
    assert off["answer"] == answered["answer"] and not off.get("abstained")


def test_the_cut_judges_only_answers_in_the_questions_language():
    from queryweave.nodes.reflect import same_language

    assert same_language("What is the default?", "The default is 100. [1]")
    assert not same_language("默认是多少？", "The default is 100. [1]")


def test_an_extractive_answer_at_the_attempt_limit_keeps_its_own_confidence(ctx, monkeypatch):
    from queryweave.tools.grounding.confidence import probability
    from queryweave.tools.grounding.detector import GroundednessReport

    def strict_grader(answer, sources, **_kw):  # a hard check failing on copied text, score high
        return GroundednessReport(answer, [], 1.0, False, [], "offline")

    relevances = iter([0.9, 0.5])  # the first attempt reads as more relevant: it is the one shown
    monkeypatch.setattr("queryweave.nodes.reflect.groundedness", strict_grader)
    monkeypatch.setattr("queryweave.nodes.reflect.answer_relevance", lambda *a, **k: next(relevances))
    out = graph.invoke({"question": "What is the default value of max_connections?"},
                       context=replace(ctx, max_attempts=2))
    assert len(out["attempts"]) == 2 and all(not a["passed"] for a in out["attempts"])
    assert "100" in out["answer"]
    first, last = out["attempts"]
    assert first["confidence"] > last["confidence"] and out["confidence"] == first["confidence"] > 0.4
    assert out["low_confidence"] is True
    # the features of the attempt shown, not of the last one
    assert out["confidence_features"]["relevance"] == 0.9
    assert probability(out["confidence_features"]) == out["confidence"]
