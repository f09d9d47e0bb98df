"""A read-only guard for generated SQL, built on sqlglot's parser.

Allowed: exactly one SELECT (with WITH, UNION/INTERSECT/EXCEPT, subqueries). Blocked: everything
else — DDL, DML (also inside a CTE), PRAGMA, ATTACH/DETACH, VACUUM, COPY, `SELECT … INTO`, row
locks, several statements, text that does not parse, and any function outside an allow-list
(so no `load_extension`, `readfile`, `writefile`, `fts3_tokenizer`, `sleep`, `pg_sleep`, ...).
The database is opened read-only as well; the guard is the first line, not the only one.
"""

from __future__ import annotations

import logging
import re
from functools import lru_cache

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

from queryweave.tools.common.guard_result import GuardResult
from queryweave.tools.sql.costs import check_costs

logging.getLogger("sqlglot").setLevel(logging.ERROR)  # its "falling back to Command" notes are ours to judge

# Functions a question-answering query needs: aggregates, scalar, string, date and math functions.
# Names are matched in lower case against sqlglot's canonical name and the name as written; a
# function is also allowed when sqlglot parses an allowed name into the same expression class
# (`char(0)` becomes `Chr`, `lpad` becomes `Pad`, `bool_and` becomes `LogicalAnd`).
ALLOWED_FUNCTIONS = frozenset(
    """
    count sum avg min max total group_concat string_agg array_agg listagg median stddev stddev_samp
    stddev_pop variance var_samp var_pop count_if countif every bool_and bool_or any_value
    abs round ceil ceiling floor sign sqrt power pow exp ln log log10 log2 mod pi trunc truncate div
    random
    lower upper length char_length character_length octet_length substr substring trim ltrim rtrim
    btrim replace instr strpos position concat concat_ws lpad rpad left right reverse initcap
    printf format char unicode hex quote soundex like glob regexp_like split_part repeat
    coalesce ifnull nullif nvl if iif case cast try_cast greatest least typeof
    date time datetime julianday strftime unixepoch timediff date_trunc date_part extract
    current_date current_time current_timestamp now age to_char to_date to_timestamp
    time_to_str str_to_time str_to_date ts_or_ds_to_timestamp ts_or_ds_to_date date_add date_sub
    datediff date_diff time_str_to_time time_to_unix unix_to_time str_position
    year month day week quarter hour minute second dayofweek dayofmonth dayofyear
    row_number rank dense_rank percent_rank cume_dist ntile lag lead first_value last_value nth_value
    json_extract json_extract_scalar json_array_length
    """.split()
)

_FORBIDDEN_NODES: tuple[type, ...] = tuple(
    getattr(exp, name)
    for name in (
        "Insert", "Update", "Delete", "Merge", "Create", "Drop", "Alter", "AlterTable", "TruncateTable",
        "Command", "Pragma", "Attach", "Detach", "Copy", "Into", "Lock", "Set", "Use", "Transaction",
        "Commit", "Rollback", "Grant", "Revoke", "LoadData", "Export", "Execute", "ExecuteSql", "Analyze",
        "Describe", "Cache", "Uncache", "Refresh", "Kill", "Summarize",
    )
    if hasattr(exp, name)
)
_OPERATORS = (exp.Binary, exp.Connector, exp.Predicate, exp.Unary)
_ROOTS = (exp.Select, exp.SetOperation, exp.Subquery)
_WORD = re.compile(r"[A-Za-z_]+")
_COMMENT = re.compile(r"--[^\n]*|/\*.*?\*/", re.S)


def _function_names(node: exp.Func) -> set[str]:
    if isinstance(node, exp.Anonymous):
        return {str(node.name).lower()}
    return {node.sql_name().lower(), type(node).__name__.lower()}


@lru_cache(maxsize=8)
def _allowed_classes(dialect: str) -> frozenset[type]:
    """The sqlglot expression classes the allowed names parse into, in `dialect`."""
    found: set[type] = set()
    for name in ALLOWED_FUNCTIONS:
        for args in ("(x)", "(x, y)", "(x, y, z)", "()"):
            try:
                first = sqlglot.parse_one(f"SELECT {name}{args}", read=dialect or None).expressions[0]
            except Exception:  # noqa: BLE001 - an arity this name does not take
                continue
            if isinstance(first, exp.Func) and not isinstance(first, (exp.Anonymous, *_OPERATORS)):
                found.add(type(first))
    return frozenset(found)


def _allowed_function(node: exp.Func, dialect: str) -> bool:
    if _function_names(node) & ALLOWED_FUNCTIONS:
        return True
    return not isinstance(node, exp.Anonymous) and type(node) in _allowed_classes(dialect)


def _leading_keyword(text: str) -> str:
    words = _WORD.findall(_COMMENT.sub(" ", text))
    return words[0].upper() if words else "this"


def _clean(sql: str) -> str:
    return (sql or "").strip()


def check_sql(sql: str, dialect: str = "sqlite") -> GuardResult:
    """Judge one generated SQL text: allowed only when it is a single read-only SELECT."""
    text = _clean(sql)
    if not text:
        return GuardResult(False, "empty statement", text)
    try:
        parsed = [p for p in sqlglot.parse(text, read=dialect or None) if p is not None]
    except (ParseError, TokenError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return GuardResult(False, f"parse error: {first[:160]}", text)
    except Exception as exc:  # sqlglot raises a few other errors on odd input
        return GuardResult(False, f"parse error: {type(exc).__name__}: {str(exc)[:160]}", text)
    if not parsed:
        return GuardResult(False, "empty statement", text)
    if len(parsed) > 1:
        return GuardResult(False, f"{len(parsed)} statements; exactly one SELECT is allowed", text)
    root = parsed[0]
    if not isinstance(root, _ROOTS):
        kind = _leading_keyword(text)
        return GuardResult(False, f"{kind} statement is not a read-only SELECT", text)
    for node in root.walk():
        if isinstance(node, _FORBIDDEN_NODES):
            what = "SELECT ... INTO" if isinstance(node, exp.Into) else node.key.upper()
            if isinstance(node, exp.Lock):
                what = "row locking (FOR UPDATE/SHARE)"
            return GuardResult(False, f"{what} is not allowed in a read-only query", text)
        if isinstance(node, exp.Func) and not isinstance(node, _OPERATORS):
            if not _allowed_function(node, dialect):
                shown = node.name if isinstance(node, exp.Anonymous) else node.sql_name()
                return GuardResult(False, f"function {shown.lower()}() is not on the allow-list", text)
    if (problem := check_costs(root)) is not None:
        return GuardResult(False, f"resource limit: {problem}", text)
    return GuardResult(True, "single read-only SELECT", text)
