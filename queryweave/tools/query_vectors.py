"""Query embeddings, memoised in memory and on disk by (model, text).

Repeated questions and evaluation reruns skip the embedding model: vectors live in
`query_vectors.sqlite` in the cache dir (float32 blobs). Document embeddings have their own cache
(`queryweave.tools.embeddings`).
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from queryweave.tools.kb import KnowledgeBase

_QVEC: OrderedDict[tuple[str, str], list[float]] = OrderedDict()
_QVEC_LOCK = threading.Lock()


def _query_store():
    """SQLite store of query embeddings in the cache dir (repeated questions and eval reruns skip the model)."""
    import sqlite3

    from queryweave.tools.embeddings import cache_dir

    conn = sqlite3.connect(cache_dir() / "query_vectors.sqlite", timeout=30)
    conn.execute("CREATE TABLE IF NOT EXISTS q (model TEXT, text TEXT, vec BLOB, PRIMARY KEY (model, text))")
    return conn


def query_vector(kb: KnowledgeBase, text: str) -> list[float]:
    """The query's embedding, memoised in memory and on disk by (model, text)."""
    import numpy as np

    key = (kb.embedding_name, text)
    with _QVEC_LOCK:
        if key in _QVEC:
            _QVEC.move_to_end(key)
            return _QVEC[key]
    conn = _query_store()
    try:
        row = conn.execute("SELECT vec FROM q WHERE model=? AND text=?", key).fetchone()
        if row is not None:
            vec = np.frombuffer(row[0], dtype=np.float32).tolist()
        else:
            vec = list(kb.embeddings.embed_query(text))
            with conn:
                conn.execute("INSERT OR REPLACE INTO q VALUES (?,?,?)",
                             (*key, np.asarray(vec, dtype=np.float32).tobytes()))
    finally:
        conn.close()
    with _QVEC_LOCK:
        _QVEC[key] = vec
        while len(_QVEC) > 4096:
            _QVEC.popitem(last=False)
    return vec
