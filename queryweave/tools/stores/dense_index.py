"""An exact dense index beside Chroma: the chunk vectors as one float32 matrix in the data dir.

A question's dense search over a local store without a metadata filter is a matrix-vector product
and a partial sort (exact cosine top-n, ~1 ms at 10k chunks), and the chunk vectors PRF, links and
the reranker read are rows of the matrix; neither needs the Chroma engine, so a cold `queryweave ask`
does not load it. Chroma stays the store of record (filters, Chroma server, every write).

The writer saves `dense/<collection>.npy` (unit-length rows) and `.ids.json` after each write that
changed the vectors, then records the file's stamp in the catalog (`dense_stamp`); any change of the
vectors clears that stamp first. A reader uses the file only while its stamp is the catalog's —
otherwise (a write under way or one that crashed, a missing or foreign file) it searches Chroma.
"""

from __future__ import annotations

import contextlib
import json
import os
import uuid
from collections.abc import Sequence
from pathlib import Path

import numpy as np

_BLAS: list = []


def _one_blas_thread():
    """A context in which BLAS runs on one thread: for a matrix-vector product this size, waking BLAS's
    threads (beside the embedding engine's) cost 1-15 ms where the product itself takes 0.1 ms; the
    products are the same (rows are not split across threads differently within a row)."""
    if not _BLAS:
        try:
            from threadpoolctl import ThreadpoolController

            _BLAS.append(ThreadpoolController())
        except Exception:  # pragma: no cover - threadpoolctl missing or broken: plain BLAS
            _BLAS.append(None)
    ctl = _BLAS[0]
    return ctl.limit(limits=1, user_api="blas") if ctl is not None else contextlib.nullcontext()


class DenseIndex:
    """Chunk ids and their unit-length vectors (rows of `matrix`)."""

    def __init__(self, ids: list[str], matrix: np.ndarray, stamp: str = "") -> None:
        self.ids = ids
        self.matrix = matrix
        self.stamp = stamp
        self.row = {i: n for n, i in enumerate(ids)}

    @staticmethod
    def paths(data_dir: Path, collection: str) -> tuple[Path, Path]:
        """(matrix file, ids file) of a collection."""
        base = Path(data_dir) / "dense" / collection
        return base.with_suffix(".npy"), base.with_suffix(".ids.json")

    @classmethod
    def save(cls, data_dir: Path, collection: str, ids: list[str], vectors: Sequence) -> DenseIndex:
        """Write the index (atomically: temporary files, then renames); returns it with a new stamp."""
        matrix = np.asarray(vectors, dtype=np.float32).reshape(len(ids), -1) if ids else np.zeros((0, 0), np.float32)
        if len(ids):
            norms = np.linalg.norm(matrix, axis=1, keepdims=True)
            matrix = matrix / np.where(norms == 0, 1, norms)
        stamp = uuid.uuid4().hex
        npy, meta = cls.paths(data_dir, collection)
        npy.parent.mkdir(parents=True, exist_ok=True)
        tmp = npy.with_name(f".{npy.name}.{stamp}.tmp")
        with open(tmp, "wb") as fh:
            np.save(fh, matrix)
        tmp_ids = meta.with_name(f".{meta.name}.{stamp}.tmp")
        tmp_ids.write_text(json.dumps({"stamp": stamp, "ids": ids}), encoding="utf-8")
        os.replace(tmp, npy)
        os.replace(tmp_ids, meta)
        return cls(list(ids), matrix, stamp)

    @classmethod
    def load(cls, data_dir: Path, collection: str, stamp: str) -> DenseIndex | None:
        """The saved index when its stamp is `stamp`, else None."""
        npy, meta = cls.paths(data_dir, collection)
        try:
            info = json.loads(meta.read_text(encoding="utf-8"))
            if not stamp or info.get("stamp") != stamp:
                return None
            matrix = np.load(npy, mmap_mode=None, allow_pickle=False)
        except (OSError, ValueError):
            return None
        ids = list(info.get("ids") or [])
        if len(ids) != (matrix.shape[0] if matrix.ndim == 2 else 0):
            return None
        return cls(ids, matrix, stamp)

    def search(self, vector: Sequence[float], n: int, allowed: set[str] | None = None) -> list[tuple[str, float]]:
        """Top-n (id, cosine similarity), best first (ties by id order in the index)."""
        if not self.ids or n <= 0:
            return []
        q = np.asarray(vector, dtype=np.float32).reshape(-1)
        q = q / (float(np.linalg.norm(q)) or 1.0)
        with _one_blas_thread():
            sims = np.dot(self.matrix, q)
        if allowed is not None:
            mask = np.fromiter((i in allowed for i in self.ids), bool, len(self.ids))
            sims = np.where(mask, sims, -np.inf)
            n = min(n, int(mask.sum()))
        n = min(n, len(self.ids))
        if n <= 0:
            return []
        top = np.argpartition(-sims, n - 1)[:n] if n < len(self.ids) else np.arange(len(self.ids))
        top = top[np.lexsort((top, -sims[top]))]
        return [(self.ids[j], float(sims[j])) for j in top]

    def vectors(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """Unit-length vectors of the ids present."""
        return {i: self.matrix[self.row[i]] for i in ids if i in self.row}
