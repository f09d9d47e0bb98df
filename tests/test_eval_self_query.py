"""`queryweave eval self-query`: labelled questions read, filters compared with their labels (order of `in`
values and the OR between tags included), rows per system and language, the query constructor counted
when a model is configured, clean errors."""

import json

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.structured_query import Comparator, Comparison, Operation, Operator, StructuredQuery

from queryweave.cli.main import main
from queryweave.eval.self_query import SelfQueryItem, check_labels, evaluate, read_self_query, score
from queryweave.tools.retrieval.self_query import MetadataSchema, extract

SCHEMA = {
    "document_contents": "Pages of a developer portal. 开发者门户的页面。",
    "fields": [
        {"name": "page_type", "type": "string", "description": "Kind of page. 页面类型。",
         "values": ["tutorial", "api_reference", "release_notes"]},
        {"name": "tool", "type": "string", "description": "Tool of the samples. 示例工具。", "values": ["cli", "terraform"]},
        {"name": "tags", "type": "list", "description": "Topics. 主题。", "values": ["backup", "monitoring"]},
        {"name": "updated_year", "type": "integer", "description": "Year last updated. 最后更新的年份。"},
    ]}
ROWS = [
    {"query": "Terraform tutorials from 2021 on", "lang": "en",
     "filter": [["page_type", "eq", "tutorial"], ["tool", "eq", "terraform"], ["updated_year", "gte", 2021]]},
    {"query": "CLI 或者 Terraform 的教程", "lang": "zh", "filter": [["tool", "in", ["terraform", "cli"]],
                                                              ["page_type", "eq", "tutorial"]]},
    {"query": "how do I log in?", "lang": "en", "filter": []},
    {"query": "release notes about backups", "lang": "en",  # labelled wrong on purpose: the rules find backup
     "filter": [["page_type", "eq", "release_notes"]]},
]


def _write(path, rows):
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8")
    return path


def test_reader_and_clear_errors(tmp_path):
    items = read_self_query(_write(tmp_path / "q.jsonl", ROWS))
    assert [i.lang for i in items] == ["en", "zh", "en", "en"] and items[1].filter[0] == ("tool", "in", ["terraform", "cli"])
    bad = _write(tmp_path / "bad.jsonl", [ROWS[0], {"query": "x", "filter": [["tool", "equals", "cli"]]}])
    with pytest.raises(ValueError, match=r"bad.jsonl:2: .*unknown comparator"):
        read_self_query(bad)
    assert read_self_query(_write(tmp_path / "l.jsonl", [{"query": "年假怎么请", "filter": []}]))[0].lang == "zh"


def test_score_compares_sets_in_lists_and_or():
    item = SelfQueryItem("q", "en", (("tool", "in", ["terraform", "cli"]),))
    assert score(item, StructuredQuery(query="q", filter=Comparison(
        comparator=Comparator.IN, attribute="tool", value=["cli", "terraform"]))).exact
    wrong = score(item, StructuredQuery(query="q", filter=Comparison(comparator=Comparator.EQ, attribute="tool", value="cli")))
    assert not wrong.exact and wrong.extra == {("tool", "eq", "cli")} and wrong.missing == {("tool", "in", ("cli", "terraform"))}
    tags = (("tags", "contain", "backup"), ("tags", "contain", "monitoring"))
    either = StructuredQuery(query="q", filter=Operation(operator=Operator.OR, arguments=[
        Comparison(comparator=Comparator.CONTAIN, attribute="tags", value=v) for v in ("backup", "monitoring")]))
    assert score(SelfQueryItem("q", "en", tags, "or"), either).exact
    assert not score(SelfQueryItem("q", "en", tags, "and"), either).exact  # OR where the label says AND


def test_evaluate_rules_per_language():
    schema = MetadataSchema.from_dict(SCHEMA)
    items = [SelfQueryItem(r["query"], r["lang"], tuple(tuple(c) for c in r["filter"])) for r in ROWS]
    seen = []
    result = evaluate(items, {"rules": lambda q: extract(q, schema)}, on_scored=lambda name, s: seen.append(s))
    rows = result["rows"]["rules"]
    assert result["n"] == 4 and rows["en"]["n"] == 3 and rows["zh"]["n"] == 1
    assert rows["zh"]["exact"] == 1.0 and rows["en"]["exact"] == pytest.approx(2 / 3, abs=0.001)
    last = seen[-1]
    assert not last.exact and ("tags", "contain", "backup") in last.extra
    assert rows["all"]["precision"] < 1.0 and rows["all"]["recall"] == 1.0 and rows["all"]["llm"] == 0


def test_labels_naming_unknown_fields_are_reported():
    schema = MetadataSchema.from_dict(SCHEMA)
    assert check_labels([SelfQueryItem("q", "en", (("colour", "eq", "red"),), line=7)], schema) == [
        "line 7: field 'colour' is not in the schema"]


def test_cli_rules_json_and_items(tmp_path, capsys):
    data, schema, items = _write(tmp_path / "q.jsonl", ROWS), tmp_path / "schema.json", tmp_path / "items.jsonl"
    schema.write_text(json.dumps(SCHEMA), encoding="utf-8")
    assert main(["--llm", "rules", "eval", "self-query", str(data), "--schema", str(schema), "--no-embeddings",
                 "--json", "--items", str(items)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out["rows"]) == {"rules"} and out["rows"]["rules"]["all"]["exact"] == 0.75 and not out["embeddings"]
    lines = [json.loads(x) for x in items.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == 4 and [x["exact"] for x in lines] == [True, True, True, False]


def test_cli_reads_the_data_dirs_schema_and_reports_errors(tmp_path, capsys):
    data = _write(tmp_path / "q.jsonl", ROWS[:1])
    (tmp_path / "dd").mkdir()
    (tmp_path / "dd" / "metadata_schema.json").write_text(json.dumps(SCHEMA), encoding="utf-8")
    assert main(["--llm", "rules", "--data-dir", str(tmp_path / "dd"), "eval", "self-query", str(data),
                 "--no-embeddings"]) == 0
    assert "rules      en" in capsys.readouterr().out
    assert main(["--llm", "rules", "eval", "self-query", str(data), "--schema", str(tmp_path / "none.json")]) == 2
    assert "none.json" in capsys.readouterr().err
    assert main(["--llm", "rules", "eval", "self-query", str(_write(tmp_path / "e.jsonl", []))]) == 2


def test_cli_with_a_model_adds_the_query_constructor_row(tmp_path, capsys, monkeypatch):
    answer = '```json\n{"query": "pages", "filter": "eq(\\"tool\\", \\"cli\\")"}\n```'
    monkeypatch.setattr("queryweave.models.get_chat_model", lambda settings: FakeListChatModel(responses=[answer] * 8))
    rows = [{"query": "pages tagged zzz written by the ops team", "lang": "en", "filter": [["tool", "eq", "cli"]]}]
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(SCHEMA), encoding="utf-8")
    assert main(["eval", "self-query", str(_write(tmp_path / "q.jsonl", rows)), "--schema", str(schema),
                 "--no-embeddings", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)["rows"]
    assert out["rules"]["all"]["exact"] == 0.0 and out["rules"]["all"]["llm"] == 0  # the rules find nothing
    assert out["rules+llm"]["all"]["exact"] == 1.0 and out["rules+llm"]["all"]["llm"] == 1
    assert out["llm"]["all"]["llm"] == 1  # asked for every question
