"""`bench/spider_unseen.py`: the questions of the databases that the shared Spider questions never use."""

from __future__ import annotations

import json
from pathlib import Path


def _dev(db: str, en: str, zh: str, sql: str) -> dict:
    return {"db_id": db, "question": {"en": en, "zh": zh, "vi": "-"}, "mr": {"sql": sql, "sql_toks": []}}


def _spider(tmp_path: Path) -> Path:
    spider = tmp_path / "spider"
    for db in ("used", "free"):
        (spider / "database" / db).mkdir(parents=True)
    (spider / "tables.json").write_text("[]", encoding="utf-8")
    (spider / "questions.jsonl").write_text(json.dumps({"id": 0, "db_id": "used"}) + "\n", encoding="utf-8")
    return spider


def test_only_databases_present_and_never_asked_about_are_kept(tmp_path, bench_module):
    dev = [_dev("used", "How many?", "多少？", "SELECT 1"), _dev("free", "Name all.", "所有名字。", "SELECT name FROM t"),
           _dev("absent", "Any?", "有吗？", "SELECT 2"), _dev("free", "Count.", "数量。", "SELECT count(*) FROM t")]
    rows = bench_module("spider_unseen").unseen_rows(dev, _spider(tmp_path))
    assert [r["id"] for r in rows] == [1, 3]
    assert rows[0] == {"id": 1, "db_id": "free", "question_en": "Name all.", "question_zh": "所有名字。",
                       "gold_sql": "SELECT name FROM t"}


def test_main_writes_a_folder_the_sql_evaluation_reads(tmp_path, monkeypatch, capsys, bench_module):
    from queryweave.eval.spider import load_questions

    module = bench_module("spider_unseen")
    monkeypatch.setattr(module, "SPIDER", _spider(tmp_path))
    dev = tmp_path / "dev.json"
    dev.write_text(json.dumps([_dev("free", "Name all.", "所有名字。", "SELECT name FROM t")]), encoding="utf-8")
    out = tmp_path / "out"
    assert module.main([str(dev), str(out)]) == 0
    assert json.loads(capsys.readouterr().out) == {"questions": 1, "databases": {"free": 1}}
    assert [r["question_zh"] for r in load_questions(out)] == ["所有名字。"]
    assert (out / "database" / "free").is_dir() and (out / "tables.json").exists()
    assert module.main([str(dev)]) == 2
