"""The retrieval pipeline shared by the graph's `retrieve` node and `queryweave eval retrieval`.

Each query runs hybrid BM25 + dense (one query embedding, reused), fused by z-scores: each list is
standardised by its own mean and spread (so a retriever that is sure of its top hit weighs more for
that query) and what a list lacks is filled with exact scores; RRF and min-max fusion are settings.
On top, per `RetrievalSettings`, further strategies each produce a ranking of their own: offline
variants (`keywords`, `neighbours`), pseudo-relevance feedback (`PRF`: RM3 on BM25 + Rocchio on the
embedding), LLM variants (`variant 1..n`), HyDE / Query2Doc (`HyDE`) and sub-questions
(`sub-question 1..n`). The strategies' rankings are fused again (`strategy_fusion`, RRF), the
original's top `anchor` kept in place (the other strategies only reorder what lies below the first
pass's best); PRF is then fed back from that fused list and its ranking replaces it (`prf_replaces`),
the same top `anchor` kept. Every candidate keeps per-strategy provenance: `matched_by` has one entry per
strategy that found it ("original", "variant 2", "HyDE") and one per retriever inside it
("original:bm25"). An optional reranker reorders the top `rerank_depth`; last, title links bring in
the documents named in (or naming) the top candidates (`links`). The query gate (`_gated`) runs
feedback expansion only for descriptive questions and the feature reranker only for questions that
name entities.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from queryweave.tools.common.fusion import Candidate, rrf, weighted_fusion, zscore_fusion
from queryweave.tools.retrieval.prf import (
    bm25_scores,
    dense_scores,
    query_terms,
    rm3_terms,
    rocchio,
    weighted_bm25,
)
from queryweave.tools.retrieval.query_vectors import query_vector
from queryweave.tools.retrieval.settings import RetrievalSettings
from queryweave.tools.stores.kb import KnowledgeBase

STRATEGY_WEIGHTS: dict[str, dict[str, float]] = {
    "factual": {"dense": 1.0, "bm25": 1.0},
    "reasoning": {"dense": 1.0, "bm25": 1.0},
    "comprehensive": {"dense": 1.0, "bm25": 1.0},
    "fuzzy": {"dense": 1.2, "bm25": 0.8},
}


def settings_for(intent: str | None, pool: int = 100, ctx: Any = None) -> RetrievalSettings:
    """Settings for an intent's strategy.

    With a `Context`, its profile and feature switches apply to what runs inside `search` (PRF,
    offline variants, HyDE, the result cache); LLM variants, decomposition and reranking are left to
    the graph's `rewrite` and `rerank` nodes, so they are off here.
    """
    weights = dict(STRATEGY_WEIGHTS.get(intent or "", {"dense": 1.0, "bm25": 1.0}))
    if ctx is None:
        return RetrievalSettings(pool=pool, weights=weights)
    from queryweave.tools.retrieval.profiles import settings_for_context

    full = settings_for_context(ctx, intent)
    return replace(full, weights=weights, llm_variants=0, decompose=False, rerank="none",
                   llm=full.llm if full.hyde else None)


def _allowed(kb: KnowledgeBase, where: dict | None) -> set[str] | None:
    if not where:
        return None
    return set(kb.vectors.collection.get(where=where, include=[])["ids"])


def _fuse(rankings: dict[str, list[tuple[str, float]]], settings: RetrievalSettings,
          weights: dict[str, float] | None, kb: KnowledgeBase | None = None, terms: dict[str, float] | None = None,
          vector: list[float] | None = None) -> list[Candidate]:
    """Fuse one query's BM25 and dense lists (z-scores get exact scores for what a list lacks)."""
    if settings.fusion == "rrf":
        return rrf(rankings, weights, k=settings.rrf_k)
    if settings.fusion == "weighted":
        return weighted_fusion(rankings, weights)

    def fill(name: str, ids: list[str]) -> dict[str, float]:
        if kb is None:
            return {}
        if name == "bm25" and terms:
            return bm25_scores(kb, terms, ids)
        if name == "dense" and vector is not None:
            return dense_scores(kb, vector, ids)
        return {}

    return zscore_fusion(rankings, weights, fill)


def hybrid(kb: KnowledgeBase, query: str, n: int, settings: RetrievalSettings, where: dict | None = None,
           vector: list[float] | None = None, allowed: set[str] | None = None) -> list[Candidate]:
    """One query: BM25 and dense, fused."""
    vector = vector if vector is not None else query_vector(kb, query)
    dense = kb.dense_search(query, settings.pool, where=where, query_vector=vector)
    sparse = kb.bm25_search(query, settings.pool)
    if where:
        allowed = allowed if allowed is not None else _allowed(kb, where)
        sparse = [(i, s) for i, s in sparse if i in allowed]
    return _fuse({"bm25": sparse, "dense": dense}, settings, settings.weights, kb, query_terms(query), vector)[:n]


def _prf(kb: KnowledgeBase, query: str, first: list[Candidate], vector: list[float], settings: RetrievalSettings,
         where: dict | None, allowed: set[str] | None) -> list[Candidate]:
    """RM3-expanded BM25 and Rocchio-moved dense search, fed back from the first pass."""
    fb = [c.id for c in first[: settings.prf_settings.fb_docs]]
    terms = rm3_terms(kb, query, fb, settings.prf_settings)
    sparse = weighted_bm25(kb, terms, settings.pool * 3 if where else settings.pool)
    if allowed is not None:
        sparse = [(i, s) for i, s in sparse if i in allowed][: settings.pool]
    moved = rocchio(vector, fb, kb, settings.prf_settings)
    dense = kb.dense_search(query, settings.pool, where=where, query_vector=moved)
    return _fuse({"bm25": sparse, "dense": dense}, settings, settings.weights, kb, terms, moved)


def _gated(query: str, settings: RetrievalSettings) -> bool:
    """True when the question names entities and the query gate is on.

    Such questions are pinned down by their names: feedback expansion mostly adds drift there, while
    the feature reranker's title/entity features are what it has to offer. Descriptive questions get
    the opposite: expansion runs, the feature reranker does not.
    """
    from queryweave.tools.retrieval.expansion import names_entities

    return settings.query_gate and names_entities(query)


def strategy_queries(kb: KnowledgeBase, query: str, settings: RetrievalSettings, first: list[Candidate],
                     sub_questions: list[str] | None = None) -> dict[str, str]:
    """The extra queries the switched-on strategies ask, by label (the original excluded)."""
    from queryweave.tools.retrieval import expansion

    out: dict[str, str] = {}
    if settings.offline_variants and not _gated(query, settings):
        out.update(expansion.offline_variants(kb, query, [c.id for c in first[:5]]))
    if settings.llm_variants and settings.llm is not None:
        for i, v in enumerate(expansion.llm_variants(settings.llm, query, settings.llm_variants), start=1):
            out[f"variant {i}"] = v
    if settings.decompose:
        from queryweave.tools.retrieval.decompose import decompose

        subs = sub_questions if sub_questions is not None else decompose(query, settings.llm)
        if len(subs) > 1:
            out.update({f"sub-question {i}": s for i, s in enumerate(subs, start=1)})
    return out


def pipeline(kb: KnowledgeBase, query: str, k: int, settings: RetrievalSettings | None = None,
             where: dict | None = None, extra_queries: dict[str, str] | None = None,
             sub_questions: list[str] | None = None) -> list[Candidate]:
    """Every switched-on strategy for one question, fused with provenance, then reranked."""
    settings = settings or RetrievalSettings()
    allowed = _allowed(kb, where)
    vector = query_vector(kb, query)
    first = hybrid(kb, query, settings.pool, settings, where, vector, allowed)
    per_strategy: dict[str, list[Candidate]] = {"original": first}
    run_prf = settings.prf and bool(first) and not _gated(query, settings)
    if run_prf and not settings.prf_replaces:
        per_strategy["PRF"] = _prf(kb, query, first, vector, settings, where, allowed)
    queries = dict(extra_queries or {})
    queries.update(strategy_queries(kb, query, settings, first, sub_questions))
    for label, text in queries.items():
        if text and text.strip() and label not in per_strategy:
            per_strategy[label] = hybrid(kb, text, settings.pool, settings, where, allowed=allowed)
    if settings.hyde and settings.llm is not None:
        from queryweave.tools.retrieval.expansion import hyde_document, query2doc

        doc = hyde_document(settings.llm, query)
        if doc:  # HyDE: the pseudo-document's embedding; Query2Doc: query + document for BM25
            hyde_vec = list(kb.embeddings.embed_documents([doc])[0])
            sparse_q = query2doc(query, doc)
            dense = kb.dense_search(doc, settings.pool, where=where, query_vector=hyde_vec)
            sparse = [(i, s) for i, s in kb.bm25_search(sparse_q, settings.pool) if allowed is None or i in allowed]
            per_strategy["HyDE"] = _fuse({"bm25": sparse, "dense": dense}, settings, settings.weights, kb,
                                         query_terms(sparse_q), hyde_vec)
    fused = fuse_strategies(per_strategy, settings)
    if run_prf and settings.prf_replaces and fused:  # RM3 / Rocchio fed back from the fused list
        fused = replace_by_feedback(fused, _prf(kb, query, fused, vector, settings, where, allowed), settings.anchor)
    from queryweave.tools.retrieval.profiles import reranker_for_query

    rerank = reranker_for_query(settings.rerank, query)  # English-only models: features for Chinese
    if rerank != "none" and fused and (rerank != "features" or not settings.query_gate or _gated(query, settings)):
        fused = rerank_candidates(kb, query, fused, replace(settings, rerank=rerank), vector)
    if settings.links and fused:  # after reranking: better seeds, and the hop is not undone by the reranker
        from queryweave.tools.retrieval.links import add_links

        fused = add_links(kb, fused, settings.link_seeds, settings.link_weight, settings.rrf_k, vector, allowed)
    return fused[: max(k, 0)]


def fuse_strategies(per_strategy: dict[str, list[Candidate]], settings: RetrievalSettings) -> list[Candidate]:
    """Fuse the strategies' rankings; `matched_by` gets `label` and `label:retriever` entries."""
    if len(per_strategy) == 1:
        (label, cands), = per_strategy.items()
        return [Candidate(c.id, c.score, {**c.matched_by, label: (r, c.score)}) for r, c in enumerate(cands, 1)]
    rankings = {label: [(c.id, c.score) for c in cands] for label, cands in per_strategy.items()}
    weights = {lb: settings.strategy_weights.get(lb.split(" ")[0], 1.0) for lb in rankings}
    if settings.strategy_fusion == "weighted":
        fused = weighted_fusion(rankings, weights)
    else:
        fused = rrf(rankings, weights, k=settings.rrf_k)
    inner = {label: {c.id: c.matched_by for c in cands} for label, cands in per_strategy.items()}
    for c in fused:
        for label in list(c.matched_by):
            for retriever, v in inner[label].get(c.id, {}).items():
                c.matched_by[f"{label}:{retriever}"] = v
    anchors = [c.id for c in per_strategy.get("original", [])[: settings.anchor]]
    if anchors:  # the first pass's best stay on top; the other strategies reorder what is below
        by_id = {c.id: c for c in fused}
        fused = [by_id[i] for i in anchors if i in by_id] + [c for c in fused if c.id not in set(anchors)]
    return fused


def replace_by_feedback(fused: list[Candidate], second: list[Candidate], anchor: int) -> list[Candidate]:
    """The feedback (second-pass) ranking in place of the fused list it came from.

    The expanded query already holds the original one (RM3's interpolation, Rocchio's query vector),
    so fusing its ranking with the first pass again would count the original twice. The fused list's
    top `anchor` stay on top, its other candidates follow the second pass's; provenance keeps the first
    pass's entries and adds `PRF` and `PRF:retriever`.
    """
    prior = {c.id: c for c in fused}
    out = []
    for rank, c in enumerate(second, start=1):
        matched = dict(prior[c.id].matched_by) if c.id in prior else {}
        matched["PRF"] = (rank, c.score)
        matched.update({f"PRF:{name}": v for name, v in c.matched_by.items()})
        out.append(Candidate(c.id, c.score, matched))
    seen = {c.id for c in out}
    out += [c for c in fused if c.id not in seen]
    top = [c.id for c in fused[: max(anchor, 0)]]
    if top:
        by_id = {c.id: c for c in out}
        out = [by_id[i] for i in top] + [c for c in out if c.id not in set(top)]
    return out


def rerank_candidates(kb: KnowledgeBase, query: str, fused: list[Candidate], settings: RetrievalSettings,
                      vector: list[float] | None = None) -> list[Candidate]:
    """Reorder the top `rerank_depth` candidates with the configured reranker (the rest keep their order)."""
    from queryweave.tools.retrieval.rerank import FeatureReranker, get_reranker

    head, tail = fused[: settings.rerank_depth], fused[settings.rerank_depth :]
    hits = kb.hits(head)
    docs = [h.as_dict() for h in hits]
    reranker = get_reranker(settings.rerank, kb=kb, llm=settings.llm)
    if isinstance(reranker, FeatureReranker):
        ordered = reranker.rerank(query, docs, query_vector=vector)
    else:
        ordered = reranker.rerank(query, docs)
    by_id = {c.id: c for c in head}
    out = []
    for rank, d in enumerate(ordered, start=1):
        c = by_id[d["chunk_id"]]
        c.matched_by[f"rerank:{reranker.name}"] = (rank, float(d.get("rerank_score", 0.0)))
        out.append(c)
    return out + tail


def search(kb: KnowledgeBase, queries: list[str], k: int, settings: RetrievalSettings | None = None,
           where: dict | None = None, labels: list[str] | None = None) -> list[Candidate]:
    """Retrieve for one or more queries (the first is the original) and fuse; top `k` with provenance."""
    settings = settings or RetrievalSettings()
    queries = [q for q in queries if q and q.strip()]
    if not queries:
        return []
    if settings.cache:
        return _cached_search(kb, queries, k, settings, where, labels)
    plain = settings.strategies() == ["hybrid"]
    if len(queries) == 1 and plain:
        return hybrid(kb, queries[0], max(k, 1), settings, where)[:k]
    labels = labels or ["original"] + [f"variant {i}" for i in range(1, len(queries))]
    extra = {lb: q for lb, q in zip(labels[1:], queries[1:], strict=False)}
    return pipeline(kb, queries[0], k, settings, where, extra_queries=extra)


def _cached_search(kb: KnowledgeBase, queries: list[str], k: int, settings: RetrievalSettings,
                   where: dict | None, labels: list[str] | None) -> list[Candidate]:
    from queryweave.tools.retrieval.result_cache import cache_key, result_cache

    cache = result_cache(kb.data_dir)
    key = cache_key({"queries": queries, "k": k, "settings": settings.cache_payload(), "where": where,
                     "labels": labels, "embedding": kb.embedding_name})
    version = kb.catalog.get_meta("version") or "0"
    hit = cache.get(key, version)
    if hit is not None:
        return [Candidate(i, score, {m: (int(r), float(v)) for m, (r, v) in prov.items()}) for i, score, prov in hit]
    out = search(kb, queries, k, replace(settings, cache=False), where, labels)
    cache.put(key, version, [[c.id, c.score, c.matched_by] for c in out])
    return out


def strategies_of(candidate: Candidate | dict[str, Any]) -> list[str]:
    """The strategies that found a candidate, e.g. ["original", "variant 2", "HyDE"] ("matched by")."""
    matched = candidate.matched_by if isinstance(candidate, Candidate) else candidate.get("matched_by") or {}
    labels = [m for m in matched if ":" not in m and m not in {"bm25", "dense"}]
    return labels or ["original"]
