"""Cold start of the command line: `queryweave --help`, `stats` and `ask` in a new process each time.

Usage: python bench/bench_cold.py [--data-dir DIR] [--runs 20] [--tree PATH] [--json]

Each run is a fresh `python -m queryweave.cli.main ...` run in `--tree` with PYTHONPATH set to it
(default: this checkout; give another checkout to measure it the same way). `ask` runs on a copy of DIR made
for this benchmark with an empty cache dir, so every question is new to the process and to the
caches: its query embedding is part of the cost (rows "ask, new questions": a different question
from samples/eval/answers.jsonl each run, English and Chinese alternating), and a second row asks
one question again and again (its vectors cached). Without --data-dir the sample corpus is ingested
into a temporary data dir first (not timed). Wall time and CPU time (user + sys of the child) per
run; medians and p90 over the runs; the load average before and after is printed. Bytecode caches
are allowed (PYTHONDONTWRITEBYTECODE dropped), as for an installed package, and written by one untimed run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_once(argv: list[str], env: dict[str, str]) -> tuple[float, float, int]:
    """(wall s, CPU s, exit code) of one child process."""
    before = os.times()
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "queryweave.cli.main", *argv], env=env, cwd=env["PYTHONPATH"],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t
    after = os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    if proc.returncode != 0:
        print(proc.stderr[-1500:], file=sys.stderr)
    return wall, cpu, proc.returncode


def summary(rows: list[tuple[float, float, int]]) -> dict[str, float]:
    """Medians and p90 of wall and CPU, in seconds."""
    walls, cpus = sorted(r[0] for r in rows), sorted(r[1] for r in rows)
    p90 = max(0, round(0.9 * len(rows)) - 1)
    return {"runs": len(rows), "wall_p50": round(statistics.median(walls), 3), "wall_p90": round(walls[p90], 3),
            "cpu_p50": round(statistics.median(cpus), 3), "cpu_p90": round(cpus[p90], 3),
            "failures": sum(1 for r in rows if r[2] != 0)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=None, help="an ingested data dir (default: the sample corpus, ingested now)")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--tree", default=str(ROOT), help="the checkout whose code runs (PYTHONPATH)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="qw-cold-"))
    env = {**os.environ, "PYTHONPATH": args.tree, "QUERYWEAVE_LLM": "rules", "HF_HUB_OFFLINE": "1"}
    # as an installed package runs: bytecode caches written once (an environment that forbids them
    # would compile every module of the tree from source in every process, ~0.3 s here)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    source = Path(args.data_dir) if args.data_dir else None
    if source is None:
        source = work / "sample"
        subprocess.run([sys.executable, "-m", "queryweave.cli.main", "--data-dir", str(source), "ingest",
                        str(ROOT / "samples" / "corpus"), "--quiet"], env=env, cwd=args.tree, check=True)
    questions = [json.loads(line)["question"] for line in (ROOT / "samples/eval/answers.jsonl").open(encoding="utf-8")]
    en = [q for q in questions if not any("\u4e00" <= ch <= "\u9fff" for ch in q)]
    zh = [q for q in questions if any("\u4e00" <= ch <= "\u9fff" for ch in q)]
    mixed = [q for pair in zip(en, zh, strict=False) for q in pair][: args.runs]
    results: dict[str, dict[str, float]] = {}
    load_before = os.getloadavg()
    data = work / "data"  # a copy: the questions below are new to its sidecar of embedded texts
    shutil.copytree(source, data)
    cold_env = {**env, "QUERYWEAVE_CACHE_DIR": str(work / "cache")}
    run_once(["--data-dir", str(data), "stats"], {**env, "QUERYWEAVE_CACHE_DIR": str(work / "warm")})  # writes the bytecode
    results["--help"] = summary([run_once(["--help"], cold_env) for _ in range(args.runs)])
    results["stats"] = summary([run_once(["--data-dir", str(data), "stats"], cold_env) for _ in range(args.runs)])
    results["ask, new questions (en/zh)"] = summary(
        [run_once(["--data-dir", str(data), "ask", q], cold_env) for q in mixed])
    results["ask, one question again"] = summary(
        [run_once(["--data-dir", str(data), "ask", en[0]], cold_env) for _ in range(args.runs)])
    load_after = os.getloadavg()
    shutil.rmtree(work, ignore_errors=True)
    out = {"tree": args.tree, "load_before": [round(x, 2) for x in load_before],
           "load_after": [round(x, 2) for x in load_after], "results": results}
    if args.json:
        print(json.dumps(out, indent=2))
        return
    print(f"tree {args.tree}; load average before {out['load_before']}, after {out['load_after']}")
    print("| command | runs | wall p50 s | wall p90 s | CPU p50 s | CPU p90 s |")
    print("|---|---|---|---|---|---|")
    for name, r in results.items():
        print(f"| {name} | {r['runs']} | {r['wall_p50']} | {r['wall_p90']} | {r['cpu_p50']} | {r['cpu_p90']} |"
              + (f" ({r['failures']} failed)" if r["failures"] else ""))


if __name__ == "__main__":
    main()
