"""The retrieval log, the tuner's proposals (from the log and from an eval result), and `queryweave tune`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from queryweave.cli.main import main
from queryweave.config import Context
from queryweave.tools.retrieval import tuner
from queryweave.tools.retrieval.profiles import settings_for_context, tuned_k
from queryweave.tools.stores.querylog import LogEntry, RetrievalLog


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.servers)])
def log_url(request) -> str:
    """Where the retrieval log lives: "" (SQLite in the data dir) or a new PostgreSQL database."""
    return request.getfixturevalue("pg_url") if request.param == "postgres" else ""


def _fill(log: RetrievalLog, intent: str, strategy: str, n: int, feedback: int | None, rel_rank: int | None = None,
          k: int = 5, ms: float = 100.0) -> list[str]:
    ids = []
    for i in range(n):
        results = [f"c{j}" for j in range(10)]
        qid = log.log(LogEntry(query=f"{intent} q{i}", strategy=strategy, k=k, latency_ms=ms, result_ids=results,
                               intent=intent))
        if feedback is not None:
            assert log.feedback(qid, feedback, [results[rel_rank - 1]] if rel_rank else None)
        ids.append(qid)
    return ids


def test_log_feedback_and_summary(tmp_path: Path, log_url: str):
    log = RetrievalLog(tmp_path, log_url)
    qid = log.log(LogEntry(query="q", strategy="hybrid", k=5, latency_ms=12.5, result_ids=["a", "b"],
                           intent="factual"))
    assert not log.feedback("nope", 1)
    assert log.feedback(qid, -1, ["b"])
    (e,) = list(log.entries())
    assert (e.feedback, e.relevant_ids, e.result_ids, e.k) == (-1, ["b"], ["a", "b"], 5)
    assert log.summary() == {"factual/hybrid": {"n": 1, "mean_ms": 12.5, "up": 0, "down": 1}}
    assert log.feedback_for_query("q", 1) and not log.feedback_for_query("never asked", 1)
    assert next(log.entries()).feedback == 1
    log.close()
    assert RetrievalLog(tmp_path, log_url).count() == 1  # persisted (the data dir, or the database)


def test_tuner_k_from_relevant_ranks_and_negative_feedback(tmp_path: Path, log_url: str):
    log = RetrievalLog(tmp_path, log_url)
    _fill(log, "factual", "prf", 9, 1, rel_rank=2, k=8)
    _fill(log, "factual", "prf", 1, 1, rel_rank=3, k=8)
    _fill(log, "comprehensive", "prf", 6, -1, k=6)
    props = {(p.intent, p.setting): p for p in tuner.from_log(log)}
    assert props[("factual", "k")].proposed == 2 and props[("factual", "k")].current == 8
    assert "top 2" in props[("factual", "k")].reason
    assert props[("comprehensive", "k")].proposed == 9 and "unhelpful" in props[("comprehensive", "k")].reason


def test_tuner_strategy_from_feedback(tmp_path: Path, log_url: str):
    log = RetrievalLog(tmp_path, log_url)
    _fill(log, "fuzzy", "hybrid", 8, -1)
    _fill(log, "fuzzy", "prf", 6, 1, ms=150)
    (p,) = [p for p in tuner.from_log(log) if p.setting == "strategy"]
    assert (p.current, p.proposed) == ("hybrid", "prf") and "feedback" in p.reason
    assert tuner.from_log(RetrievalLog(tmp_path / "empty")) == []


def test_tuner_from_eval_picks_best_and_cheaper_on_ties():
    q = {f"q{i}": "What is the default value of max_connections?" for i in range(6)}
    qrels = {qid: {"d1": 1.0} for qid in q}
    runs = {"hybrid": {qid: ["a", "b", "c", "e", "f", "g", "h", "d1"] for qid in q},
            "+prf": {qid: ["a", "b", "c", "d1"] for qid in q},
            "full": {qid: ["a", "b", "c", "d1"] for qid in q}}
    rows = [{"name": "hybrid", "ms_per_query": 10}, {"name": "+prf", "ms_per_query": 20},
            {"name": "full", "ms_per_query": 90}]
    props, table = tuner.from_eval({"query_texts": q, "qrels": qrels, "runs": runs, "rows": rows},
                                   {"factual": "hybrid"})
    by = {(p.intent, p.setting): p for p in props}
    assert by[("factual", "strategy")].proposed == "+prf"  # full ties with +prf but costs more
    assert (by[("factual", "k")].current, by[("factual", "k")].proposed) == (3, 5)  # recall@5 = 1, recall@3 = 0
    assert table["factual"]["rows"]["hybrid"]["ndcg@10"] < table["factual"]["rows"]["+prf"]["ndcg@10"]


def test_apply_is_followed_by_the_settings(tmp_path: Path):
    ctx = Context(data_dir=str(tmp_path), llm="rules", profile="fast")
    assert settings_for_context(ctx, "fuzzy").prf is False
    tuner.apply(tmp_path, [tuner.Proposal("fuzzy", "strategy", "hybrid", "+prf", "why", "eval"),
                           tuner.Proposal("fuzzy", "k", 4, 7, "why", "eval")])
    assert settings_for_context(ctx, "fuzzy").prf is True
    assert settings_for_context(ctx, "factual").prf is False
    assert tuned_k(tmp_path, "fuzzy") == 7 and tuned_k(tmp_path, "factual") is None
    off = Context(data_dir=str(tmp_path), llm="rules", profile="fast", features="prf=off")
    assert settings_for_context(off, "fuzzy").prf is False  # explicit switches win


def test_tune_cli(tmp_path: Path, capsys, log_url: str, monkeypatch):
    monkeypatch.setenv("QUERYWEAVE_DATABASE_URL", log_url)  # the CLI reads the log where the settings say
    assert main(["--data-dir", str(tmp_path), "tune"]) == 2
    assert "nothing to tune" in capsys.readouterr().err
    log = RetrievalLog(tmp_path, log_url)
    _fill(log, "factual", "prf", 6, 1, rel_rank=1, k=6)
    assert main(["--data-dir", str(tmp_path), "tune"]) == 0
    out = capsys.readouterr().out
    assert "factual: k 6 -> 1" in out and "--apply" in out
    assert main(["--data-dir", str(tmp_path), "tune", "--apply", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["applied"] == {"factual": {"k": 1}}
    assert json.loads((tmp_path / "tuning.json").read_text()) == {"factual": {"k": 1}}


def test_popular_queries_live_in_the_same_module(tmp_path):
    from queryweave.tools.stores import querylog

    log = querylog.PopularQueries(tmp_path / "suggest" / "popular.sqlite")
    assert log.record("  How   do I tune Gradle? ") == log.record("how do i tune gradle?")
    log.record("PgBouncer pools")
    assert log.record("x") is None  # too short to keep
    assert [(t, c) for _, t, c in log.top()] == [("How do I tune Gradle?", 2), ("PgBouncer pools", 1)]
    log.close()
    assert querylog.PopularQueries(tmp_path / "suggest" / "popular.sqlite").top()[0][2] == 2  # persisted
    assert not hasattr(querylog, "QueryLog")  # one name per log: no ambiguous alias
