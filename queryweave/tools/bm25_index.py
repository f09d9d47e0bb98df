"""Sparse index: bm25s over language-aware tokens (jieba for Chinese, stemmed words otherwise).

bm25s indexes are immutable, so the index is rebuilt from the catalog after each ingest and
swapped in atomically (written to a temporary folder, then renamed), so a reader never sees half an
index and a crash mid-build leaves the previous one in place.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

import bm25s
import numpy as np

from queryweave.tools.text import tokenize


class BM25Index:
    """A bm25s index with the chunk ids it was built over."""

    def __init__(self, retriever: bm25s.BM25 | None, ids: list[str]) -> None:
        self.retriever = retriever
        self.ids = ids

    @classmethod
    def build(cls, ids: list[str], texts: list[str]) -> BM25Index:
        """Index texts (already including any index-only expansion)."""
        if not ids:
            return cls(None, [])
        corpus_tokens = [tokenize(t) or ["_empty_"] for t in texts]
        retriever = bm25s.BM25(k1=1.2, b=0.75)
        retriever.index(corpus_tokens, show_progress=False)
        return cls(retriever, list(ids))

    def save(self, folder: Path) -> None:
        """Write the index to `folder`, replacing what was there atomically."""
        folder.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".bm25-", dir=folder.parent))
        if self.retriever is not None:
            self.retriever.save(str(tmp / "index"))
        (tmp / "ids.json").write_text(json.dumps(self.ids))
        old = folder.parent / (folder.name + ".old")
        if folder.exists():
            os.replace(folder, old)
        os.replace(tmp, folder)
        shutil.rmtree(old, ignore_errors=True)

    @classmethod
    def load(cls, folder: Path) -> BM25Index:
        """Load a saved index (an empty one when none exists yet)."""
        ids_file = folder / "ids.json"
        if not ids_file.exists():
            return cls(None, [])
        ids = json.loads(ids_file.read_text())
        retriever = bm25s.BM25.load(str(folder / "index")) if ids else None
        return cls(retriever, ids)

    def search(self, query: str, n: int) -> list[tuple[str, float]]:
        """Top-n (id, BM25 score) with a positive score."""
        if self.retriever is None or n <= 0:
            return []
        tokens = tokenize(query)
        if not tokens:
            return []
        scores = self.retriever.get_scores(tokens)
        n = min(n, len(self.ids))
        top = np.argpartition(-scores, n - 1)[:n]
        top = top[np.argsort(-scores[top])]
        return [(self.ids[i], float(scores[i])) for i in top if scores[i] > 0]
