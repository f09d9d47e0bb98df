"""`RetrievalSettings`: how to retrieve (pool, fusion, which strategies run). Its own module so that the
pipeline (`pipeline`) and the profiles that fill it in (`profiles`) both import it, not each other."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from queryweave.tools.retrieval.prf import PRFSettings


@dataclass
class RetrievalSettings:
    """How to retrieve: candidate pool per retriever, fusion, and which strategies run."""

    pool: int = 100
    fusion: str = "zscore"  # BM25 + dense inside one query: zscore | rrf | weighted
    strategy_fusion: str = "rrf"  # across strategies (original, PRF, variants, ...): rrf | weighted
    anchor: int = 2  # the original query's top `anchor` stay on top when other strategies are fused in
    weights: dict[str, float] = field(default_factory=lambda: {"dense": 1.0, "bm25": 1.0})
    rrf_k: int = 60
    prf: bool = False
    prf_settings: PRFSettings = field(default_factory=PRFSettings)
    prf_replaces: bool = True  # the PRF ranking replaces the fused list it was fed back from (RM3 already
    # keeps the original query, share `orig_weight`); False: fused with the first pass by RRF (`strategy_weights`)
    offline_variants: bool = False
    llm_variants: int = 0  # number of LLM rephrasings (0 = off); needs `llm`
    hyde: bool = False  # HyDE / Query2Doc pseudo-document; needs `llm`
    decompose: bool = False  # retrieve for rule/LLM sub-questions too
    links: bool = False  # one title-link hop from the top `link_seeds` (multi-hop questions)
    link_seeds: int = 2
    link_weight: float = 1.0
    query_gate: bool = True  # by question kind: PRF/offline variants for descriptive questions,
    # the feature reranker for questions that name entities (see `_gated`)
    strategy_weights: dict[str, float] = field(default_factory=lambda: {"PRF": 3.0})  # by label; default 1.0
    rerank: str = "none"  # features | llm | cross-encoder:/path | none
    rerank_depth: int = 50
    llm: Any = None  # the chat model for the LLM strategies (None = offline)
    cache: bool = False  # use the data dir's result cache (invalidated by ingest)

    def cache_payload(self) -> dict[str, Any]:
        """What identifies these settings in a result-cache key (the model object excluded)."""
        out = {k: v for k, v in self.__dict__.items() if k not in {"llm", "cache"}}
        out["prf_settings"] = dict(self.prf_settings.__dict__)
        out["llm"] = type(self.llm).__name__ if self.llm is not None else None
        return out

    def strategies(self) -> list[str]:
        """Names of the strategies switched on (for logs and the ablation table)."""
        on = [("prf", self.prf), ("variants", self.offline_variants), ("links", self.links),
              ("llm-variants", self.llm_variants > 0),
              ("hyde", self.hyde), ("decompose", self.decompose), (f"rerank:{self.rerank}", self.rerank != "none")]
        return [name for name, flag in on if flag] or ["hybrid"]
