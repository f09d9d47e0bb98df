"""`queryweave eval cypher --folds-by-type`: Text-to-Cypher scored on kinds of question it was not tuned on.

The text2cypher movies questions carry a `type` (simple / complex retrieval, simple / complex
aggregation, pathfinding, verbose). Each type is held out in turn: which mechanisms to use
(schema-derived examples, worked examples from a pool of the *other* types' gold pairs, repair
retries, self-consistency over 3 or 5 queries) is chosen on the other types and scored on the
held-out one (`eval.folds`), beside the naive prompt and every fixed candidate, in the same run. Gold queries that read a property the graph
never sets (45 movies queries filter on `votes`, which `movies.cypher` does not create) return
nothing whatever is predicted: they are left out and counted (`excluded`).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel

from queryweave.eval.cypher_eval import _values, build_store, gold_reference
from queryweave.eval.execution import Reference
from queryweave.eval.folds import Candidate, Question, candidates, leave_one_group_out, report
from queryweave.tools.common.examples import Example
from queryweave.tools.common.text import detect_language
from queryweave.tools.cypher.store import GraphSchema
from queryweave.tools.cypher.text_to_cypher import TextToCypher, naive_cypher

OFF = {"examples": 0, "pool_examples": 0, "max_retries": 0, "samples": 1}
SWITCHES = {"examples": {"examples": 5}, "pool": {"pool_examples": 2}, "repairs": {"max_retries": 2},
            "vote": {"samples": 3}, "vote5": {"samples": 5}}
DEFAULT = ("examples", "repairs")
COMBOS = {"+examples+vote": ("examples", "vote"), "default+vote": (*DEFAULT, "vote"),
          "+examples+vote5": ("examples", "vote5")}
CHOSEN = "leave-one-type-out"
_STRING = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")
_PROPERTY = re.compile(r"\b[A-Za-z_]\w*\.([A-Za-z_]\w*)\b(?!\s*\()|[{,]\s*([A-Za-z_]\w*)\s*:")


def set_properties(store: Any, schema: GraphSchema) -> set[str]:
    """Property names some node or relationship of the graph actually holds a value for (a declared
    schema may list more: the movies schema lists `votes`, which no node has)."""
    out: set[str] = set()
    for pattern, table in (("(n:{t})", schema.nodes), ("()-[n:{t}]->()", schema.rels)):
        for t, props in table.items():
            for p in props:
                try:
                    rows = store.query(f"MATCH {pattern.format(t=t)} WHERE n.{p} IS NOT NULL RETURN count(*) AS c")
                except Exception:  # unreadable: assume set, never exclude on a doubt
                    rows = [{"c": 1}]
                if rows and next(iter(rows[0].values())):
                    out.add(p)
    return out


def unset_properties(query: str, known: set[str]) -> list[str]:
    """Properties `query` reads (outside strings) that are not in `known`."""
    used = {a or b for a, b in _PROPERTY.findall(_STRING.sub("''", query))}
    return sorted(used - known)


def cypher_candidates(names: Sequence[str] | None = None) -> list[Candidate]:
    """The candidate settings (all, or those `names`; minimal is always kept)."""
    out = candidates(OFF, SWITCHES, DEFAULT, combos=COMBOS)
    return [c for c in out if not names or c.name in names or c.name == "minimal"]


def evaluate_cypher_folds(directory: str | Path, llm: BaseChatModel, limit: int | None = None,
                          names: Sequence[str] | None = None,
                          progress: Callable[[dict[str, Any]], None] | None = None,
                          seed: int | None = None) -> dict[str, Any]:
    """Leave-one-type-out execution accuracy, with every candidate row and the naive row."""
    directory = Path(directory)
    rows = [json.loads(x) for x in (directory / "questions.jsonl").read_text(encoding="utf-8").splitlines() if x.strip()]
    if limit and limit < len(rows):
        rows = [rows[int(i * len(rows) / limit)] for i in range(limit)]
    store = build_store(directory)
    cache: dict[tuple, dict[str, Any]] = {}
    try:
        known = set_properties(store, store.schema())
        plain = TextToCypher(store, llm)
        excluded: list[dict[str, Any]] = []
        gold: dict[int, Reference] = {}
        gold_failed = 0
        for i, row in enumerate(rows):
            missing = unset_properties(row["cypher"], known)
            if missing:
                excluded.append({"question": row["question"], "reason": f"reads properties the graph never sets: {missing}"})
                continue
            out, error = plain.run(row["cypher"])
            if error:
                gold_failed += 1
                continue
            gold[i] = gold_reference(plain, row["cypher"], out)
        questions = [Question(i, detect_language(rows[i]["question"]), rows[i]["question"],
                              str(rows[i].get("type") or "untyped")) for i in gold]
        pool = [Example(q.text, rows[q.index]["cypher"], q.group) for q in questions]

        def right(ans: Any, i: int) -> dict[str, bool]:
            ok = ans.ok
            got = _values(ans.rows)
            return {"correct": ok and gold[i].matches(got), "exact": ok and gold[i].exact(got)}

        def score(c: Candidate, q: Question, held_out: frozenset[str]) -> dict[str, Any]:
            mine = [e for e in pool if e.source not in held_out and e.source != q.group] if c.uses_pool else []
            tool = TextToCypher(store, llm, **c.kwargs(), example_pool=mine, seed=seed)
            shown = tool.pool_shown(q.text)
            key = (c.name, q.key, tuple((e.source, e.question) for e in shown))
            if key not in cache:
                start = time.monotonic()
                ans = tool.ask(q.text)
                cache[key] = {"lang": q.lang, "type": q.group, "question": q.text, "config": c.name,
                              "query": ans.query, "gold": rows[q.index]["cypher"], "error": ans.error,
                              "pool_from": sorted({e.source for e in shown}), **right(ans, q.index),
                              "votes": ans.votes, "tried": [a["query"] for a in ans.attempts],
                              "seconds": round(time.monotonic() - start, 2)}
                if progress:
                    progress(cache[key])
            return cache[key]

        result = leave_one_group_out(questions, cypher_candidates(names), score, CHOSEN)
        naive: list[dict[str, Any]] = []
        for q in questions:
            start = time.monotonic()
            b = naive_cypher(store, llm, q.text)
            naive.append({"lang": q.lang, "type": q.group, "question": q.text, "query": b.query, "error": b.error,
                          **right(b, q.index), "seconds": round(time.monotonic() - start, 2)})
            if progress:
                progress({**naive[-1], "baseline": True})
    finally:
        store.close()
    return report(result, naive, CHOSEN, folds_by="type", excluded=len(excluded), excluded_items=excluded[:50],
                  gold_failed_on_engine=gold_failed, model_calls_cached=len(cache))
