"""The sentence that goes on with the best answer sentence (`grounding.elaboration`), for questions that ask for
more than one fact: shown with it for descriptions, reasons and definitions, never for a factoid question."""

from __future__ import annotations

import pytest

from queryweave.tools.grounding.elaboration import MAX_CHARS, asks_more_than_a_fact, asks_procedure, goes_on
from queryweave.tools.grounding.extractive import extract_answer

CHECKPOINT = """# 检查点

检查点是数据库把内存中的脏页写回数据文件的过程。它让崩溃恢复只需重放最后一个检查点之后的日志。
默认每五分钟做一次检查点，由 checkpoint_timeout 控制。备份工具也会在开始时请求一次检查点。
"""

FOG = """# Advection fog

Advection fog forms when moist air passes over a cool surface. It is common along coasts in summer,
where warm sea air drifts over cold upwelling water. Ships report it more often than airports do.
"""


def _doc(text: str, n: int = 1) -> dict:
    return {"chunk_id": f"c{n}", "source": f"doc{n}.md", "title": "", "text": text}


@pytest.mark.parametrize(("question", "more"), [
    ("什么是检查点？", True),
    ("检查点是什么？", True),
    ("为什么需要检查点？", True),
    ("What is advection fog?", True),
    ("How does advection fog form?", True),
    ("检查点有什么作用？", True),  # "what is there": a list or a description
    ("检查点默认多久做一次？", False),  # a number
    ("What is the default checkpoint_timeout?", False),  # a value
    ("Who wrote the WAL module?", False),  # a name
    ("When was WAL added?", False),  # a date
])
def test_which_questions_ask_for_more_than_a_fact(question: str, more: bool) -> None:
    assert asks_more_than_a_fact(question) is more


def test_a_definition_is_shown_with_the_sentence_that_goes_on_with_it() -> None:
    zh = extract_answer("什么是检查点？", [_doc(CHECKPOINT)], max_sentences=1, elaboration=True)
    assert "写回数据文件" in zh.answer and "崩溃恢复" in zh.answer
    assert zh.answer.index("写回数据文件") < zh.answer.index("崩溃恢复")  # in the passage's order
    en = extract_answer("What is advection fog?", [_doc(FOG)], max_sentences=1, elaboration=True)
    assert "moist air passes over a cool surface" in en.answer and "common along coasts" in en.answer
    off = extract_answer("What is advection fog?", [_doc(FOG)], max_sentences=1)  # the switch off
    assert "moist air passes over a cool surface" in off.answer and "common along coasts" not in off.answer


def test_a_factoid_question_keeps_its_one_sentence() -> None:
    ans = extract_answer("检查点默认多久做一次？", [_doc(CHECKPOINT)], max_sentences=1, elaboration=True)
    assert "五分钟" in ans.answer
    assert "备份工具" not in ans.answer


def test_what_does_not_go_on_with_a_sentence() -> None:
    sentence = "检查点是数据库把内存中的脏页写回数据文件的过程。"
    assert goes_on(sentence, "它让崩溃恢复只需重放最后一个检查点之后的日志。")
    assert goes_on(sentence, "Checkpoints run every five minutes.")
    assert not goes_on(sentence, "code: CHECKPOINT;")  # code
    assert not goes_on(sentence, "Setting: checkpoint_timeout | Default: 5min")  # a table row
    assert not goes_on(sentence, "长" * (MAX_CHARS + 1))  # too long to be one more sentence
    assert not goes_on("检查点可以这样触发：", "手动执行 CHECKPOINT 命令。")  # a colon brings its own


def test_the_next_sentence_under_another_heading_is_not_shown() -> None:
    text = "# 检查点\n\n检查点是数据库把脏页写回数据文件的过程。\n\n## 备份\n\n它会在备份开始时执行一次。\n"
    ans = extract_answer("什么是检查点？", [_doc(text)], max_sentences=1, elaboration=True)
    assert "写回数据文件" in ans.answer and "备份开始" not in ans.answer


@pytest.mark.parametrize(("question", "procedure"), [
    ("How do I enable checkpoints?", True),
    ("how to trigger a checkpoint by hand", True),
    ("用 Gradle 的话，怎么在本地把应用跑起来？", True),
    ("改了配置之后，要怎样才能生效？", True),
    ("弗里西亚群岛是怎么形成的？", False),  # how it came about: a passage answers it
    ("How does advection fog form?", False),
    ("检查点的作用是什么？", False),
])
def test_how_to_questions_are_told_from_how_something_is(question: str, procedure: bool) -> None:
    assert asks_procedure(question) is procedure


def test_a_how_to_or_a_named_thing_keeps_its_one_sentence() -> None:
    text = ("# Checkpoints\n\nRun CHECKPOINT as a superuser to write every dirty page at once. It blocks until the write ends, "
            "so avoid it under load.\n")
    how = extract_answer("How do I write every dirty page at once?", [_doc(text)], max_sentences=1, elaboration=True)
    assert "Run CHECKPOINT" in how.answer and "blocks until" not in how.answer
    which = extract_answer("Which command writes every dirty page at once, and why?", [_doc(text)], max_sentences=1, elaboration=True)
    assert "Run CHECKPOINT" in which.answer and "blocks until" not in which.answer
    why = extract_answer("Why does CHECKPOINT write every dirty page at once?", [_doc(text)], max_sentences=1, elaboration=True)
    assert "Run CHECKPOINT" in why.answer and "blocks until" in why.answer


def test_an_answer_read_from_a_field_line_keeps_its_one_line() -> None:
    text = "# Options\n\n### readonly\n\nType: `boolean`\n\nWhen enabled, the cache is only read, never written.\n"
    ans = extract_answer("readonly 的类型是什么？", [_doc(text)], max_sentences=1, elaboration=True)
    assert "boolean" in ans.answer and "never written" not in ans.answer
