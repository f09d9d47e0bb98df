"""A Chinese question translated before Text-to-SQL keeps its quoted values as written, so the
value mapping still compares them with the stored values (`tools.sql.translate`)."""


import pytest

from queryweave.testing import ScriptedChatModel
from queryweave.tools.sql.text_to_sql import TextToSQL
from queryweave.tools.sql.translate import english_question, keep_quoted


def test_quoted_spans_of_the_translation_become_the_original_text():
    zh = "显示名称为“欢迎来到纽约”的文件的所有段落ID和文本。"
    en = 'What are the paragraph IDs and text of the file named "Welcome to New York"?'
    assert keep_quoted(zh, en) == 'What are the paragraph IDs and text of the file named "欢迎来到纽约"?'
    # in order, whatever quotation marks the translation used; an apostrophe is not a quote
    two = keep_quoted("“小明”和“小红”的年龄", "the ages of 'Xiao Ming' and “Xiao Hong” (Lu's friends)")
    assert two == "the ages of \"小明\" and \"小红\" (Lu's friends)"
    # a question that quotes nothing leaves the translation alone
    assert keep_quoted("有多少歌手？", 'How many "singers" are there?') == 'How many "singers" are there?'
    # a translation that lost a quoted value cannot be repaired: not used
    assert keep_quoted("列出所有“美国”的航空公司", "List all American airlines.") == ""


def test_the_reply_is_checked_after_the_values_are_put_back():
    zh = "列出所有“美国”的航空公司的名字和缩写。"
    llm = ScriptedChatModel(responses=['"List the names and abbreviations of all airlines of "USA"."'])
    assert english_question(llm, zh) == 'List the names and abbreviations of all airlines of "美国".'
    # a reply that starts and ends with a quoted value is not one quoted reply
    llm = ScriptedChatModel(responses=['"Amy" is older than "Bob"'])
    assert english_question(llm, "“小美”比“小博”大吗") == '"小美" is older than "小博"'
    llm = ScriptedChatModel(responses=['"How many singers are there?"'])
    assert english_question(llm, "有多少歌手？") == "How many singers are there?"
    # Chinese outside the quoted values: not a translation
    llm = ScriptedChatModel(responses=['列出 airlines of "USA"'])
    assert english_question(llm, zh) == ""
    llm = ScriptedChatModel(responses=["List all American airlines."])
    assert english_question(llm, zh) == ""


@pytest.fixture()
def flights(sql_db_from):
    return sql_db_from("CREATE TABLE airlines (uid INTEGER PRIMARY KEY, Airline TEXT, Abbreviation TEXT, Country TEXT);"
        "INSERT INTO airlines VALUES (1, 'United Airlines', 'UAL', 'USA'), (2, 'Lufthansa', 'DLH', 'Germany'),"
        "(3, 'American Airlines', 'AAL', 'USA');", "flights.sqlite")


def test_a_quoted_value_kept_in_chinese_is_mapped_to_the_stored_one(flights):
    llm = ScriptedChatModel(responses=[
        'List the names and abbreviations of all airlines from "America".',  # the translation
        "```sql\nSELECT Airline, Abbreviation FROM airlines WHERE Country = '美国'\n```",
        "USA",  # the value mapping's call: how the column stores '美国'
    ])
    answer = TextToSQL(flights, llm, translate_questions=True, examples=0, shape_select=0).ask(
        "列出所有“美国”的航空公司的名字和缩写。", lang="zh")
    assert answer.translation == 'List the names and abbreviations of all airlines from "美国".'
    assert llm.calls[1][-1].content.endswith('airlines from "美国".')  # the prompt is the English one
    assert answer.ok and sorted(answer.rows) == [("American Airlines", "AAL"), ("United Airlines", "UAL")]
    assert "'美国' -> 'USA'" in answer.attempts[0]["repairs"]


def test_bilingual_shows_the_translation_beside_the_chinese_question(flights):
    llm = ScriptedChatModel(responses=[
        'List the names and abbreviations of all airlines from "America".',  # the translation
        "```sql\nSELECT Airline, Abbreviation FROM airlines WHERE Country = '美国'\n```",
        "USA",
    ])
    question = "列出所有“美国”的航空公司的名字和缩写。"
    answer = TextToSQL(flights, llm, bilingual=True, examples=0, shape_select=0).ask(question, lang="zh")
    last = llm.calls[1][-1].content
    assert last.startswith(f"问题：{question}")  # the Chinese question stays, in the Chinese prompt
    assert last.endswith('（英文：List the names and abbreviations of all airlines from "美国".）')
    assert "数据库" in llm.calls[1][0].content  # the Chinese system prompt
    assert answer.ok and sorted(answer.rows) == [("American Airlines", "AAL"), ("United Airlines", "UAL")]
    # an unusable translation leaves the Chinese question alone; English questions are never translated
    llm = ScriptedChatModel(responses=["List all American airlines.",
                                       "```sql\nSELECT Airline FROM airlines WHERE Country = 'USA'\n```"])
    TextToSQL(flights, llm, bilingual=True, examples=0, shape_select=0).ask(question, lang="zh")
    assert llm.calls[1][-1].content == f"问题：{question}"
    llm = ScriptedChatModel(responses=["```sql\nSELECT Airline FROM airlines WHERE Country = 'USA'\n```"])
    TextToSQL(flights, llm, bilingual=True, examples=0, shape_select=0).ask("Which airlines are American?")
    assert len(llm.calls[0]) and llm.calls[0][-1].content == "Question: Which airlines are American?"


def test_english_prompt_around_a_chinese_question(flights):
    question = "列出所有“美国”的航空公司的名字和缩写。"
    replies = ['List the names and abbreviations of all airlines from "America".',
               "```sql\nSELECT Airline, Abbreviation FROM airlines WHERE Country = 'China'\n```",  # runs, empty
               "```sql\nSELECT Airline, Abbreviation FROM airlines WHERE Country = '美国'\n```", "USA"]
    llm = ScriptedChatModel(responses=replies)
    answer = TextToSQL(flights, llm, prompt_language="en", examples=2, shape_select=0).ask(question, lang="zh")
    system, *turns = llm.calls[1]
    assert system.content.startswith("You write one SQLite SELECT query")
    assert "The question is in Chinese" in system.content  # values may be translated
    assert turns[0].content.startswith("Question: ") and "列出" not in turns[0].content  # English examples
    # the question itself is unchanged, with its translation beside it in the English form
    assert turns[-1].content == f'Question: {question}\n(In English: List the names and abbreviations of ' \
                                'all airlines from "美国".)'
    assert "These queries failed" in llm.calls[2][-1].content  # the repair turn is English too
    assert answer.ok and sorted(answer.rows) == [("American Airlines", "AAL"), ("United Airlines", "UAL")]
    # the same question without the setting: Chinese all through
    llm = ScriptedChatModel(responses=replies)
    TextToSQL(flights, llm, examples=2, shape_select=0).ask(question, lang="zh")
    assert "数据库" in llm.calls[1][0].content and "The question is in Chinese" not in llm.calls[1][0].content
    assert llm.calls[1][1].content.startswith("问题：")
    # English questions are the same with or without it
    sql = "```sql\nSELECT Airline FROM airlines WHERE Country = 'USA'\n```"
    calls = []
    for lang in (None, "en"):
        llm = ScriptedChatModel(responses=[sql])
        TextToSQL(flights, llm, prompt_language=lang, examples=2, shape_select=0).ask("Which airlines are American?")
        calls.append([m.content for m in llm.calls[0]])
    assert calls[0] == calls[1]


def test_eval_sql_cli_prompt_language(tmp_path, monkeypatch, capsys):
    from queryweave.cli import structured
    from tests.conftest import eval_sql_accuracy, spider_folder

    schema = "CREATE TABLE airlines (uid INTEGER PRIMARY KEY, Airline TEXT, Country TEXT);" \
             "INSERT INTO airlines VALUES (1, 'United Airlines', 'USA'), (2, 'Lufthansa', 'Germany');"
    folder = spider_folder(tmp_path, "flights", schema, {
        "question_en": "Which airlines are German?", "question_zh": "哪些航空公司是德国的？",
        "gold_sql": "SELECT Airline FROM airlines WHERE Country = 'Germany'"})

    def reader(messages):  # right only when the instructions around the Chinese question are English
        if "The question is in Chinese" in messages[0].content:
            return "```sql\nSELECT Airline FROM airlines WHERE Country = 'Germany'\n```"
        return "```sql\nSELECT Airline FROM airlines\n```"

    monkeypatch.setattr(structured, "_llm", lambda args: ScriptedChatModel(responses=[reader] * 12))
    flags = ("--languages", "zh", "--no-bilingual")
    assert eval_sql_accuracy(folder, capsys, *flags, "--prompt-language", "en") == 1.0
    assert eval_sql_accuracy(folder, capsys, *flags) == 0.0
