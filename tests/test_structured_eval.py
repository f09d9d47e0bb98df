"""Execution-accuracy scoring, the Spider/text2cypher readers, and the `guard` / `eval sql|cypher` CLI."""

import io
import json
import sqlite3

import pytest

from queryweave.cli import structured
from queryweave.cli.main import main
from queryweave.eval.execution import orders, same_results
from queryweave.eval.spider import evaluate_sql, load_questions
from queryweave.testing import ScriptedChatModel


def test_rows_compare_as_multisets_unless_ordered():
    assert same_results([(1, "a"), (2, "b")], [(2, "b"), (1, "a")])
    assert not same_results([(1, "a"), (2, "b")], [(2, "b"), (1, "a")], ordered=True)
    assert not same_results([(1,), (1,)], [(1,)])
    assert same_results([("a", 1)], [(1, "a")])  # column permutation
    assert same_results([(2.0,)], [(2,)]) and same_results([(1 / 3,)], [(0.33333,)])
    assert same_results([({"name": "x", "_label": "P"},)], [({"name": "x"},)])
    assert orders("SELECT a FROM t ORDER BY a") and not orders("SELECT a FROM t")


@pytest.fixture()
def spider_dir(tmp_path):
    db_dir = tmp_path / "database" / "zoo"
    db_dir.mkdir(parents=True)
    con = sqlite3.connect(db_dir / "zoo.sqlite")
    con.executescript("CREATE TABLE animal (id INTEGER PRIMARY KEY, name TEXT, country TEXT, age INT);"
                      "INSERT INTO animal VALUES (1, 'Leo', 'France', 3), (2, 'Mia', 'Spain', 5), (3, 'Max', 'France', 7);")
    con.commit()
    con.close()
    rows = [
        {"id": 0, "db_id": "zoo", "question_en": "How many animals are there?", "question_zh": "有多少动物？",
         "gold_sql": "SELECT count(*) FROM animal"},
        {"id": 1, "db_id": "zoo", "question_en": "Names of animals from France by age.",
         "question_zh": "按年龄列出法国动物的名字。", "gold_sql": "SELECT name FROM animal WHERE country = 'France' ORDER BY age"},
    ]
    (tmp_path / "questions.jsonl").write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows), encoding="utf-8")
    return tmp_path


TRANSLATIONS = {"有多少动物？": "How many animals are there?", "按年龄列出法国动物的名字。": "Names of French animals by age."}


def _answers(messages):
    if "Translate this question" in messages[0].content:  # the pipeline's zh -> en step
        return TRANSLATIONS[messages[0].content.splitlines()[-1]]
    q = messages[-1].content if len(messages) > 1 else messages[0].content.split("uestion")[-1]
    if "many" in q or "多少" in q:
        return "SELECT count(*) FROM animal"
    if "法国" in q and "错误" not in q:  # first try copies the translated value; the repair turn fixes it
        return "SELECT name FROM animal WHERE country = '法国' ORDER BY age"
    return "SELECT name FROM animal WHERE country = 'France' ORDER BY age"


def test_spider_eval_by_language_with_baseline(spider_dir):
    assert len(load_questions(spider_dir, limit=1)) == 1
    report = evaluate_sql(spider_dir, ScriptedChatModel(responses=[_answers]), baseline=True,
                          translate_questions=True)
    assert report["n"] == 4 and report["execution_accuracy"] == 1.0
    assert report["by_language"]["zh"]["n"] == 2
    assert [i["translation"] for i in report["items"] if i["lang"] == "zh" and not i.get("baseline")] == [
        "How many animals are there?", "Names of French animals by age."]
    # the baseline has no value check: the translated literal 法国 finds nothing
    assert report["baseline"]["by_language"]["zh"]["execution_accuracy"] == 0.5


def test_guard_cli_prints_one_line_per_statement(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("SELECT 1\n\nDROP TABLE t\nSELECT load_extension('x')\n"))
    assert main(["guard", "sql"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert [x.split(":")[0] for x in lines] == ["allowed", "blocked", "blocked"]
    monkeypatch.setattr("sys.stdin", io.StringIO("MATCH (n) RETURN n\n"))
    assert main(["guard", "cypher"]) == 0
    assert capsys.readouterr().out.startswith("allowed")


def test_eval_sql_cli_json(spider_dir, monkeypatch, capsys):
    monkeypatch.setattr(structured, "_llm", lambda args: ScriptedChatModel(responses=[_answers]))
    assert main(["eval", "sql", str(spider_dir), "--json", "--languages", "en"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["execution_accuracy"] == 1.0 and out["n"] == 2 and set(out["by_language"]) == {"en"}


def test_eval_without_llm_fails_clearly(spider_dir, capsys):
    assert main(["--llm", "rules", "eval", "sql", str(spider_dir)]) == 2
    assert "needs an LLM" in capsys.readouterr().err


def test_eval_cypher_cli(tmp_path, monkeypatch, capsys):
    (tmp_path / "g.cypher").write_text(
        "CREATE (a:Person {name:'Ann', born:1970})\nCREATE (b:Person {name:'Bob', born:1980})\n"
        "CREATE (a)-[:FOLLOWS]->(b);\n", encoding="utf-8")
    rows = [{"question": "Who does Ann follow?", "cypher": "MATCH (:Person {name:'Ann'})-[:FOLLOWS]->(p) RETURN p.name"},
            {"question": "Who was born first?", "cypher": "MATCH (p:Person) RETURN p.name ORDER BY p.born LIMIT 1"}]
    (tmp_path / "questions.jsonl").write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    replies = ["MATCH (a:Person {name: 'Ann'})-[:FOLLOWS]->(b:Person) RETURN b.name",
               "MATCH (p:Person) RETURN p.name ORDER BY p.born DESC LIMIT 1"]
    monkeypatch.setattr(structured, "_llm", lambda args: ScriptedChatModel(responses=replies))
    assert main(["eval", "cypher", str(tmp_path), "--json", "--samples", "1"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["n"] == 2 and out["execution_accuracy"] == 0.5
    # with --baseline the naive one-shot prompt is scored on the same questions, in the same run
    replies[:] = replies + ["MATCH (p:Person) RETURN p.title", "MATCH (p:Person) RETURN p.name ORDER BY p.born LIMIT 1"]
    assert main(["eval", "cypher", str(tmp_path), "--json", "--baseline", "--retries", "0", "--examples", "0",
                 "--samples", "1"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["baseline"]["n"] == 2 and out["baseline"]["execution_accuracy"] == 0.5
    assert out["baseline"]["failed_to_run"] == 0.5
    # by default, as in the graph's node, 3 queries vote: two right samples outvote a wrong greedy one
    right = "MATCH (p:Person) RETURN p.name ORDER BY p.born LIMIT 1"
    fake = ScriptedChatModel(responses=[replies[1], right, right])
    monkeypatch.setattr(structured, "_llm", lambda args: fake)
    (tmp_path / "questions.jsonl").write_text(json.dumps(rows[1]), encoding="utf-8")
    assert main(["eval", "cypher", str(tmp_path), "--json", "--retries", "0"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["execution_accuracy"] == 1.0 and len(fake.calls) == 3


def test_gold_queries_comparing_with_values_the_data_never_holds_are_left_out(spider_dir, monkeypatch, capsys):
    from queryweave.eval.spider import absent_values
    from queryweave.tools.sql.database import SqlDatabase

    path = spider_dir / "questions.jsonl"
    rows = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]
    rows.append({"id": 2, "db_id": "zoo", "question_en": "Names of animals from Italy.",
                 "gold_sql": 'SELECT name FROM animal WHERE country = "Italy"'})  # "Italy" reads as a string
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows), encoding="utf-8")
    db = SqlDatabase(str(spider_dir / "database" / "zoo" / "zoo.sqlite"))
    assert absent_values(db, 'SELECT name FROM animal WHERE country = "Italy"') == ["animal.country = 'Italy'"]
    assert absent_values(db, "SELECT name FROM animal WHERE country = 'France'") == []
    assert absent_values(db, 'SELECT "name" FROM animal') == []  # a quoted column stays a column
    monkeypatch.setattr(structured, "_llm", lambda args: ScriptedChatModel(responses=[_answers]))
    assert main(["eval", "sql", str(spider_dir), "--json", "--languages", "en"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["n"] == 2 and out["excluded"] == 1 and "Italy" in out["excluded_items"][0]["reason"]
    assert main(["eval", "sql", str(spider_dir), "--json", "--languages", "en", "--keep-all"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["n"] == 3 and out["excluded"] == 0
