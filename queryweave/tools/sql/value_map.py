"""Map translated string literals back to the database's own values.

A Chinese question names 名为“客户评论”的文档 where the database stores 'Customer reviews'; the model
copies 客户评论 into the query, which then finds nothing. For each string literal with non-ASCII
characters that does not occur in its (text) column, a `translate(value, table, column, examples)`
callback (one short model call; `TextToSQL` does not show it the examples, since a small model then
echoes the first one) proposes the stored form; the proposal is accepted only when it
matches a real value of the column: exactly, ignoring case, or as the single close match
(`difflib`, ratio ≥ `cutoff`) among the column's distinct values. Before the model is asked, a
`named(literal, values, column)` callback may name the value with no model call (the graph passes
`tools.retrieval.self_query_match.named_value`: the column's values found in the literal through
inflection and a bilingual dictionary, 客户评论 -> 'Customer reviews'; a lower layer, so passed in).
Otherwise the literal is left for the literal check to report.

`ground_literals` (`map_translated(readings=...)`; the graph and `eval sql` pass a reader by default) corrects a Chinese question's literal the
model wrote in English but wrongly: a string literal that no word of the question reads to (`readings`, e.g.
`tools.understanding.zh_dictionary.word_readings`, nor the question's own text), where exactly one stored value
of its column, used by no other literal of the query, is a reading of a question word, becomes that value
(`border = 'mississippi'` for 与密歇根州接壤 -> `border = 'michigan'`).

A `LIKE` pattern with Chinese text that matches no row (`name LIKE '%计算机%'` where the column stores
'Computer Science') goes to the same `translate` callback with its text less the wildcards; the proposal
replaces that text, wildcards kept, only when the new pattern matches at least one row of the column
(`'%计算机%' -> '%Computer%'`).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable

import sqlglot

from queryweave.tools.sql.database import SqlDatabase
from queryweave.tools.sql.literals import like_patterns, string_literals, value_exists

Translate = Callable[[str, str, str, list[str]], str | None]
Named = Callable[[str, list[str], str], str | None]  # (literal, column values, column) -> the value it names
Readings = Callable[[str], list[tuple[str, frozenset[str]]]]  # a question -> (word, its lower-case readings)


def column_values(db: SqlDatabase, table: str, column: str, limit: int = 5000) -> list[str]:
    """Distinct non-null string values of `table.column` (at most `limit`)."""
    q = db.quote
    res = db.run(f"SELECT DISTINCT {q(column)} FROM {q(table)} WHERE {q(column)} IS NOT NULL LIMIT {limit}",
                 max_rows=limit)
    return [r[0] for r in res.rows if isinstance(r[0], str)]


def closest_value(proposal: str, values: list[str], cutoff: float = 0.8) -> str | None:
    """The database value `proposal` stands for: exact, case-insensitive, or the one close match."""
    proposal = proposal.strip().strip("'\"“”‘’").strip()
    if not proposal:
        return None
    if proposal in values:
        return proposal
    lower = {}
    for v in values:
        lower.setdefault(v.lower().strip(), v)
    if proposal.lower() in lower:
        return lower[proposal.lower()]
    close = difflib.get_close_matches(proposal.lower(), list(lower), n=2, cutoff=cutoff)
    if len(close) == 1 or (len(close) == 2 and difflib.SequenceMatcher(None, proposal.lower(), close[0]).ratio()
                           > difflib.SequenceMatcher(None, proposal.lower(), close[1]).ratio() + 0.1):
        return lower[close[0]]
    return None


def proposal_of(line: str) -> str:
    """A translation reply's value: the line, or, when the model answered with a sentence ("The value '西'
    … would be stored as 'West'."), its last quoted span."""
    spans = re.findall(r"'([^']+)'|\"([^\"]+)\"", line)
    outside = re.sub(r"'[^']+'|\"[^\"]+\"", " ", line).split()
    return next(a or b for a, b in reversed(spans)) if spans and len(outside) >= 3 else line


def map_translated(db: SqlDatabase, sql: str, translate: Translate | None, examples: int = 8,
                   cutoff: float = 0.8, named: Named | None = None, question: str = "",
                   readings: Readings | None = None) -> tuple[str, list[str]]:
    """(`sql` with translated literals replaced by database values, notes `'法国' -> 'France'`);
    `cutoff` is the `closest_value` ratio; `named` is tried first, then `translate` (either may be None);
    with `readings`, the literals are then grounded in `question` (`ground_literals`)."""
    try:
        tree = sqlglot.parse_one(sql, read=db.dialect)
    except Exception:
        return sql, []
    sql, notes = _map_tree(db, sql, tree, translate, examples, cutoff, named)
    if readings is not None and not question.isascii():
        sql, more = ground_literals(db, sql, question, readings)
        notes += more
    return sql, notes


def _map_tree(db: SqlDatabase, sql: str, tree: sqlglot.exp.Expression, translate: Translate | None,
              examples: int, cutoff: float, named: Named | None) -> tuple[str, list[str]]:
    notes: list[str] = []
    for table, column, value in string_literals(db, tree):
        if value.isascii() or value_exists(db, table, column, value):
            continue
        values = column_values(db, table, column)
        if not values:
            continue
        found = named(value, values, column) if named is not None else None
        if found is None and translate is not None:
            try:
                proposal = translate(value, table, column, values[:examples])
            except Exception:
                continue
            found = closest_value(proposal or "", values, cutoff)
        if found is None:
            continue
        sql = sql.replace("'" + value.replace("'", "''") + "'", "'" + found.replace("'", "''") + "'")
        notes.append(f"{value!r} -> {found!r}")
    if translate is not None:
        for table, column, pattern in like_patterns(db, tree):
            found = _mapped_pattern(db, table, column, pattern, translate)
            if found is not None:
                sql = sql.replace("'" + pattern.replace("'", "''") + "'", "'" + found.replace("'", "''") + "'")
                notes.append(f"{pattern!r} -> {found!r}")
    return sql, notes


def _matches(db: SqlDatabase, table: str, column: str, pattern: str) -> bool:
    q = db.quote
    safe = pattern.replace("'", "''")
    return bool(db.run(f"SELECT 1 FROM {q(table)} WHERE {q(column)} LIKE '{safe}' LIMIT 1", max_rows=1).rows)


def _mapped_pattern(db: SqlDatabase, table: str, column: str, pattern: str, translate: Translate) -> str | None:
    """A Chinese `LIKE` pattern that matches nothing, its text translated: when that matches some row."""
    text = pattern.strip("%_")
    if text.isascii() or not text or _matches(db, table, column, pattern):
        return None
    try:
        proposal = (translate(text, table, column, []) or "").strip().strip("'\"“”‘’%").strip()
    except Exception:
        return None
    if not proposal.isascii() or sum(c.isalnum() for c in proposal) < 2 or "'" in proposal:
        return None
    found = pattern.replace(text, proposal, 1)
    return found if _matches(db, table, column, found) else None


def ground_literals(db: SqlDatabase, sql: str, question: str, readings: Readings) -> tuple[str, list[str]]:
    """(`sql` with each string literal that nothing in `question` reads to replaced by the one stored value
    of its column that a question word reads to and no other literal uses, notes `'mississippi' -> 'michigan'`).
    A literal without letters, one the question contains, and one with no such value or several stay."""
    try:
        found = string_literals(db, sqlglot.parse_one(sql, read=db.dialect))
    except Exception:
        return sql, []
    if not found:
        return sql, []
    words = readings(question)
    heard = {r for _word, rs in words for r in rs}
    text, used = question.lower(), {value.lower().strip() for _t, _c, value in found}
    notes: list[str] = []
    for table, column, value in dict.fromkeys(found):
        low = value.lower().strip()
        if not any(c.isalpha() for c in low) or low in heard or low in text:
            continue
        stored = {v.lower().strip(): v for v in column_values(db, table, column)}
        named = {stored[r] for _word, rs in words for r in rs if r in stored and r not in used}
        if len(named) != 1:
            continue
        new = named.pop()
        sql = sql.replace("'" + value.replace("'", "''") + "'", "'" + new.replace("'", "''") + "'")
        used.add(new.lower().strip())
        notes.append(f"{value!r} -> {new!r} (read in the question)")
    return sql, notes
