"""`reflect`: is the answer grounded in its citations and does it address the question?

Claims of the answer are graded against the cited passages (`queryweave.tools.grounding.detector`: an LLM
grader when a model is configured, else the offline one; the `grader` setting picks llm | unsure |
offline). A failed check sends the graph back to
rewrite/retrieve with a different plan (wider k, no filter, expansion) until `max_attempts` is
reached; then the best attempt is returned, flagged low confidence. Every attempt is kept in
`attempts` so Studio shows the loop. Citations are marked `verified` when a claim they back is
supported by their text.

Degraded modes, each reported in `degraded_reasons`: when the LLM grader fails (endpoint down,
malformed or incomplete verdicts) the offline grader answers; when the embedding endpoint is down,
grading and the relevance score run without embeddings (lexical features only).

An extractive answer is made of corpus units whose vectors were stored at ingest
(`answer_units`): its relevance is scored from those, and the grader reads claim vectors only where
they are stored (`KnownOnly`; they feed an inspection feature, not the score), so checking such an
answer embeds nothing at question time.
"""

from __future__ import annotations

import re
from typing import Any

from queryweave.config import context_of
from queryweave.models import get_chat_model
from queryweave.nodes.common import knowledge_base, language_of, query_of, timed
from queryweave.nodes.generate import abstention, embedder, embedding_down
from queryweave.tools.common.text import detect_language
from queryweave.tools.grounding.confidence import probability
from queryweave.tools.grounding.detector import THRESHOLD, UNSURE_MARGIN, groundedness
from queryweave.tools.grounding.relevance import answer_relevance
from queryweave.tools.stores.embeddings import EmbeddingError
from queryweave.tools.stores.text_vectors import KnownOnly, StoredEmbeddings

_MARK = re.compile(r"\s*\[\d{1,2}\]")
MIN_RELEVANCE = 0.35
CAPPED = 0.4  # the most a model's answer the grader never passed is shown with


def confidence_cut(ctx: Any, extractive: bool) -> float:
    """The confidence below which an extractive answer is withheld: `min_confidence` (0.0, off, by default:
    no cut chosen on other knowledge bases gained where it was scored, `bench/fit_abstain_cut.py`).
    Never for an LLM's answer, whose confidence is not the extractive one, nor with abstaining off."""
    if not extractive or not ctx.feature("abstain"):
        return 0.0
    return max(0.0, float(ctx.min_confidence or 0.0))


def same_language(question: str, answer: str) -> bool:
    """Whether an answer is in the question's language (the confidence cut judges only those: across
    languages few words match, and right answers score low too)."""
    return detect_language(_MARK.sub("", answer)) == detect_language(question)


def withhold(state: dict[str, Any], ctx: Any, question: str, answer: str, citations: list[dict[str, Any]],
             confidence: float) -> dict[str, Any]:
    """Decline an answer too weakly supported to state: the knowledge base's nearest pages instead, and the
    withheld answer kept apart (`withheld`) for a caller that wants to show it as a lead."""
    docs = state.get("documents") or []
    out = abstention(question, docs, language_of(state, ctx), [])
    return out | {"low_confidence": True, "withheld": {"answer": answer, "citations": citations,
                                                        "confidence": confidence}}


def shown_confidence(attempt: dict[str, Any]) -> float:
    """The confidence an attempt no grader passed is shown with: a model's answer at `CAPPED` at most; an
    extractive one keeps its own, since its sentences are the passages' own and what fails it is the offline
    grader's hard checks on copied text (a name or number written otherwise), not an unsupported claim: 22 of
    the 24 answers once capped so in 24 answer sets were right, against 82% of all
    (bench/results_answers.md, "Tenth session")."""
    return attempt["confidence"] if attempt.get("extractive") else min(attempt["confidence"], CAPPED)


def combined_confidence(features: dict[str, float], grounded: float, relevance: float) -> tuple[float, dict]:
    """P(right) from the generation features plus the grader's score and the relevance
    (`tools/grounding/confidence.py`; fitted weights, or the fixed mix), and the features used."""
    full = dict(features) | {"grounded": round(grounded, 4), "relevance": round(relevance, 4)}
    return probability(full), full


@timed("reflect")
def reflect(state: dict[str, Any], runtime: Any = None) -> dict[str, Any]:
    """Grade the answer, keep the attempt, and decide: accept, retry, or stop at the limit."""
    ctx = context_of(runtime)
    question = query_of(state)
    answer = state.get("answer") or ""
    citations = [dict(c) for c in state.get("citations") or []]
    attempt_no = int(state.get("attempt") or 0) + 1
    if not ctx.feature("reflect"):
        return {"attempt": attempt_no}
    if state.get("missing_terms"):  # the corpus never names what is asked about: a retry cannot help
        return {"attempt": attempt_no, "reflection": {
            "action": "accept", "reason": "abstained: the knowledge base never mentions "
            + ", ".join(state["missing_terms"])}}
    sources = [c.get("text", "") for c in citations]
    clean = _MARK.sub("", answer).strip()
    llm = None if ctx.grader == "offline" else get_chat_model(ctx.model_settings())
    when = "unsure" if ctx.grader == "unsure" else "always"
    down = embedding_down(ctx)
    embed = None if down else embedder(ctx)
    reasons: list[str] = []
    parts = list(state.get("answer_units") or [])
    if citations and clean:
        embeddings = None if down else knowledge_base(ctx).embeddings
        if parts and isinstance(embeddings, StoredEmbeddings):  # an extractive answer: stored vectors only
            embeddings = KnownOnly(embeddings)
        try:
            report = groundedness(clean, sources, embeddings=embeddings, llm=llm, llm_when=when)
        except EmbeddingError as exc:  # the endpoint failed during grading: grade again without it
            down = str(exc)
            embed = None
            report = groundedness(clean, sources, embeddings=None, llm=llm, llm_when=when)
        asked = when == "always" or abs(report.score - THRESHOLD) <= UNSURE_MARGIN
        if llm is not None and report.method != "llm" and asked:
            reasons.append("reflect: LLM grader failed (endpoint down or no usable verdicts); "
                           "graded by the offline grader")
        verdicts = [{"claim": v.claim, "supported": v.supported, "score": round(v.score, 3),
                     "source": (citations[v.best_source]["chunk_id"] if v.best_source is not None
                                and 0 <= v.best_source < len(citations) else None),
                     "reasons": v.reasons} for v in report.verdicts]
        backed = {v["source"] for v in verdicts if v["supported"] and v["source"]}
        for c in citations:
            c["verified"] = c.get("chunk_id") in backed
        grounded, g_score, method = report.grounded, report.score, report.method
    else:
        verdicts, grounded, g_score, method = [], False, 0.0, "none"
    titles = [str(c.get("title") or "") for c in citations]
    relevance = answer_relevance(question, clean, embed, parts=parts, titles=titles) if clean else 0.0
    down = down or embedding_down(ctx)
    if down:
        reasons.append(f"reflect: {down}; graded without embeddings")
    base = state.get("confidence_features") or {"coverage": float(state.get("confidence") or 0.0)}
    confidence, features = combined_confidence(base, g_score, relevance)
    passed = bool(citations) and grounded and relevance >= MIN_RELEVANCE
    record = {"attempt": attempt_no, "queries": state.get("queries") or [question], "k": state.get("k"),
              "filters": state.get("filters"), "answer": answer, "citations": citations,
              "grounded": grounded, "groundedness": g_score, "relevance": round(relevance, 3),
              "confidence": confidence, "passed": passed, "grader": method, "features": features,
              "extractive": bool(parts), "verdicts": verdicts}
    out: dict[str, Any] = {"attempt": attempt_no, "attempts": [record], "verdicts": verdicts,
                           "citations": citations, "confidence": confidence, "confidence_features": features}
    if reasons:
        out |= {"degraded": True, "degraded_reasons": reasons}
    cut = confidence_cut(ctx, bool(parts) and same_language(question, clean))
    if passed and confidence < cut:
        return out | withhold(state, ctx, question, answer, citations, confidence) | {"reflection": {
            "action": "abstain", "reason": f"confidence {confidence:.3f} below {cut}: answer withheld"}}
    if passed:
        return out | {"reflection": {"action": "accept", "reason": "grounded and relevant"}}
    if attempt_no < max(1, ctx.max_attempts):
        reason = "no supporting citations" if not citations else (
            "unsupported claims" if not grounded else "answer does not address the question")
        k = min(ctx.k_max, max(int(state.get("k") or 5) * 2, 4))
        # Drop a metadata filter only when it starved retrieval (fewer passages than asked for).
        starved = len(state.get("documents") or []) < int(state.get("k") or 1)
        filters = None if starved else state.get("filters")
        return out | {"reflection": {"action": "retry", "reason": reason}, "k": k, "filters": filters}
    # by the confidence shown, then (among model answers all shown at the cap) by their own
    best = max([*(state.get("attempts") or []), record], key=lambda a: (shown_confidence(a), a["confidence"]))
    shown = shown_confidence(best)
    cut = confidence_cut(ctx, bool(best.get("extractive")) and same_language(question, best["answer"]))
    if best["citations"] and shown < cut and same_language(question, best["answer"]):  # the confidence it would be shown with
        return out | withhold(state, ctx, question, best["answer"], best["citations"], best["confidence"]) | {
            "reflection": {"action": "abstain", "reason": "attempt limit reached; best attempt below the cut"}}
    return out | {"reflection": {"action": "stop", "reason": "attempt limit reached; best attempt returned"},
                  "answer": best["answer"], "citations": best["citations"], "abstained": not best["citations"],
                  "confidence": round(shown, 3), "confidence_features": best.get("features") or features,
                  "verdicts": best.get("verdicts", verdicts),
                  "low_confidence": True}

