"""`queryweave eval sql --folds-by-database`: leave-one-database-out Text-to-SQL evaluation.

Every mechanism that could be fitted, tuned or chosen on data is chosen on the other databases and
scored on the left-out one (`eval.folds`): schema linking, schema-derived examples, worked examples
from a pool of the *other* databases' gold pairs (nearest to the question), the schema repairs with
their value-mapping cutoff, and voting. The rows — the naive one-shot prompt, minimal, each
mechanism alone (the ablation rows: `+linking`, `+vote`, `+repairs`, ...), the default, everything,
and the leave-one-database-out choice — are all measured in the same run, per language.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel

from queryweave.eval.execution import Reference
from queryweave.eval.folds import Candidate, Question, candidates, leave_one_group_out, report
from queryweave.eval.spider import _variants, answerable, gold_reference, judged, load_questions
from queryweave.tools.common.examples import Example
from queryweave.tools.retrieval.self_query_match import named_value
from queryweave.tools.sql.database import SqlDatabase
from queryweave.tools.sql.naive import naive_sql
from queryweave.tools.sql.schema_select import own_words
from queryweave.tools.sql.text_to_sql import TextToSQL
from queryweave.tools.understanding.glossary import question_terms, word_senses
from queryweave.tools.understanding.zh_dictionary import name_readings, word_readings

OFF = {"link_schema": False, "examples": 0, "pool_examples": 0, "fix_schema": False, "map_values": False,
       "max_retries": 0, "samples": 1, "shape_repairs": False, "shape_select": 0, "link_columns": False,
       "fix_joins": False, "drop_joins": False, "value_names": None, "translate_questions": False,
       "link_values": False, "cross_lingual_tables": None, "term_senses": None,
       "bilingual": False, "prompt_language": None, "ground_values": None,
       "hint_readings": None}
SWITCHES = {
    "linking": {"link_schema": True},                     # tables and value hints chosen by the question
    "examples": {"examples": 3},                          # pairs written from the database's own schema
    "pool": {"pool_examples": 2},                         # gold pairs of the other databases
    "repairs": {"fix_schema": True, "map_values": True, "max_retries": 2, "value_names": named_value},
    "vote": {"samples": 3},                               # execution-guided: the result most samples return
    "shape-repairs": {"shape_repairs": True},              # a result without the asked shape is retried
    "shape-select": {"shape_select": 2},                  # ... or up to 2 more samples, the first that fits
    "columns": {"link_columns": True},                    # columns scored by names, values and meaning
    "joins": {"fix_joins": True},                         # joins rewritten along the declared foreign keys
    "drop-joins": {"fix_joins": True, "drop_joins": question_terms},  # ... and joins nothing uses nor the question names
    "translate": {"translate_questions": True},           # a Chinese question turned into English first
    "values": {"link_values": True},                      # a comparison moved to the column holding its values
    "zh-tables": {"cross_lingual_tables": question_terms},          # a Chinese question's tables chosen by its English readings
    "zh-numbers": {"cross_lingual_tables": own_words},     # ... by its own words less bare numbers (no readings)
    "zh-links": {"term_senses": word_senses},             # a Chinese question's words linked to the names they mean
    "zh-beside": {"bilingual": True},                     # ... shown with its English translation beside it
    "en-prompt": {"prompt_language": "en"},               # English instructions and examples around any question
    "zh-ground": {"ground_values": word_readings},         # a literal no question word reads to -> the one it reads
    "zh-hints": {"hint_readings": name_readings},          # value hints from the names a Chinese question's words read to
}
DEFAULT = ("linking", "examples", "repairs", "shape-repairs", "shape-select", "joins", "values",
           "zh-beside", "zh-ground", "zh-hints")  # what the graph and `eval sql` do by default
EXTRA = {"+repairs(cutoff 0.95)": {"value_cutoff": 0.95}}
_BEFORE = ("linking", "examples", "repairs")  # the default until the shape checks were measured
_SHAPED = _BEFORE + ("shape-repairs", "shape-select")  # the default until the join repairs were measured
_JOINED = _SHAPED + ("joins",)  # the default until value-based column linking
_VALUED = _JOINED + ("values",)  # the default until the translation beside Chinese questions
_BESIDE = _VALUED + ("zh-beside",)  # the default until literal grounding (thirty-second session)
_GROUNDED = _BESIDE + ("zh-ground",)  # the default until value hints from names (thirty-fourth session)
COMBOS = {"+repairs+shape": ("repairs", "shape-repairs"), "default-shape": _BEFORE + ("joins",),
          "+repairs+joins": ("repairs", "joins"), "default-joins": _SHAPED,
          "default-shape-select": _BEFORE + ("shape-repairs", "joins"),
          "default-shape-repairs": _BEFORE + ("shape-select", "joins"),
          "default+columns": DEFAULT + ("columns",), "+repairs+joins+vote": ("repairs", "joins", "vote"),
          "+repairs+drop-joins": ("repairs", "drop-joins"), "default+drop-joins": DEFAULT + ("drop-joins",),
          "default+translate": DEFAULT + ("translate",), "default-values": _JOINED,
          "+repairs+joins+values": ("repairs", "joins", "values"), "default+zh-tables": DEFAULT + ("zh-tables",),
          "default+zh-numbers": DEFAULT + ("zh-numbers",), "default+zh-links": DEFAULT + ("zh-links",),
          "default-zh-beside": _VALUED, "default+en-prompt": DEFAULT + ("en-prompt",),
          "default-zh-ground": _BESIDE, "default-zh-hints": _GROUNDED}
CHOSEN = "leave-one-database-out"


def sql_candidates(names: Sequence[str] | None = None) -> list[Candidate]:
    """The candidate settings (all, or those `names` — minimal is always kept as the fallback)."""
    out = candidates(OFF, SWITCHES, DEFAULT, extra=EXTRA, combos=COMBOS)
    out = [c for c in out if c.name != "+shape-repairs"]  # a modifier of the repairs: no retries, no effect
    return [c for c in out if not names or c.name in names or c.name == "minimal"]


def evaluate_sql_folds(directory: str | Path, llm: BaseChatModel, limit: int | None = None,
                       languages: tuple[str, ...] = ("en", "zh"), names: Sequence[str] | None = None,
                       progress: Callable[[dict[str, Any]], None] | None = None, keep_all: bool = False,
                       **tool_options: Any) -> dict[str, Any]:
    """Leave-one-database-out execution accuracy, with every candidate row and the naive row."""
    directory = Path(directory)
    rows = load_questions(directory, limit)
    dbs: dict[str, SqlDatabase] = {}
    gold: dict[int, Reference | None] = {}
    for i, row in enumerate(rows):
        if row["db_id"] not in dbs:
            dbs[row["db_id"]] = SqlDatabase(str(directory / "database" / row["db_id"] / f"{row['db_id']}.sqlite"),
                                            max_rows=100000)
        gold[i] = gold_reference(dbs[row["db_id"]], row["gold_sql"])
    keep, excluded = answerable(rows, dbs, keep_all)
    questions = [Question(i, lang, text, rows[i]["db_id"]) for lang in languages for i in keep
                 for _, text in _variants(rows[i], (lang,))]
    pool = {lang: [Example(q.text, rows[q.index]["gold_sql"], q.group) for q in questions if q.lang == lang]
            for lang in languages}
    cache: dict[tuple, dict[str, Any]] = {}

    def score(c: Candidate, q: Question, excluded: frozenset[str]) -> dict[str, Any]:
        mine = [e for e in pool[q.lang] if e.source not in excluded and e.source != q.group] if c.uses_pool else []
        tool = TextToSQL(dbs[q.group], llm, **{**tool_options, **c.kwargs()}, example_pool=mine)
        shown = tool.pool_shown(q.text)
        key = (c.name, q.key, tuple((e.source, e.question) for e in shown))
        if key not in cache:
            start = time.monotonic()
            ans = tool.ask(q.text, lang=q.lang)
            cache[key] = {"id": rows[q.index].get("id"), "db_id": q.group, "lang": q.lang, "question": q.text,
                          "config": c.name, "sql": ans.sql, "gold_sql": rows[q.index]["gold_sql"],
                          "error": ans.error, "attempts": len(ans.attempts), "shape": ans.shape,
                          "shape_fits": ans.shape_fits, "translation": ans.translation,
                          "pool_from": sorted({e.source for e in shown}),
                          **judged(gold[q.index], ans.rows, None if ans.ok else ans.error or "failed"),
                          "seconds": round(time.monotonic() - start, 2)}
            if progress:
                progress(cache[key])
        return cache[key]

    try:
        result = leave_one_group_out(questions, sql_candidates(names), score, CHOSEN)
        naive: list[dict[str, Any]] = []
        for q in questions:
            start = time.monotonic()
            b = naive_sql(dbs[q.group], llm, q.text)
            naive.append({"id": rows[q.index].get("id"), "db_id": q.group, "lang": q.lang, "question": q.text,
                          "sql": b.sql, "error": b.error, **judged(gold[q.index], b.rows, b.error),
                          "seconds": round(time.monotonic() - start, 2), "baseline": True})
            if progress:
                progress(naive[-1])
    finally:
        for db in dbs.values():
            db.close()
    return report(result, naive, CHOSEN, folds_by="database", model_calls_cached=len(cache),
                  excluded=len(excluded), excluded_items=excluded[:50])
