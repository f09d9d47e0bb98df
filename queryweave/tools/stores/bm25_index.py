"""Sparse index: bm25s over language-aware tokens (jieba for Chinese, stemmed words otherwise).

bm25s indexes are immutable, so the index is rebuilt from the catalog after each ingest and
swapped in atomically: each build goes to a new hidden version folder beside `bm25/`, and `bm25`
is a symlink replaced in one rename. A reader resolves the link once, so it always loads one
complete version (never half an index, never a missing one); a crash at any point leaves the link
on the previous complete version (once the first save in this layout has replaced a plain folder). The previous version is kept (a reader may still be loading it);
older ones and a crashed build's leftovers are removed by the next save.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

import bm25s
import numpy as np

from queryweave.tools.common.text import tokenize


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
        """Write the index as a new version and point `folder` (a symlink) at it atomically."""
        parent = folder.parent
        parent.mkdir(parents=True, exist_ok=True)
        version = Path(tempfile.mkdtemp(prefix=f".{folder.name}-v-", dir=parent))
        if self.retriever is not None:
            self.retriever.save(str(version / "index"))
        (version / "ids.json").write_text(json.dumps(self.ids))
        previous = os.readlink(folder) if folder.is_symlink() else None
        if folder.is_dir() and not folder.is_symlink():  # a plain folder saved by an older version
            os.replace(folder, parent / f".{folder.name}-v-legacy-{os.getpid()}")
        link = parent / f".{folder.name}-link-{os.getpid()}"
        link.unlink(missing_ok=True)
        os.symlink(version.name, link)
        os.replace(link, folder)  # the one atomic step
        keep = {version.name, previous}
        for old in parent.glob(f".{folder.name}-v-*"):
            if old.name not in keep:
                shutil.rmtree(old, ignore_errors=True)
        shutil.rmtree(parent / (folder.name + ".old"), ignore_errors=True)  # left by older versions

    @classmethod
    def load(cls, folder: Path) -> BM25Index:
        """Load a saved index (an empty one when none exists yet)."""
        real = folder.resolve()  # one version, even if a writer swaps the link meanwhile
        ids_file = real / "ids.json"
        if not ids_file.exists():
            return cls(None, [])
        ids = json.loads(ids_file.read_text())
        retriever = bm25s.BM25.load(str(real / "index")) if ids else None
        return cls(retriever, ids)

    def knows(self, text: str) -> bool:
        """True when every index token of `text` occurs somewhere in the indexed corpus (a text made of
        stopwords only, which the index does not keep, counts as known: "US", "IT")."""
        tokens = tokenize(text)
        vocab = getattr(self.retriever, "vocab_dict", None) or {}
        return all(t in vocab for t in tokens)

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
