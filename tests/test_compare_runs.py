"""`bench/compare_answer_runs.py`: two runs of `eval answers --items` compared question by question."""

from __future__ import annotations

import json
from pathlib import Path


def _items(path: Path, rows: list[tuple[str, list[str], str, float, bool]]) -> str:
    lines = [{"system": "baseline", "id": "x", "question": "q", "gold": ["1"], "answer": "1", "cited": [],
              "confidence": 1.0, "abstained": False, "ms": 0.0, "features": None}]
    lines += [{"system": "pipeline", "id": i, "question": f"question {i}", "gold": gold, "answer": answer,
               "cited": [], "confidence": conf, "abstained": declined, "ms": 0.0, "features": None}
              for i, gold, answer, conf, declined in rows]
    path.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines) + "\n", encoding="utf-8")
    return str(path)


def test_gained_lost_and_declines_per_question(tmp_path, capsys, bench_module):
    compare = bench_module("compare_answer_runs")
    before = _items(tmp_path / "before.jsonl", [
        ("a", ["100"], "The default is 100.", 0.9, False),   # right in both
        ("b", ["10"], "It opens connections.", 0.4, False),  # gained
        ("c", ["30000"], "30000 ms", 0.8, False),            # lost (declined after)
        ("u", [], "Not in the corpus.", 0.0, True),          # unanswerable: declined, then answered
    ])
    after = _items(tmp_path / "after.jsonl", [
        ("a", ["100"], "The default is 100.", 0.9, False),
        ("b", ["10"], "maximumPoolSize — Default: 10", 0.7, False),
        ("c", ["30000"], "No answer.", 0.0, True),
        ("u", [], "Something unrelated.", 0.6, False),
    ])
    assert compare.compare(before, after, show=True) == (1, 1)
    out = capsys.readouterr().out
    assert "+1 / -1" in out and "question b" in out and "question u" in out
    assert compare.summary(compare.pipeline_rows(before))["declined"] == 1.0
    assert compare.summary(compare.pipeline_rows(after))["declined"] == 0.0
    assert compare.summary(compare.pipeline_rows(after))["wrong_declined"] == 1 / 3
    assert compare.main([before]) == 2  # a pair is needed
