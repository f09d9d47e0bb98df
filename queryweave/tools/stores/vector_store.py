"""Dense vector store: LangChain's `Chroma` over an embedded `PersistentClient` or a Chroma server.

A server URL may name a database in its path (`http://host:8000/kb1`, created on first use); without
one the server's default database is used.

Always built with our own embedding function (Chroma's default one downloads a model and fails
offline). One collection per embedding model, so switching models never mixes vector spaces.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from langchain_core.embeddings import Embeddings

from queryweave.tools.stores.locks import busy, write_in_progress


def _client(data_dir: Path, chroma_url: str = "", generation: int = 0):
    """A Chroma client. Odd generations name the same folder as `chroma/.`: Chroma keeps one engine per
    path string in a process, so a new generation is a fresh engine that reads what other processes wrote."""
    import chromadb
    from chromadb.config import Settings

    settings = Settings(anonymized_telemetry=False, allow_reset=False)
    if chroma_url:
        u = urlparse(chroma_url)
        host, port, ssl = u.hostname or "localhost", u.port or 8000, u.scheme == "https"
        database = u.path.strip("/") or chromadb.DEFAULT_DATABASE
        if database != chromadb.DEFAULT_DATABASE:
            _ensure_database(host, port, ssl, database, settings)
        return chromadb.HttpClient(host=host, port=port, ssl=ssl, settings=settings, database=database)
    path = str(data_dir / "chroma") + ("/." if generation % 2 else "")
    return chromadb.PersistentClient(path=path, settings=settings)


def _ensure_database(host: str, port: int, ssl: bool, database: str, settings: Any) -> None:
    """Create the server database named in the URL's path (`http://host:8000/<database>`) if missing,
    so several knowledge bases can share one Chroma server without sharing collections. A name the
    server refuses is a `ValueError` saying so."""
    import chromadb
    from chromadb.errors import InvalidArgumentError, NotFoundError, UniqueConstraintError

    admin = chromadb.AdminClient(chromadb.config.Settings(
        **{**settings.model_dump(), "chroma_api_impl": "chromadb.api.fastapi.FastAPI",
           "chroma_server_host": host, "chroma_server_http_port": port, "chroma_server_ssl_enabled": ssl}))
    try:
        try:
            admin.get_database(database)
        except NotFoundError:
            try:
                admin.create_database(database)
            except UniqueConstraintError:  # another worker created it meanwhile
                pass
    except InvalidArgumentError as exc:
        raise ValueError(f"Chroma database {database!r} (the path of the Chroma URL): {exc}") from exc


def collection_name(embedding_name: str) -> str:
    """Chroma collection name for an embedding model (3-512 chars of [a-zA-Z0-9._-])."""
    safe = re.sub(r"[^a-zA-Z0-9._-]", "-", embedding_name).strip("-._") or "default"
    return f"chunks-{safe}"[:200]


def clean_metadata(meta: dict[str, Any]) -> dict[str, Any]:
    """Chroma metadata: scalars and non-empty lists of one scalar type only; None dropped."""
    out: dict[str, Any] = {}
    for key, value in meta.items():
        if value is None:
            continue
        if isinstance(value, (str, int, float, bool)):
            out[key] = value
        elif isinstance(value, (list, tuple)):
            items = [str(v) for v in value if v is not None]
            if items:
                out[key] = items
        else:
            out[key] = str(value)
    return out


def _transient(exc: Exception) -> bool:
    """Chroma errors a concurrent writer can cause (e.g. "Error finding id" while it deletes/upserts)."""
    return type(exc).__module__.startswith("chromadb") or "Error finding id" in str(exc)


class VectorStore:
    """Chunks' embeddings in Chroma, keyed by chunk id."""

    def __init__(self, data_dir: Path, embeddings: Embeddings, embedding_name: str, chroma_url: str = "",
                 generation: int = 0) -> None:
        self.embeddings = embeddings
        self.on_change: Callable[[], None] | None = None
        """Called before vectors are written or deleted (the knowledge base retires its dense index)."""
        self.data_dir = None if chroma_url else data_dir  # a local store: writes are marked in the data dir
        from langchain_chroma import (
            Chroma,  # here, not at import: a question answered from the dense index never loads it
        )

        self.client = _client(data_dir, chroma_url, generation)
        self.store = Chroma(
            client=self.client,
            collection_name=collection_name(embedding_name),
            embedding_function=embeddings,
            collection_metadata={"hnsw:space": "cosine"},
        )

    def _met_a_write(self, exc: Exception) -> bool:
        """Whether a failed read of a local store met another process's write: one in progress now, or one
        that just ended ("Error finding id": the ids it read were changed under it; the writer's marker
        may already be gone when the last retry fails)."""
        return (_transient(exc) and self.data_dir is not None
                and (write_in_progress(self.data_dir) or "Error finding id" in str(exc)))

    def close(self) -> None:
        """Release the client (its engine stops when no other client in this process shares it)."""
        close = getattr(self.client, "close", None)
        if close is not None:
            close()

    @property
    def collection(self):
        """The underlying chromadb collection."""
        return self.store._collection

    def existing_ids(self, ids: list[str]) -> set[str]:
        """Which of `ids` are already stored."""
        found: set[str] = set()
        for start in range(0, len(ids), 1000):
            found.update(self.collection.get(ids=ids[start : start + 1000], include=[])["ids"])
        return found

    def add(self, ids: list[str], texts: list[str], metadatas: list[dict[str, Any]], index_texts: list[str]) -> None:
        """Upsert chunks; `index_texts` (content plus index-only expansions) is what gets embedded."""
        if not ids:
            return
        vectors = self.embeddings.embed_documents(index_texts)
        if self.on_change is not None:
            self.on_change()
        self.collection.upsert(ids=ids, embeddings=vectors, documents=texts,
                               metadatas=[clean_metadata(m) for m in metadatas])

    def get_embeddings(self, ids: list[str]) -> dict[str, Any]:
        """`collection.get(ids, include=["embeddings"])`, retried like `search` while another process
        writes (busy when a write is under way and the error persists)."""
        return self._read(lambda: self.collection.get(ids=ids, include=["embeddings"]))

    def _read(self, call: Callable[[], Any]) -> Any:
        """`call()`, retried with backoff while another process's write makes it fail for a moment; then
        busy when it met a write (`_met_a_write`), else the error itself."""
        for attempt in range(4):
            try:
                return call()
            except Exception as exc:
                if not _transient(exc) or attempt == 3:
                    if self._met_a_write(exc):
                        raise busy(self.data_dir) from exc
                    raise
                time.sleep(0.05 * 2**attempt)
        raise AssertionError("unreachable")  # pragma: no cover

    def delete(self, ids: list[str]) -> None:
        """Remove chunks by id."""
        if ids and self.on_change is not None:
            self.on_change()
        for start in range(0, len(ids), 1000):
            if ids[start : start + 1000]:
                self.collection.delete(ids=ids[start : start + 1000])

    def all_ids(self) -> list[str]:
        """Every stored id (for consistency checks)."""
        return list(self.collection.get(include=[])["ids"])

    def count(self) -> int:
        """Number of stored vectors."""
        return int(self.collection.count())

    def search(self, query: str, n: int, where: dict | None = None,
               query_vector: list[float] | None = None) -> list[tuple[str, float]]:
        """Top-n (id, cosine similarity) for a query, optionally under a metadata filter."""
        total = self.count()
        if total == 0 or n <= 0:
            return []
        vec = query_vector if query_vector is not None else self.embeddings.embed_query(query)
        res = self._read(lambda: self.collection.query(query_embeddings=[vec], n_results=min(n, self.count()),
                                                       where=where or None, include=["distances"]))
        return [(i, 1.0 - float(d)) for i, d in zip(res["ids"][0], res["distances"][0], strict=False)]
