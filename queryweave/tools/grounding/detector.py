"""Groundedness / hallucination detector: is an answer (or summary) supported by its sources?

Knows nothing of the graph; the reflect node calls `groundedness(answer, sources)`.

Offline (no LLM): the answer is split into claims (`tools.grounding.claims.split_claims`); each claim gets
support features against the sources (`tools.grounding.support.claim_features`: verbatim-fragment support,
tokens found in order inside one window, tokens found anywhere, copied phrases recombined from
distant passages, …) and hard checks (a number or a
named entity found in no source, a negation flipped against the best matching sentence). A small
fixed logistic model over verbatim support (`copy`) and the recombination rate (`jumps`) turns
them into a support score; a claim is supported when its score clears `CLAIM_THRESHOLD` and no hard
check failed. The answer's score is the same model over the length-weighted features of its
sentences. The weights were fitted, sign-constrained, on HaluEval-style summaries and checked by
grouped cross-validation and by shifted half-splits of the file (docs/grounding.md, bench/).

With an LLM: `grade_claims_llm` asks it for a verdict per claim through `models.structured`;
when that fails (None) the offline grader answers instead.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
from pydantic import BaseModel, Field

from queryweave.tools.grounding.claims import sentences, split_claims
from queryweave.tools.grounding.support import SourceIndex, claim_features

# P(grounded) = sigmoid(BIAS + sum(WEIGHTS[k] * feature[k])), signs constrained so that more support
# never lowers the score and recombination (`jumps`, a rate per sentence) never raises it. Fitted by
# `python bench/bench_hallucination.py --fit` on halueval_summarization_lenmatched.jsonl; chosen over
# the earlier copy/order/lex/summed-jumps model because it holds better when fitted on one half of
# the file and scored on a shifted other half (`detector_fit.shifted_splits`; docs/grounding.md).
WEIGHTS: dict[str, float] = {"copy": 22.0986, "jumps": -1.6967}
BIAS = -7.6004
THRESHOLD = 0.5  # answer-level: grounded when score >= THRESHOLD (and no claim fails a hard check)
UNSURE_MARGIN = 0.25  # llm_when="unsure": the LLM grades only when |offline score - threshold| <= this
CLAIM_THRESHOLD = 0.5  # claim-level
FEATURE_KEYS = ("lex", "local", "order", "frag", "novel2", "emb", "num_missing", "ent_missing", "neg_mismatch")


@dataclass
class ClaimVerdict:
    """One claim's verdict: supported or not, a 0-1 score, the best source and why."""

    claim: str
    supported: bool
    score: float
    best_source: int | None = None
    reasons: list[str] = field(default_factory=list)
    evidence: str = ""
    features: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """Plain dict (JSON-ready)."""
        return asdict(self)


@dataclass
class GroundednessReport:
    """Per-claim verdicts, an overall score and the unsupported claims of one answer."""

    answer: str
    verdicts: list[ClaimVerdict]
    score: float
    grounded: bool
    unsupported: list[str]
    method: str = "offline"

    @property
    def hallucinated(self) -> bool:
        """True when the answer is judged not grounded."""
        return not self.grounded

    def to_dict(self) -> dict[str, Any]:
        """Plain dict (JSON-ready)."""
        return {
            "score": self.score,
            "grounded": self.grounded,
            "unsupported": self.unsupported,
            "method": self.method,
            "verdicts": [v.to_dict() for v in self.verdicts],
        }


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, x))))


def aggregate(features: list[dict]) -> dict[str, float]:
    """Answer-level features from per-sentence (or per-claim) features: length-weighted means of
    the support features and of the recombination count `jumps` (a rate per sentence, so its scale
    does not grow with the number of sentences; `jumps_total` is the sum), the weakest unit's
    verbatim support, and the number of units failing a hard check (a number or entity the sources
    lack, a flipped negation)."""
    if not features:
        return {"copy": 1.0, "order": 1.0, "lex": 1.0, "frag": 1.0, "novel2": 0.0, "copy_min": 1.0, "hard": 0.0,
                "jumps": 0.0, "jumps_total": 0.0}
    weights = np.array([max(1, f["n_units"]) for f in features], float)
    out = {k: float(np.average([f[k] for f in features], weights=weights))
           for k in ("copy", "order", "lex", "frag", "novel2", "jumps")}
    out["copy_min"] = float(min(f["copy"] for f in features))
    out["jumps_total"] = float(sum(f["jumps"] for f in features))
    out["hard"] = float(sum(bool(f["missing_numbers"] or f["missing_entities"] or f["neg_mismatch"])
                            for f in features))
    embs = [f["emb"] for f in features if f.get("emb") is not None]
    if embs:
        out["emb"] = float(np.mean(embs))
    return out


def support_score(agg: dict[str, float]) -> float:
    """P(supported) of a claim or an answer from its `aggregate` features (fixed logistic model)."""
    return _sigmoid(BIAS + sum(w * agg.get(k, 0.0) for k, w in WEIGHTS.items()))


def _reasons(f: dict, score: float) -> list[str]:
    reasons = [f"number {n} not in sources" for n in f["missing_numbers"]]
    reasons += [f"entity '{e}' not in sources" for e in f["missing_entities"]]
    if f["neg_mismatch"]:
        reasons.append(f"negation mismatch with source {f['best_source']}")
    if f["missing_tokens"] and f["lex"] < 0.8:
        reasons.append("words not in sources: " + ", ".join(f["missing_tokens"][:6]))
    if score < CLAIM_THRESHOLD:
        reasons.append(f"weak support ({score:.2f})")
    return reasons


def _claim_vectors(claims: list[str], embeddings) -> list[np.ndarray | None]:
    """Claim vectors; from an embeddings object with `known` (a `KnownOnly` view) only the stored ones."""
    if embeddings is None or not claims:
        return [None] * len(claims)
    if hasattr(embeddings, "known"):
        return [None if v is None else np.asarray(v, np.float32) for v in embeddings.known(list(claims))]
    return [np.asarray(v, np.float32) for v in embeddings.embed_documents(list(claims))]


def _grade(claims: list[str], index: SourceIndex, embeddings) -> tuple[list[ClaimVerdict], list[dict]]:
    feats, verdicts = [], []
    for claim, vec in zip(claims, _claim_vectors(claims, embeddings), strict=True):
        f = claim_features(claim, index, vec)
        feats.append(f)
        score = support_score(aggregate([f]))
        hard = bool(f["missing_numbers"] or f["missing_entities"] or f["neg_mismatch"])
        best = f["best_window"]
        verdicts.append(ClaimVerdict(
            claim=claim,
            supported=score >= CLAIM_THRESHOLD and not hard,
            score=round(score, 4),
            best_source=f["best_source"],
            reasons=_reasons(f, score),
            evidence=index.windows[best] if best is not None and best >= 0 else "",
            features={k: f[k] for k in FEATURE_KEYS},
        ))
    return verdicts, feats


def grade_claims(claims: list[str], sources: list[str], embeddings=None) -> list[ClaimVerdict]:
    """Offline verdict for each claim against `sources` (lexical, embedding, numbers, entities,
    negation). `embeddings`: any LangChain `Embeddings` (optional; adds semantic support)."""
    return _grade(list(claims), SourceIndex.build(sources, embeddings=embeddings), embeddings)[0]


def groundedness(
    answer: str,
    sources: list[str],
    embeddings=None,
    llm=None,
    threshold: float = THRESHOLD,
    claims: list[str] | None = None,
    strict: bool = True,
    llm_when: str = "always",
) -> GroundednessReport:
    """Grade `answer` against `sources`: per-claim verdicts, an overall 0-1 score (P(grounded),
    from the answer's sentences), `grounded` (score >= threshold and, when `strict`, no claim with
    a number, entity or negation the sources lack or contradict) and the unsupported claims.

    With `llm`, claims are graded by the model and the score is the share supported; when the
    model fails the offline grader answers (`method` says which). `embeddings` (optional, any
    LangChain `Embeddings`) adds the `emb` similarity to each verdict's features, for inspection.
    `llm_when="unsure"` grades offline first and asks the model only when the offline score is
    within `UNSURE_MARGIN` of the threshold (rules first, the LLM when unsure)."""
    claims = split_claims(answer) if claims is None else list(claims)
    if llm is not None and llm_when == "unsure":
        report = groundedness(answer, sources, embeddings, None, threshold, claims, strict)
        if abs(report.score - threshold) > UNSURE_MARGIN:
            return report
    verdicts = _llm_verdicts(llm, claims, sources) if llm is not None else None
    if verdicts is not None:
        score = sum(v.supported for v in verdicts) / len(verdicts) if verdicts else 1.0
        unsupported = [v.claim for v in verdicts if not v.supported]
        return GroundednessReport(answer, verdicts, round(score, 4), not unsupported, unsupported, "llm")
    index = SourceIndex.build(sources, embeddings=embeddings)
    verdicts, feats = _grade(claims, index, embeddings)
    score = support_score(answer_features(answer, sources, embeddings, index))
    hard = any(f["missing_numbers"] or f["missing_entities"] or f["neg_mismatch"] for f in feats)
    unsupported = [v.claim for v in verdicts if not v.supported]
    grounded = score >= threshold and not (strict and hard)
    return GroundednessReport(answer, verdicts, round(score, 4), grounded, unsupported, "offline")


def answer_features(answer: str, sources: list[str], embeddings=None, index: SourceIndex | None = None) -> dict:
    """The `aggregate` features of an answer against its sources, over its sentences: the unit the
    answer-level model was fitted on (clauses are too short to show how much was copied)."""
    index = index or SourceIndex.build(sources, embeddings=embeddings)
    units = sentences(answer) or [answer]
    vecs = _claim_vectors(units, embeddings)
    return aggregate([claim_features(u, index, v) for u, v in zip(units, vecs, strict=True)])


# -- LLM grader -----------------------------------------------------------------------------------


class LLMClaimVerdict(BaseModel):
    """One claim's verdict as the LLM gives it."""

    index: int = Field(description="number of the claim (1-based)")
    supported: bool = Field(description="true when the passages support every fact of the claim")
    source: int = Field(default=-1, description="number of the best supporting passage (1-based), -1 if none")
    score: float = Field(default=0.5, description="support from 0 (contradicted/absent) to 1 (stated)")
    reason: str = Field(default="", description="what is missing or contradicted")


class LLMClaimVerdicts(BaseModel):
    """Verdicts for all claims."""

    verdicts: list[LLMClaimVerdict]


def _llm_verdicts(llm, claims: list[str], sources: list[str], lang: str | None = None) -> list[ClaimVerdict] | None:
    """The LLM's verdicts, or None when there is no model or its answer is unusable."""
    from queryweave.models import structured
    from queryweave.prompts.grounding import SYSTEM
    from queryweave.tools.common.text import detect_language
    from queryweave.tools.grounding.grader_prompt import user_prompt

    if llm is None:
        return None
    if not claims:
        return []
    lang = lang or detect_language(" ".join(claims))
    lang = lang if lang in SYSTEM else "en"
    messages = [
        ("system", SYSTEM[lang]),
        ("human", user_prompt(
            lang,
            sources="\n\n".join(f"[{i + 1}] {s}" for i, s in enumerate(sources)),
            claims="\n".join(f"{i + 1}. {c}" for i, c in enumerate(claims)),
        )),
    ]
    result = structured(llm, LLMClaimVerdicts, messages)
    by_index = {v.index: v for v in result.verdicts} if result is not None else {}
    if not all(i + 1 in by_index for i in range(len(claims))):
        return None
    out = []
    for i, claim in enumerate(claims):
        v = by_index[i + 1]
        src = v.source - 1 if 1 <= v.source <= len(sources) else None
        out.append(ClaimVerdict(
            claim=claim, supported=bool(v.supported), score=float(min(1.0, max(0.0, v.score))),
            best_source=src, reasons=[v.reason] if v.reason else [],
            evidence=sources[src][:500] if src is not None else "",
        ))
    return out


def grade_claims_llm(llm, claims: list[str], sources: list[str], lang: str | None = None) -> list[ClaimVerdict]:
    """Claims graded by an LLM through `models.structured` (prompt in `prompts.grounding`, zh/en);
    the offline grader answers when that fails (no model, bad output, a claim left out)."""
    verdicts = _llm_verdicts(llm, claims, sources, lang)
    return verdicts if verdicts is not None else grade_claims(claims, sources)
