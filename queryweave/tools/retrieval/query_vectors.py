"""Query embeddings, memoised in memory and on disk by (model, text).

Repeated questions and evaluation reruns skip the embedding model: vectors live in
`query_vectors.sqlite` in the cache dir (float32 blobs). Document embeddings have their own cache
(`queryweave.tools.stores.embeddings`).

The on-disk cache is kept cheap on the query path: one connection per cache file for the process
(WAL, `synchronous=NORMAL`), a lookup is a plain read (no transaction, no commit), and new vectors
are written in batches — every `FLUSH_EVERY` new vectors or `FLUSH_SECONDS` after the oldest unsaved
one, and at interpreter exit — in one transaction. Until then they are served from memory. A crash
loses at most one batch of cache entries, never anything else.
"""

from __future__ import annotations

import atexit
import threading
from collections import OrderedDict
from pathlib import Path

from queryweave.tools.stores.blob_file import BatchedBlobFile
from queryweave.tools.stores.kb import KnowledgeBase

FLUSH_EVERY = 32
FLUSH_SECONDS = 5.0

_QVEC: OrderedDict[tuple[str, str], list[float]] = OrderedDict()
_QVEC_LOCK = threading.Lock()


class QueryVectorStore(BatchedBlobFile):
    """The SQLite file of query vectors: reads straight from the file, writes batched."""

    def __init__(self, path: str | Path) -> None:
        super().__init__(path, "q", "CREATE TABLE IF NOT EXISTS q (model TEXT, text TEXT, vec BLOB, "
                         "PRIMARY KEY (model, text))", 3, FLUSH_EVERY, FLUSH_SECONDS)

    def get(self, key: tuple[str, str]) -> bytes | None:
        """The stored vector blob for (model, text), unsaved ones included; None when absent."""
        with self.lock:
            if key in self.pending:
                return self.pending[key]
            row = self.conn.execute("SELECT vec FROM q WHERE model=? AND text=?", key).fetchone()
        return row[0] if row is not None else None

    def put(self, key: tuple[str, str], blob: bytes) -> None:
        """Queue a vector; the batch is written when it is full or old enough."""
        self.queue([(key, blob)])

    def close(self) -> None:
        """Flush and close."""
        self.flush()
        self.conn.close()


_STORES: dict[Path, QueryVectorStore] = {}
_STORES_LOCK = threading.Lock()


def query_store() -> QueryVectorStore:
    """The process's store for the current cache dir (`QUERYWEAVE_CACHE_DIR` may change between calls)."""
    from queryweave.tools.stores.embeddings import cache_dir

    path = cache_dir() / "query_vectors.sqlite"
    with _STORES_LOCK:
        store = _STORES.get(path)
        if store is None:
            store = _STORES[path] = QueryVectorStore(path)
        return store


@atexit.register
def flush_query_vectors() -> int:
    """Write every queued query vector now (also run at interpreter exit); returns how many."""
    with _STORES_LOCK:
        stores = list(_STORES.values())
    return sum(s.flush() for s in stores)


def query_vector(kb: KnowledgeBase, text: str) -> list[float]:
    """The query's embedding, memoised in memory and on disk by (model, text)."""
    import numpy as np

    key = (kb.embedding_name, text)
    with _QVEC_LOCK:
        if key in _QVEC:
            _QVEC.move_to_end(key)
            return _QVEC[key]
    store = query_store()
    blob = store.get(key)
    if blob is not None:
        vec = np.frombuffer(blob, dtype=np.float32).tolist()
    else:
        vec = list(kb.embeddings.embed_query(text))
        store.put(key, np.asarray(vec, dtype=np.float32).tobytes())
    with _QVEC_LOCK:
        _QVEC[key] = vec
        while len(_QVEC) > 4096:
            _QVEC.popitem(last=False)
    return vec
