"""The strategy optimiser behind `queryweave tune`: per-intent k and strategy proposals, with reasons.

Two sources, used together when both are given:
- the retrieval log (`RetrievalLog`): user feedback per (intent, strategy), the ranks at which the
  results users marked relevant sit, and latency. k follows the ranks users needed (90th percentile),
  or grows when many answers were marked unhelpful; the strategy with the best feedback wins when it
  was tried often enough, and the cheaper one wins a tie.
- an evaluation folder (BEIR-style): every offline configuration of the ablation runs over its
  questions; each question is given its intent by the rule classifier; per intent the configuration
  with the best nDCG@10 is proposed (a cheaper one when within `tie`), and the smallest k whose
  recall is within 90% of the recall at the largest k.
`apply(...)` writes accepted proposals to `tuning.json` in the data dir, which the retrieval
settings read (`tuned(data_dir)`).
"""

from __future__ import annotations

import json
import statistics
from collections import defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from queryweave.tools.retrieval.metrics import ndcg_at, recall_at
from queryweave.tools.stores.querylog import RetrievalLog

KS = (3, 5, 10, 20)
FLAGS = {"hybrid": {}, "+prf": {"prf": True}, "+variants": {"offline_variants": True},
         "+decompose": {"decompose": True}, "+links": {"links": True}, "+rerank:features": {"rerank": "features"},
         "full": {"prf": True, "offline_variants": True, "decompose": True, "links": True, "rerank": "features"}}


@dataclass
class Proposal:
    """One proposed change: for an intent, a setting from `current` to `proposed`, and why."""

    intent: str
    setting: str
    current: Any
    proposed: Any
    reason: str
    source: str

    def as_dict(self) -> dict[str, Any]:
        """JSON-friendly form."""
        return asdict(self)


def _p90(values: list[int]) -> int:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(0.9 * (len(values) - 1))))]


def current_k(intent: str) -> int:
    """The k the analyzer gives a typical question of this intent (medium scope and depth)."""
    from queryweave.tools.understanding.intent import k_for

    table = {"factual": ("narrow", "medium"), "reasoning": ("medium", "deep"),
             "comprehensive": ("broad", "medium"), "fuzzy": ("medium", "medium")}
    return k_for(*table.get(intent, ("medium", "medium")))


def from_log(log: RetrievalLog, min_queries: int = 5, k_max: int = 20) -> list[Proposal]:
    """Proposals from logged retrievals and their feedback."""
    by_intent: dict[str, list[Any]] = defaultdict(list)
    for e in log.entries():
        by_intent[e.intent or "unknown"].append(e)
    out: list[Proposal] = []
    for intent, entries in sorted(by_intent.items()):
        ks = [e.k for e in entries]
        k_now = int(statistics.median(ks))
        ranks = [max(e.result_ids.index(r) + 1 for r in e.relevant_ids if r in e.result_ids)
                 for e in entries if e.relevant_ids and any(r in e.result_ids for r in e.relevant_ids)]
        rated = [e for e in entries if e.feedback is not None]
        if len(ranks) >= min_queries:
            need = _p90(ranks)
            if need != k_now:
                out.append(Proposal(intent, "k", k_now, need, f"90% of the {len(ranks)} answers users marked "
                                    f"relevant were within the top {need}", "log"))
        elif len(rated) >= min_queries:
            down = sum(e.feedback < 0 for e in rated) / len(rated)
            if down >= 0.3 and k_now < k_max:
                new_k = min(k_max, k_now + max(2, k_now // 2))
                out.append(Proposal(intent, "k", k_now, new_k, f"{down:.0%} of {len(rated)} rated answers were "
                                    f"marked unhelpful at k={k_now}", "log"))
        per_strategy: dict[str, list[Any]] = defaultdict(list)
        for e in rated:
            per_strategy[e.strategy].append(e)
        scored = {s: (sum(e.feedback for e in es) / len(es), statistics.mean(e.latency_ms for e in es), len(es))
                  for s, es in per_strategy.items() if len(es) >= min_queries}
        if len(scored) > 1:
            used = statistics.mode(e.strategy for e in entries)
            best = max(scored, key=lambda s: (round(scored[s][0], 1), -scored[s][1]))
            if best != used and used in scored:
                out.append(Proposal(intent, "strategy", used, best,
                                    f"feedback {scored[best][0]:+.2f} over {scored[best][2]} queries vs "
                                    f"{scored[used][0]:+.2f} for {used}; {scored[best][1]:.0f} ms vs "
                                    f"{scored[used][1]:.0f} ms", "log"))
    return out


def from_eval(result: dict[str, Any], current: dict[str, str] | None = None, tie: float = 0.005,
              min_queries: int = 5) -> tuple[list[Proposal], dict[str, Any]]:
    """Proposals from an `evaluate(..., per_query=True)` ablation result; also the per-intent table."""
    from queryweave.tools.understanding.intent import classify_intent

    intents = {qid: classify_intent(text).intent for qid, text in result["query_texts"].items()}
    qrels, runs = result["qrels"], result["runs"]
    ms = {r["name"]: r["ms_per_query"] for r in result["rows"]}
    table: dict[str, Any] = {}
    out: list[Proposal] = []
    for intent in sorted(set(intents.values())):
        qids = [q for q, i in intents.items() if i == intent and q in qrels]
        if len(qids) < min_queries:
            continue
        rows = {}
        for name in FLAGS:
            if name in runs:
                rows[name] = {"ndcg@10": round(statistics.mean(ndcg_at(runs[name][q], qrels[q]) for q in qids), 4),
                              **{f"recall@{k}": round(statistics.mean(recall_at(runs[name][q], qrels[q], k)
                                                                      for q in qids), 4) for k in KS},
                              "ms_per_query": ms.get(name, 0.0)}
        if not rows:
            continue
        table[intent] = {"queries": len(qids), "rows": rows}
        top = max(r["ndcg@10"] for r in rows.values())
        best = min((n for n, r in rows.items() if r["ndcg@10"] >= top - tie), key=lambda n: rows[n]["ms_per_query"])
        now = (current or {}).get(intent, "hybrid")
        if now in rows and best != now and rows[best]["ndcg@10"] > rows[now]["ndcg@10"]:
            out.append(Proposal(intent, "strategy", now, best,
                                f"nDCG@10 {rows[best]['ndcg@10']} vs {rows[now]['ndcg@10']} on {len(qids)} "
                                f"{intent} questions ({rows[best]['ms_per_query']} vs {rows[now]['ms_per_query']} ms)",
                                "eval"))
        r = rows[best]
        goal = 0.9 * r[f"recall@{KS[-1]}"]
        k_new = next(k for k in KS if r[f"recall@{k}"] >= goal)
        k_now = current_k(intent)
        if k_new != k_now:
            out.append(Proposal(intent, "k", k_now, k_new, f"recall@{k_new} = {r[f'recall@{k_new}']} reaches 90% of "
                                f"recall@{KS[-1]} = {r[f'recall@{KS[-1]}']} with {best}", "eval"))
    return out, table


def tuning_path(data_dir: str | Path) -> Path:
    """Where applied proposals live."""
    return Path(data_dir).expanduser() / "tuning.json"


def tuned(data_dir: str | Path) -> dict[str, dict[str, Any]]:
    """Applied settings per intent: {intent: {"k": int, "strategy": name}} ({} when never tuned)."""
    path = tuning_path(data_dir)
    try:
        return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    except (OSError, ValueError):
        return {}


def strategy_flags(name: str) -> dict[str, Any]:
    """RetrievalSettings fields a tuned strategy name stands for."""
    return dict(FLAGS.get(name, {}))


def apply(data_dir: str | Path, proposals: list[Proposal]) -> dict[str, dict[str, Any]]:
    """Merge proposals into `tuning.json` (later proposals win) and return the new content."""
    current = tuned(data_dir)
    for p in proposals:
        current.setdefault(p.intent, {})[p.setting] = p.proposed
    path = tuning_path(data_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(current, indent=2, ensure_ascii=False), encoding="utf-8")
    return current
