"""Search suggestions: prefix matching at word starts, ranking, popular log, persistence, neighbours."""

from __future__ import annotations

import numpy as np
import pytest

from queryweave.tools.suggest.suggester import Suggester, record_query

TITLES = ["Gradle", "Gradle Build Cache", "Gradle daemon memory settings", "Configuring the build cache",
          "JVM 内存模型", "Redis 内存优化", "内存泄漏排查指南", "Kotlin DSL primer"]
HEADINGS = ["Build cache keys", "Remote cache", "Gradle"]


@pytest.fixture
def sug(tmp_path):
    s = Suggester(tmp_path)
    s.add(TITLES, "title")
    s.add(HEADINGS, "heading")
    return s.build()


def texts(results):
    return [r.text for r in results]


def test_prefix_is_case_insensitive_and_start_matches_rank_first(sug):
    out = sug.suggest("GRA")
    assert texts(out) == ["Gradle", "Gradle Build Cache", "Gradle daemon memory settings"]
    assert out[0].source == "title"  # the same text as a heading stays one title


def test_word_start_inside_titles(sug):
    out = texts(sug.suggest("cache"))
    assert set(out) == {"Gradle Build Cache", "Configuring the build cache", "Build cache keys", "Remote cache"}
    assert "Gradle Build Cache" not in texts(sug.suggest("ache"))


def test_chinese_prefix(sug):
    out = sug.suggest("内存")
    assert out[0].text == "内存泄漏排查指南"  # starts with the prefix
    assert {"JVM 内存模型", "Redis 内存优化"} <= set(texts(out))


def test_popularity_ranks_within_same_position_and_logs_queries(sug, tmp_path):
    for _ in range(3):
        sug.record_query("Gradle daemon memory settings")
    sug.record_query("gradle offline mode")
    out = sug.suggest("gradle")
    assert out[0].text == "Gradle daemon memory settings" and out[0].source == "popular"
    assert out[1].text == "gradle offline mode"
    assert out[0].score > out[1].score
    # match position beats popularity: a popular text matched inside ranks after a start match
    for _ in range(5):
        sug.record_query("Gradle Build Cache")
    assert texts(sug.suggest("build")) == ["Build cache keys", "Gradle Build Cache", "Configuring the build cache"]
    assert texts(Suggester(tmp_path).suggest("gradle off")) == ["gradle offline mode"]


def test_limit_and_empty(sug):
    assert len(sug.suggest("g", limit=2)) == 2
    assert sug.suggest("") == [] and sug.suggest("zzz") == []


def test_save_and_load(sug, tmp_path):
    sug.save()
    loaded = Suggester.load(tmp_path)
    assert texts(loaded.suggest("remote")) == ["Remote cache"]
    assert texts(loaded.suggest("内存")) == texts(sug.suggest("内存"))
    record_query("内存泄漏怎么排查", tmp_path)
    assert "内存泄漏怎么排查" in texts(Suggester.load(tmp_path).suggest("内存泄漏"))


class _FakeEmbeddings:
    """Bag-of-letters vectors: deterministic, and 'cache' titles sit close to each other."""

    def embed_documents(self, texts):
        out = []
        for t in texts:
            v = np.zeros(64)
            for ch in t.lower():
                v[ord(ch) % 64] += 1
            out.append(v.tolist())
        return out


def test_semantic_neighbours_fill_remaining_slots(tmp_path):
    s = Suggester(tmp_path)
    s.add(["Remote build cache", "Local build cache", "Kotlin coroutines"], "title")
    s.build(embeddings=_FakeEmbeddings(), neighbours=1, min_similarity=0.7)
    out = s.suggest("remote", limit=3)
    assert out[0].text == "Remote build cache"
    assert [(r.text, r.source) for r in out[1:]] == [("Local build cache", "semantic")]


def test_open_suggester_builds_from_the_catalog_and_rebuilds_after_ingestion(tmp_path):
    from queryweave.tools.stores.catalog import Catalog, ChunkRecord
    from queryweave.tools.suggest.suggester import open_suggester

    cat = Catalog(tmp_path / "catalog.sqlite")
    cat.replace_document("a.md", "f1", "PostgreSQL connection limits", {},
                         [ChunkRecord("c1", "a.md", 0, "text", "PostgreSQL connection limits > Timeouts")])
    sug = open_suggester(tmp_path, cat)
    assert [(r.text, r.source) for r in sug.suggest("time")] == [("Timeouts", "heading")]
    assert texts(open_suggester(tmp_path).suggest("postg")) == ["PostgreSQL connection limits"]  # saved
    cat.replace_document("b.md", "f2", "Redis 内存优化", {}, [ChunkRecord("c2", "b.md", 0, "text", None)])
    assert texts(open_suggester(tmp_path, cat).suggest("内存")) == ["Redis 内存优化"]
    cat.close()
