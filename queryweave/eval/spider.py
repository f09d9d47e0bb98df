"""Spider-style Text-to-SQL evaluation: execution accuracy, English and Chinese separately.

Layout: `DIR/questions.jsonl` (`db_id`, `question_en`, `question_zh` or `question`, `gold_sql`) and
`DIR/database/<db_id>/<db_id>.sqlite`. Each question is asked in every language it has; the
predicted and gold rows are compared with `queryweave.eval.execution.same_results`. The naive
baseline (whole schema, one shot, no retry) can be measured in the same run. A gold query that compares
a column with a value the column never holds (`City = "Aberdeen"` where the data says 'Aberdeen ')
filters on nothing: with `=` any empty answer would score, with `!=` only the unfiltered one. Such
questions are left out and counted (`excluded`), as the Cypher evaluation leaves out gold queries
reading unset properties; `keep_all=True` scores them too.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import sqlglot
from langchain_core.language_models import BaseChatModel
from sqlglot import exp

from queryweave.eval.execution import Reference, reference, summarize
from queryweave.tools.retrieval.self_query_match import named_value
from queryweave.tools.sql.database import SqlDatabase
from queryweave.tools.sql.literals import string_literals, value_exists
from queryweave.tools.sql.naive import naive_sql
from queryweave.tools.sql.text_to_sql import TextToSQL


def load_questions(directory: str | Path, limit: int | None = None) -> list[dict[str, Any]]:
    """The questions of a Spider-layout folder; `limit` keeps that many spread evenly over the file."""
    path = Path(directory) / "questions.jsonl"
    if not path.exists():
        raise FileNotFoundError(f"no questions.jsonl in {directory}")
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    if limit and limit < len(rows):
        rows = [rows[int(i * len(rows) / limit)] for i in range(limit)]
    return rows


def absent_values(db: SqlDatabase, sql: str) -> list[str]:
    """The comparisons (`=`, `!=`, `IN`) of `sql` with a string its column never holds. A double-quoted
    name that is no column is read as a string, as SQLite reads it (Spider's gold queries write "Aberdeen")."""
    try:
        tree = sqlglot.parse_one(sql, read=db.dialect)
    except Exception:
        return []
    columns = {c.lower() for t in db.tables().values() for c, _ in t.columns}
    for col in list(tree.find_all(exp.Column)):
        ident = col.this
        if not col.table and isinstance(ident, exp.Identifier) and ident.quoted and ident.name.lower() not in columns:
            col.replace(exp.Literal.string(ident.name))
    return [f"{t}.{c} = {v!r}" for t, c, v in string_literals(db, tree) if not value_exists(db, t, c, v)]


def answerable(rows: list[dict[str, Any]], dbs: dict[str, SqlDatabase],
               keep_all: bool = False) -> tuple[list[int], list[dict[str, Any]]]:
    """(indexes of the questions to score, the excluded ones with the reason)."""
    keep, excluded = [], []
    for i, row in enumerate(rows):
        absent = [] if keep_all else absent_values(dbs[row["db_id"]], row["gold_sql"])
        if absent:
            excluded.append({"id": row.get("id"), "db_id": row["db_id"],
                             "reason": f"the gold query compares with values the data never holds: {absent}"})
        else:
            keep.append(i)
    return keep, excluded


def _variants(row: dict[str, Any], languages: tuple[str, ...]) -> list[tuple[str, str]]:
    out = []
    for lang in languages:
        text = row.get(f"question_{lang}") or (row.get("question") if lang == "en" else None)
        if text:
            out.append((lang, text))
    return out


def gold_reference(db: SqlDatabase, sql: str) -> Reference | None:
    """The tie-aware `Reference` of a gold query on `db` (None when the gold query fails there)."""
    g = db.run(sql)
    if g.error:
        return None

    def run(query: str) -> list[tuple] | None:
        out = db.run(query)
        return None if out.error else out.rows
    return reference(sql, g.rows, g.columns, run)


def judged(ref: Reference | None, rows: list[tuple], error: str | None) -> dict[str, bool]:
    """`{"correct", "exact"}` of a prediction's rows against `ref` (tie-aware, and strict)."""
    ok = error is None and ref is not None
    return {"correct": ok and ref.matches(rows), "exact": ok and ref.exact(rows)}


def evaluate_sql(directory: str | Path, llm: BaseChatModel, limit: int | None = None,
                 languages: tuple[str, ...] = ("en", "zh"), baseline: bool = False,
                 progress: Callable[[dict[str, Any]], None] | None = None, keep_all: bool = False,
                 **tool_options: Any) -> dict[str, Any]:
    """Execution accuracy of `TextToSQL` (and of the naive baseline when `baseline`) on a Spider folder."""
    directory = Path(directory)
    dbs: dict[str, SqlDatabase] = {}
    gold: dict[int, Reference | None] = {}
    rows = load_questions(directory, limit)
    for i, row in enumerate(rows):
        db_id = row["db_id"]
        if db_id not in dbs:
            dbs[db_id] = SqlDatabase(str(directory / "database" / db_id / f"{db_id}.sqlite"), max_rows=100000)
        gold[i] = gold_reference(dbs[db_id], row["gold_sql"])
    keep, excluded = answerable(rows, dbs, keep_all)
    rows = [rows[i] for i in keep]
    gold = {n: gold[i] for n, i in enumerate(keep)}

    # one language at a time, questions in file order (grouped by database): consecutive prompts share
    # their schema prefix, which local engines (llama.cpp) reuse instead of re-reading it
    items: list[dict[str, Any]] = []
    for lang in languages:
        for i, row in enumerate(rows):
            for _, question in _variants(row, (lang,)):
                start = time.monotonic()
                ans = TextToSQL(dbs[row["db_id"]], llm, **{"value_names": named_value, **tool_options}).ask(
                    question, lang=lang)
                item = {"id": row.get("id"), "db_id": row["db_id"], "lang": lang, "question": question,
                        "sql": ans.sql, "gold_sql": row["gold_sql"], "error": ans.error,
                        "attempts": len(ans.attempts),
                        "repairs": [r for a in ans.attempts for r in a.get("repairs", [])],
                        "translation": ans.translation, "votes": ans.votes, "shape": ans.shape,
                        "shape_fits": ans.shape_fits,
                        **judged(gold[i], ans.rows, None if ans.ok else ans.error or "failed"),
                        "seconds": round(time.monotonic() - start, 2)}
                items.append(item)
                if progress:
                    progress(item)
    base_items: list[dict[str, Any]] = []
    if baseline:
        for lang in languages:
            for i, row in enumerate(rows):
                for _, question in _variants(row, (lang,)):
                    start = time.monotonic()
                    b = naive_sql(dbs[row["db_id"]], llm, question)
                    base_items.append({"id": row.get("id"), "lang": lang, "question": question, "sql": b.sql,
                                       "error": b.error, **judged(gold[i], b.rows, b.error),
                                       "seconds": round(time.monotonic() - start, 2), "baseline": True})
                    if progress:
                        progress(base_items[-1])
    for db in dbs.values():
        db.close()
    report = summarize(items)
    if baseline:
        report["baseline"] = summarize(base_items)
    report["excluded"], report["excluded_items"] = len(excluded), excluded[:50]
    report["items"] = items + base_items
    return report
