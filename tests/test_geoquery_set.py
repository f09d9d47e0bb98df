"""`bench/geoquery_set.py`: multilingual GeoQuery as a Spider-layout folder the SQL evaluation reads."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path


def _row(en: str, zh: str | None, sql: str | None) -> dict:
    question = {"en": en, "de": "-"} | ({"zh": zh} if zh is not None else {})
    return {"mr": {"sql": sql, "funql": "-"} if sql else {"funql": "-"}, "question": question}


def test_chinese_is_unsegmented_and_english_words_keep_their_spaces(bench_module):
    unsegment = bench_module("geoquery_set").unsegment
    assert unsegment("堪萨斯 州 最大 的 城市 是 哪个") == "堪萨斯州最大的城市是哪个"
    assert unsegment(" 哪些 州 与 new mexico 接壤 ？ ") == "哪些州与new mexico接壤？"
    assert unsegment("what is the biggest city") == "what is the biggest city"


def test_rows_need_both_languages_and_sql(bench_module):
    split = [_row("how large is alaska", "阿拉斯加 州 有 多大", 'SELECT AREA FROM STATE WHERE STATE_NAME = "alaska"'),
             _row("no chinese", None, "SELECT 1"), _row("no sql", "没有", None)]
    rows = bench_module("geoquery_set").rows_of(split)
    assert rows == [{"id": 0, "db_id": "geo", "question_en": "how large is alaska", "question_zh": "阿拉斯加州有多大",
                     "gold_sql": 'SELECT AREA FROM STATE WHERE STATE_NAME = "alaska"'}]


def test_main_writes_a_folder_the_sql_evaluation_scores(tmp_path: Path, capsys, bench_module):
    from queryweave.eval.spider import answerable, load_questions
    from queryweave.tools.sql.database import SqlDatabase

    db = tmp_path / "geography.sqlite"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE state (state_name text, area double)")
        con.execute("INSERT INTO state VALUES ('alaska', 591000.0)")
    split = tmp_path / "test.json"
    split.write_text(json.dumps([_row("how large is alaska", "阿拉斯加 州 有 多大",
                                      'SELECT AREA FROM STATE WHERE STATE_NAME = "alaska"'),
                                 _row("how large is utah", "犹他 州 有 多大",
                                      'SELECT AREA FROM STATE WHERE STATE_NAME = "utah"')]), encoding="utf-8")
    out = tmp_path / "out"
    module = bench_module("geoquery_set")
    assert module.main([str(split), str(db), str(out)]) == 0
    assert json.loads(capsys.readouterr().out) == {"questions": 2}
    rows = load_questions(out)
    assert [r["question_zh"] for r in rows] == ["阿拉斯加州有多大", "犹他州有多大"]
    geo = SqlDatabase(str(out / "database" / "geo" / "geo.sqlite"))
    try:
        keep, excluded = answerable(rows, {"geo": geo})
    finally:
        geo.close()
    assert keep == [0] and len(excluded) == 1  # 'utah' is no value of the copied database
    assert module.main([str(split)]) == 2
