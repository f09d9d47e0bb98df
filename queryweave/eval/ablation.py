"""Configurations for `queryweave eval retrieval --ablation`: baselines, hybrid, + each strategy, full.

Each configuration is a function query -> ranked chunk ids over one ingested knowledge base, so
every row of the table is measured in the same run, on the same index, with the same embeddings.
LLM rows (variants, HyDE, LLM reranking) appear only when a chat model is given.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from queryweave.tools.retrieval.pipeline import RetrievalSettings, search
from queryweave.tools.stores.kb import KnowledgeBase

Searcher = Callable[[str], list[str]]  # query -> ranked chunk ids


def default_settings(pool: int = 100) -> RetrievalSettings:
    """The pipeline's default (balanced profile, no LLM) settings."""
    from queryweave.config import Context
    from queryweave.tools.retrieval.profiles import settings_for_context

    return replace(settings_for_context(Context(llm="rules", profile="balanced")), pool=pool, llm=None)


def ablation_settings(pool: int = 100, llm: Any = None, reranker: str = "features",
                      default: RetrievalSettings | None = None) -> dict[str, RetrievalSettings]:
    """{row name: settings} for hybrid, each strategy alone on top of it, everything, and the defaults."""
    base = RetrievalSettings(pool=pool)
    rows = {
        "hybrid": base,
        "+prf": replace(base, prf=True),
        "+variants": replace(base, offline_variants=True),
        "+decompose": replace(base, decompose=True),
        "+links": replace(base, links=True),
        f"+rerank:{reranker.split(':')[0]}": replace(base, rerank=reranker),
    }
    full = replace(base, prf=True, offline_variants=True, decompose=True, links=True, rerank=reranker)
    if llm is not None:
        rows |= {
            "+llm-variants": replace(base, llm_variants=4, llm=llm),
            "+hyde": replace(base, hyde=True, llm=llm),
            "+llm-decompose": replace(base, decompose=True, llm=llm),
            "+rerank:llm": replace(base, rerank="llm", llm=llm, rerank_depth=20),
        }
        full = replace(full, llm_variants=4, hyde=True, llm=llm)
    rows["full"] = full
    rows["pipeline"] = default if default is not None else default_settings(pool)
    return rows


def searchers_for(kb: KnowledgeBase, configs: dict[str, RetrievalSettings], depth: int = 100,
                  baselines: bool = True) -> dict[str, Searcher]:
    """BM25 and dense baselines followed by one searcher per configuration."""
    out: dict[str, Searcher] = {}
    if baselines:
        out["bm25"] = lambda q: [i for i, _ in kb.bm25_search(q, depth)]
        out["dense"] = lambda q: [i for i, _ in kb.dense_search(q, depth, query_vector=_vec(kb, q))]
    for name, settings in configs.items():
        out[name] = lambda q, s=settings: [c.id for c in search(kb, [q], depth, s)]
    return out


def _vec(kb: KnowledgeBase, q: str) -> list[float]:
    from queryweave.tools.retrieval.pipeline import query_vector

    return query_vector(kb, q)
