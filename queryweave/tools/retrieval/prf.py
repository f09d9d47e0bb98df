"""Pseudo-relevance feedback, the offline stand-in for HyDE: RM3 on BM25 and Rocchio on embeddings.

A first pass ranks chunks; the top `fb_docs` are assumed relevant. RM3 (Lavrenko & Croft, with the
query interpolation of Abdul-Jaleel et al.) takes the terms those chunks use most (weighted by the
chunk's first-pass score and by idf, so corpus-wide words do not dominate) and scores the corpus with
the original query terms plus the expansion terms. Rocchio moves the query embedding towards the
centroid of the feedback chunks' embeddings. Both work on the stores' own data: no model calls
beyond the one query embedding the first pass already made.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from queryweave.tools.common.text import tokenize
from queryweave.tools.stores.kb import KnowledgeBase, chunk_vectors, index_text


@dataclass
class PRFSettings:
    """RM3 / Rocchio parameters (global, not tuned per query)."""

    fb_docs: int = 5
    fb_terms: int = 10
    orig_weight: float = 0.5  # RM3 lambda: share of the original query in the expanded one
    rocchio_beta: float = 0.5  # weight of the feedback centroid added to the unit query vector


def _bm25_arrays(kb: KnowledgeBase):
    bm = kb.bm25()
    r = bm.retriever
    if r is None:
        return None
    s = r.scores
    return bm, r.vocab_dict, s["data"], s["indices"], s["indptr"], int(s["num_docs"])


def _score_vector(kb: KnowledgeBase, terms: dict[str, float]) -> np.ndarray | None:
    arrays = _bm25_arrays(kb)
    if arrays is None:
        return None
    _bm, vocab, data, indices, indptr, num_docs = arrays
    scores = np.zeros(num_docs, dtype=np.float32)
    for term, w in terms.items():
        tid = vocab.get(term)
        if tid is None or w == 0:
            continue
        a, b = indptr[tid], indptr[tid + 1]
        np.add.at(scores, indices[a:b], w * data[a:b])
    return scores


def weighted_bm25(kb: KnowledgeBase, terms: dict[str, float], n: int) -> list[tuple[str, float]]:
    """Top-n chunks for a weighted bag of (already tokenized) terms: sum_t w_t * BM25(t, d)."""
    scores = _score_vector(kb, terms) if terms and n > 0 else None
    if scores is None:
        return []
    ids = kb.bm25().ids
    n = min(n, len(scores))
    top = np.argpartition(-scores, n - 1)[:n]
    top = top[np.argsort(-scores[top])]
    return [(ids[i], float(scores[i])) for i in top if scores[i] > 0]


def bm25_scores(kb: KnowledgeBase, terms: dict[str, float], ids: Sequence[str]) -> dict[str, float]:
    """Exact (weighted) BM25 scores of the given chunks, 0 for chunks without the terms."""
    scores = _score_vector(kb, terms)
    if scores is None:
        return {}
    bm = kb.bm25()
    pos = getattr(bm, "_qw_positions", None)
    if pos is None:
        pos = {cid: i for i, cid in enumerate(bm.ids)}
        bm._qw_positions = pos  # type: ignore[attr-defined]
    return {i: float(scores[pos[i]]) for i in ids if i in pos}


def query_terms(query: str) -> dict[str, float]:
    """A query as BM25 term weights (its tokens, counted)."""
    return {t: float(c) for t, c in Counter(tokenize(query)).items()}


def idf(kb: KnowledgeBase, terms: Sequence[str]) -> dict[str, float]:
    """Robertson idf of each term in the BM25 index (0 for unknown terms)."""
    arrays = _bm25_arrays(kb)
    if arrays is None:
        return {t: 0.0 for t in terms}
    _bm, vocab, _data, _indices, indptr, num_docs = arrays
    out = {}
    for t in terms:
        tid = vocab.get(t)
        df = int(indptr[tid + 1] - indptr[tid]) if tid is not None else 0
        out[t] = math.log(1 + (num_docs - df + 0.5) / (df + 0.5)) if df else 0.0
    return out


def rm3_terms(kb: KnowledgeBase, query: str, feedback_ids: Sequence[str], settings: PRFSettings | None = None,
              doc_weights: Sequence[float] | None = None) -> dict[str, float]:
    """The expanded query as {term: weight}: original terms (share lambda) plus feedback terms.

    Feedback chunks count equally unless `doc_weights` are given (first-pass fused scores are rank
    based, so equal weights are the honest choice for them).
    """
    settings = settings or PRFSettings()
    q_terms = Counter(tokenize(query))
    if not q_terms:
        return {}
    ids = list(feedback_ids)[: settings.fb_docs]
    weights = list(doc_weights)[: len(ids)] if doc_weights is not None else [1.0] * len(ids)
    records = kb.catalog.get_chunks(ids)
    fb = [(i, w) for i, w in zip(ids, weights, strict=False) if i in records]
    out = {t: settings.orig_weight * c / sum(q_terms.values()) for t, c in q_terms.items()}
    if not fb:
        return out
    total_w = sum(w for _, w in fb) or 1.0
    rel: Counter[str] = Counter()
    for cid, w in fb:
        toks = tokenize(index_text(records[cid]))
        if not toks:
            continue
        for t, c in Counter(toks).items():
            rel[t] += (w / total_w) * c / len(toks)
    idfs = idf(kb, list(rel))
    scored = {t: p * idfs.get(t, 0.0) for t, p in rel.items() if len(t) > 1 and not t.isdigit()}
    best = sorted(scored.items(), key=lambda kv: -kv[1])[: settings.fb_terms]
    norm = sum(v for _, v in best) or 1.0
    for t, v in best:
        out[t] = out.get(t, 0.0) + (1 - settings.orig_weight) * v / norm
    return out


def dense_scores(kb: KnowledgeBase, query_vector: Sequence[float], ids: Sequence[str]) -> dict[str, float]:
    """Exact cosine similarities between a query vector and stored chunks."""
    q = np.asarray(query_vector, dtype=np.float32)
    q = q / (float(np.linalg.norm(q)) or 1.0)
    return {i: float(v @ q) for i, v in chunk_vectors(kb, list(ids)).items()}


def rocchio(query_vector: Sequence[float], feedback_ids: Sequence[str], kb: KnowledgeBase,
            settings: PRFSettings | None = None) -> list[float]:
    """Query vector moved towards the feedback chunks' centroid (unit length)."""
    settings = settings or PRFSettings()
    q = np.asarray(query_vector, dtype=np.float32)
    q = q / (float(np.linalg.norm(q)) or 1.0)
    vecs = list(chunk_vectors(kb, list(feedback_ids)[: settings.fb_docs]).values())
    if not vecs:
        return q.tolist()
    moved = q + settings.rocchio_beta * np.mean(vecs, axis=0)
    return (moved / (float(np.linalg.norm(moved)) or 1.0)).tolist()
