"""Speed/precision profiles (`--profile fast|balanced|accurate`) and feature switches for retrieval.

A profile says which strategies run and how large the candidate pool is; `ctx.feature(name)`
switches override single strategies (`QUERYWEAVE_FEATURES="prf=off,hyde=on"`). Defaults are the
measured ones (bench/results_retrieval.md): strategies that did not help stay off.

| profile  | pool | offline                      | with an LLM                         |
|----------|------|------------------------------|-------------------------------------|
| fast     | 50   | hybrid (z-score fusion) only | nothing                             |
| balanced | 100  | hybrid + PRF + title links + feature rerank (query-gated) | nothing unless switched on |
| accurate | 200  | balanced + decomposition; ONNX cross-encoder (top 20, English questions) | + LLM variants, HyDE (LLM rerank without the cross-encoder) |

Offline variants (`offline_variants`) and rule decomposition did not help in the measurements and
are off unless switched on (`features="offline_variants=on"`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from typing import Any

from queryweave.tools.retrieval.settings import RetrievalSettings


@dataclass(frozen=True)
class Profile:
    """Defaults of one profile (each strategy can still be switched by a feature)."""

    pool: int
    prf: bool
    offline_variants: bool
    decompose: bool
    links: bool
    rerank: bool
    llm_variants: int
    hyde: bool
    rerank_depth: int = 50
    llm_rerank: bool = False  # rerank with the LLM when one is configured (else the feature reranker)
    cross_encoder_depth: int = 0  # >0: the ONNX cross-encoder (when installed) reranks this many, English only


CE_DEPTH = 20
"""How many candidates the ONNX cross-encoder reranks in `accurate` (bench/results_retrieval.md)."""

PROFILES: dict[str, Profile] = {
    "fast": Profile(pool=50, prf=False, offline_variants=False, decompose=False, links=False, rerank=False,
                    llm_variants=0, hyde=False),
    "balanced": Profile(pool=100, prf=True, offline_variants=False, decompose=False, links=True, rerank=True,
                        llm_variants=0, hyde=False),
    "accurate": Profile(pool=200, prf=True, offline_variants=False, decompose=True, links=True, rerank=True,
                        llm_variants=4, hyde=True, rerank_depth=100, llm_rerank=True, cross_encoder_depth=CE_DEPTH),
}

FEATURES = ("prf", "offline_variants", "decompose", "links", "rerank", "multi_query", "hyde", "doc2query", "result_cache",
            "onnx_rerank")


def profile_of(ctx: Any) -> Profile:
    """The context's profile (balanced when unknown)."""
    return PROFILES.get(str(getattr(ctx, "profile", "") or "balanced").lower(), PROFILES["balanced"])


def reranker_name(ctx: Any, llm: Any = None, profile: Profile | None = None) -> str:
    """Which reranker: `ctx.reranker` / `QUERYWEAVE_RERANKER` if set, else a cross-encoder path if configured
    (`ctx.cross_encoder_path` / `QUERYWEAVE_CROSS_ENCODER`), else the ONNX cross-encoder when the profile
    uses it and it is installed (feature `onnx_rerank`; it beat the LLM reranker), else the LLM when one
    is configured, else features."""
    explicit = getattr(ctx, "reranker", "") or os.environ.get("QUERYWEAVE_RERANKER", "")
    if explicit:
        return explicit
    path = getattr(ctx, "cross_encoder_path", "") or os.environ.get("QUERYWEAVE_CROSS_ENCODER", "")
    if path:
        return f"cross-encoder:{path}"
    if profile is not None and profile.cross_encoder_depth and ctx.feature("onnx_rerank", True):
        from queryweave.tools.retrieval.onnx_cross_encoder import available

        if available():
            return "onnx-cross-encoder"
    return "llm" if llm is not None else "features"


ENGLISH_ONLY_RERANKERS = ("onnx-cross-encoder", "onnx-ce")


def reranker_for_query(name: str, query: str) -> str:
    """The reranker for one question: English-only models (the ONNX cross-encoder) give way to the
    feature reranker for Chinese questions (on Chinese pairs they separate nothing)."""
    from queryweave.tools.common.text import detect_language

    if name.split(":", 1)[0] in ENGLISH_ONLY_RERANKERS and detect_language(query) == "zh":
        return "features"
    return name


def tuned_k(data_dir: Any, intent: str | None) -> int | None:
    """The k `queryweave tune --apply` chose for an intent, or None."""
    from queryweave.tools.retrieval.tuner import tuned

    value = tuned(data_dir).get(intent or "", {}).get("k")
    return int(value) if isinstance(value, int | float) else None


def settings_for_context(ctx: Any, intent: str | None = None, llm: Any = None) -> RetrievalSettings:
    """Retrieval settings: profile defaults, then what `queryweave tune --apply` chose for the intent, then
    explicit feature switches (LLM strategies need a model)."""
    from queryweave.tools.retrieval.tuner import strategy_flags, tuned

    p = profile_of(ctx)
    flags = strategy_flags(tuned(ctx.data_dir).get(intent or "", {}).get("strategy", "")) if intent else {}
    if flags:
        p = replace(p, prf=flags.get("prf", False), offline_variants=flags.get("offline_variants", False),
                    decompose=flags.get("decompose", False), links=flags.get("links", False),
                    rerank=bool(flags.get("rerank")))
    feature = ctx.feature
    if llm is None and (feature("multi_query", p.llm_variants > 0) or feature("hyde", p.hyde)
                        or (p.llm_rerank and feature("rerank", p.rerank))):
        from queryweave.models import get_chat_model, model_settings

        try:
            llm = get_chat_model(model_settings(ctx))
        except ValueError:
            llm = None
    rerank = reranker_name(ctx, llm if p.llm_rerank else None, p) if feature("rerank", p.rerank) else "none"
    depth = p.cross_encoder_depth if rerank == "onnx-cross-encoder" and p.cross_encoder_depth else p.rerank_depth
    configured = int(getattr(ctx, "candidate_pool", 0) or 100)
    pool = {"fast": min(configured, p.pool), "accurate": max(configured, p.pool)}.get(ctx.profile, configured)
    return RetrievalSettings(
        pool=pool,
        prf=feature("prf", p.prf),
        offline_variants=feature("offline_variants", p.offline_variants),
        decompose=feature("decompose", p.decompose),
        links=feature("links", p.links),
        llm_variants=(p.llm_variants or 4) if llm is not None and feature("multi_query", p.llm_variants > 0) else 0,
        hyde=llm is not None and feature("hyde", p.hyde),
        rerank=rerank,
        rerank_depth=depth,
        llm=llm,
        cache=feature("result_cache", True),
    )
