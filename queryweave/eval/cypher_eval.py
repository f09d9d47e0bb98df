"""Text-to-Cypher evaluation on a folder with a CREATE script and question/Cypher pairs.

Layout (the text2cypher movies set): `DIR/questions.jsonl` (`question`, `cypher`), one `*.cypher`
CREATE script and optionally `*_schema.txt`. The script is loaded into a fresh embedded kuzu store;
gold queries run there too (with the same Neo4j->kuzu renames), and rows are compared as
multisets (ordered when the gold query orders), ties and a LIMIT's arbitrary cut allowed
(`execution.same_answer`; the strict comparison is reported as `exact_accuracy`). Gold queries that
fail on the engine are counted and skipped.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel

from queryweave.eval.execution import Reference, reference, summarize
from queryweave.tools.common.text import detect_language
from queryweave.tools.cypher.loader import load_script
from queryweave.tools.cypher.store import KuzuStore
from queryweave.tools.cypher.text_to_cypher import TextToCypher, naive_cypher


def build_store(directory: str | Path, target: str | Path | None = None) -> KuzuStore:
    """Load the folder's CREATE script into a kuzu store (a temporary one unless `target`) and open it."""
    directory = Path(directory)
    scripts = sorted(directory.glob("*.cypher"))
    if not scripts:
        raise FileNotFoundError(f"no *.cypher CREATE script in {directory}")
    schemas = sorted(directory.glob("*schema*.txt"))
    path = Path(target) if target else Path(tempfile.mkdtemp(prefix="qw-kuzu-")) / "graph.kuzu"
    load_script(scripts[0], path, overwrite=True, schema_text=schemas[0].read_text(encoding="utf-8") if schemas else None)
    return KuzuStore(path)


def _values(rows: list[dict[str, Any]]) -> list[tuple]:
    return [tuple(r.values()) for r in rows]


def gold_reference(tool: TextToCypher, query: str, rows: list[dict[str, Any]]) -> Reference:
    """The tie-aware `Reference` of a gold query whose result is `rows` (its LIMIT raised once, on `tool`)."""
    def run(q: str) -> list[tuple] | None:
        out, error = tool.run(q)
        return None if error else _values(out)
    return reference(query, _values(rows), list(rows[0]) if rows else [], run)


def evaluate_cypher(directory: str | Path, llm: BaseChatModel, limit: int | None = None,
                    progress: Callable[[dict[str, Any]], None] | None = None, baseline: bool = False,
                    max_retries: int = 2, examples: int = 5, samples: int = 1,
                    seed: int | None = None) -> dict[str, Any]:
    """Execution accuracy of `TextToCypher` (and of `naive_cypher` when `baseline`) on a text2cypher folder;
    `examples` schema-derived few-shot pairs in the pipeline's prompt (0: none); `samples` queries vote."""
    directory = Path(directory)
    rows = [json.loads(x) for x in (directory / "questions.jsonl").read_text(encoding="utf-8").splitlines() if x.strip()]
    if limit and limit < len(rows):
        rows = [rows[int(i * len(rows) / limit)] for i in range(limit)]
    store = build_store(directory)
    tool = TextToCypher(store, llm, max_retries=max_retries, examples=examples, samples=samples, seed=seed)
    items: list[dict[str, Any]] = []
    base_items: list[dict[str, Any]] = []
    gold_failed = 0
    try:
        golds = [tool.run(row["cypher"]) for row in rows]
        gold_failed = sum(1 for _, error in golds if error)
        refs = [None if error else gold_reference(tool, row["cypher"], out)
                for row, (out, error) in zip(rows, golds, strict=True)]
        for row, ref in zip(rows, refs, strict=True):
            if ref is None:
                continue
            start = time.monotonic()
            ans = tool.ask(row["question"])
            item = {"lang": detect_language(row["question"]), "question": row["question"], "query": ans.query,
                    "gold": row["cypher"], "error": ans.error, "attempts": len(ans.attempts),
                    "correct": ans.ok and ref.matches(_values(ans.rows)),
                    "exact": ans.ok and ref.exact(_values(ans.rows)),
                    "seconds": round(time.monotonic() - start, 2)}
            items.append(item)
            if progress:
                progress(item)
        for row, ref in zip(rows, refs, strict=True):
            if ref is None or not baseline:
                continue
            start = time.monotonic()
            b = naive_cypher(store, llm, row["question"])
            base_items.append({"lang": detect_language(row["question"]), "question": row["question"],
                               "query": b.query, "error": b.error, "baseline": True,
                               "correct": b.ok and ref.matches(_values(b.rows)),
                               "exact": b.ok and ref.exact(_values(b.rows)),
                               "seconds": round(time.monotonic() - start, 2)})
            if progress:
                progress(base_items[-1])
    finally:
        store.close()
    report = summarize(items)
    if baseline:
        report["baseline"] = summarize(base_items)
    report["gold_failed_on_engine"] = gold_failed
    report["items"] = items + base_items
    return report
