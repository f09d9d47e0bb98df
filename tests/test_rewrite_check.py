"""A model's rewrite of a follow-up stands in for the question only when it can: the check's rule layer,
and the `resolve` node with a scripted model (a refused rewrite leaves the rules' resolution and hints)."""

from __future__ import annotations

from langgraph.checkpoint.memory import InMemorySaver

from queryweave.graph.builder import build_graph
from queryweave.nodes.resolve import checked_llm_rewrite
from queryweave.testing import ScriptedChatModel
from queryweave.tools.understanding.coref import resolve_followup
from queryweave.tools.understanding.rewrite_check import content_units, refuse_rewrite, sentence_count

EN = ["Who wrote Regency Buck?", "Georgette Heyer wrote Regency Buck in 1935. Heyer was born in Wimbledon."]
ZH = ["HikariCP 是什么？", "HikariCP 是一个 JDBC 连接池。", "maximumPoolSize 默认是多少？", "默认是 10。"]


def test_a_rewrite_that_only_resolves_the_reference_is_accepted():
    assert refuse_rewrite("Did she write anything else?", "Did Georgette Heyer write anything else?", EN) is None
    assert refuse_rewrite("它是谁创建的？", "HikariCP 是谁创建的？", ZH) is None
    assert refuse_rewrite("那 connectionTimeout 呢？", "HikariCP 的 connectionTimeout 默认是多少？", ZH) is None


def test_an_echo_of_an_earlier_question_is_refused():
    assert "repeats an earlier question" in refuse_rewrite("那 connectionTimeout 呢？", "maximumPoolSize 默认是多少？", ZH)
    assert "repeats an earlier question" in refuse_rewrite("And when was she born?", "Who wrote Regency Buck?", EN)


def test_a_copied_answer_or_two_joined_questions_are_refused():
    why = refuse_rewrite("Did she show interest in writing early?", "Heyer was born in Wimbledon. She wrote early.", EN)
    assert why and "more sentences" in why
    assert "more sentences" in refuse_rewrite("它的流程分几步？", "RAG 是什么？它的流程分几步？", ["RAG 是什么？"])


def test_a_different_question_is_refused():
    why = refuse_rewrite("Are there any details on the accident?", "When was Georgette Heyer born?", EN)
    assert why and "drops most" in why
    assert "drops most" in refuse_rewrite("它用什么格式存储数据？", "HikariCP 是什么类型的连接池？", ZH)


def test_a_word_from_outside_the_conversation_is_refused():
    why = refuse_rewrite("Did she write anything else?", "Did Georgette Heyer write anything else in Paris?", EN)
    assert why and "Paris" in why
    assert refuse_rewrite("它是谁创建的？", "Redis 是谁创建的？", ZH).startswith("adds words")


def test_units_ignore_pronouns_and_possessives_and_sentences_are_counted():
    assert content_units("What is its default value?") == content_units("What is the default value?")
    assert "s" not in content_units("When was Rocky's next match?")
    assert "它" not in content_units("它的默认值是多少？") and "默" in content_units("它的默认值是多少？")
    assert sentence_count("Where did the U.S. team play?") == 1
    assert sentence_count("Who? And why.") == 2
    assert refuse_rewrite("who?", "", EN) == "empty rewrite"


def _model_says(monkeypatch, rewrite: str) -> ScriptedChatModel:
    fake = ScriptedChatModel(responses=[{"standalone_question": rewrite, "changed": True}])
    monkeypatch.setattr("queryweave.nodes.resolve.get_chat_model", lambda settings: fake)
    return fake


def test_the_node_takes_a_sound_rewrite_for_a_follow_up_the_rules_are_unsure_of(ctx, monkeypatch):
    history = [("user", "What does the max_connections setting limit?"), ("assistant", "It limits connections.")]
    res = resolve_followup("What is the default value?", history)
    assert not res.confident  # the rules only attached the last topic: the model is asked
    fake = _model_says(monkeypatch, "What is the default value of the max_connections setting?")
    text, error = checked_llm_rewrite(ctx, "What is the default value?", history, res)
    assert text == "What is the default value of the max_connections setting?" and error is None
    assert fake.calls  # the model was asked


def test_the_node_keeps_the_rules_and_their_hints_when_the_rewrite_is_refused(ctx, monkeypatch):
    fake = _model_says(monkeypatch, "What does the max_connections setting limit?")  # an echo
    g = build_graph(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "rewrite-refused"}}
    g.invoke({"question": "What does the max_connections setting limit?"}, cfg, context=ctx)
    out = g.invoke({"question": "What is the default value?"}, cfg, context=ctx)
    assert fake.calls  # consulted, then refused
    assert out["resolved_query"] != "What does the max_connections setting limit?"
    assert "max_connections" in out["resolved_query"] and "100" in out["answer"]
    assert g.get_state(cfg).values["search_hints"]


def test_the_graph_row_of_eval_rewrite_does_what_the_node_does(ctx, monkeypatch):
    from queryweave.eval.rewrite import graph_rewriter, llm_rewriter

    history = [("user", "What does the max_connections setting limit?"), ("assistant", "It limits connections.")]
    _model_says(monkeypatch, "What does the max_connections setting limit?")  # an echo: refused
    text, hints = graph_rewriter(ctx)("What is the default value?", history)
    assert text == resolve_followup("What is the default value?", history).query and hints
    _model_says(monkeypatch, "What does the max_connections setting limit?")
    assert llm_rewriter(ctx)("What is the default value?", history) == "What does the max_connections setting limit?"


def test_the_check_never_raises_on_any_text():
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    @settings(max_examples=60, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(st.text(max_size=80), st.text(max_size=80), st.lists(st.text(max_size=60), max_size=3))
    def check(question, rewrite, context):
        why = refuse_rewrite(question, rewrite, context)
        assert why is None or isinstance(why, str)
        assert refuse_rewrite(question, question, context) in (None, "empty rewrite")  # the question stands for itself

    check()
