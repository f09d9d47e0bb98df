"""Few-shot examples for Text-to-SQL built from the selected tables' schema and stored values.

Like `queryweave.tools.cypher.fewshot`: small models copy worked examples better than they follow
rules, so the prompt shows a few short question -> SQL pairs written from the database itself. The
pairs cover a filter on a text column with a real stored value, a join along a foreign key and a
count per group. Chinese questions get Chinese example questions whose SQL still uses the value as
stored (often English), which shows the model to keep literals as the database holds them. Nothing
comes from an evaluation set.
"""

from __future__ import annotations

import re
from typing import Any

from queryweave.tools.sql.database import SqlDatabase

_TEMPLATES = {
    "filter": {
        "en": "Show the {show} of the {table} whose {col} is {value}.",
        "zh": "列出{col}为 {value} 的{table}的{show}。",
    },
    "join": {
        "en": "Show the {a_show} of each {a} together with the {b_show} of its {b}.",
        "zh": "列出每个{a}的{a_show}，以及它所属{b}的{b_show}。",
    },
    "bridge": {
        "en": "Show the {a_show} of each {a} with the {b_show} of every {b} linked to it.",
        "zh": "列出每个{a}的{a_show}，以及与它关联的每个{b}的{b_show}。",
    },
    "count": {
        "en": "How many {table} are there for each {col}?",
        "zh": "每个{col}有多少{table}？",
    },
}


_PLAIN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _ident(db: SqlDatabase, name: str) -> str:
    """`name` bare when it is a plain identifier (the way people write SQL), else quoted."""
    return name if _PLAIN.match(name) else db.quote(name)


def _repeats(db: SqlDatabase, table: str, col: str) -> bool:
    """True when some stored value of `table.col` occurs more than once (a column worth grouping by)."""
    q = db.quote
    res = db.run(f"SELECT COUNT(DISTINCT {q(col)}) < COUNT({q(col)}) FROM {q(table)}", max_rows=1)
    return not res.error and bool(res.rows and res.rows[0][0])


def _words(name: str) -> str:
    return name.replace("_", " ").lower()


def _lit(value: Any) -> str:
    return "'" + str(value).replace("'", "''") + "'"


def _text_value(db: SqlDatabase, table: str) -> tuple[str, str] | None:
    """(column, stored value) of a short text value from `table`'s sample rows, preferring repeated values."""
    info = db.tables()[table]
    names = [c for c, _ in info.columns]
    text = [c for c in db.text_columns(table) if c not in info.primary_key]
    best: tuple[str, str] | None = None
    for col in text:
        idx = names.index(col)
        for row in info.samples:
            v = row[idx] if idx < len(row) else None
            if isinstance(v, str) and 0 < len(v) <= 30 and not v.strip().lstrip("-").isdigit():
                vals = db.distinct_values(table, col, 30)
                if vals is not None:  # a category-like column: the best kind of filter example
                    return col, v
                best = best or (col, v)
                break
    return best


def _show(db: SqlDatabase, table: str, avoid: str = "") -> str | None:
    """A column that names rows of `table` (first text column not `avoid`, else the first non-key)."""
    info = db.tables()[table]
    fk_cols = {c for c, _, _ in info.foreign_keys}
    for col in db.text_columns(table):
        if col != avoid and col not in fk_cols:
            return col
    return next((c for c, _ in info.columns if c != avoid and c not in info.primary_key and c not in fk_cols), None)


def _bridge(db: SqlDatabase, tables: list[str]) -> tuple[str, tuple, tuple] | None:
    """(bridge table, (fk, table a, key), (fk, table b, key)) when a selected table links two others."""
    infos = db.tables()
    for mid in tables:
        fks = [(c, t, k) for c, t, k in infos[mid].foreign_keys if t in tables and t != mid]
        for i, first in enumerate(fks):
            for second in fks[i + 1:]:
                if first[1] != second[1] and _show(db, first[1]) and _show(db, second[1]):
                    return mid, first, second
    return None


def sql_examples(db: SqlDatabase, tables: list[str], lang: str = "en", limit: int = 3) -> list[tuple[str, str]]:
    """Up to `limit` (question, SQL) pairs over `tables` (empty when the schema is too thin)."""
    lang = "zh" if lang == "zh" else "en"
    def q(name: str) -> str:
        return _ident(db, name)

    infos = db.tables()
    tables = [t for t in tables if t in infos]
    pairs: list[tuple[str, str]] = []
    # 1. filter on a text column with a real stored value
    for t in tables:
        hit = _text_value(db, t)
        show = _show(db, t, avoid=hit[0]) if hit else None
        if hit and show:
            col, value = hit
            question = _TEMPLATES["filter"][lang].format(show=_words(show), table=_words(t), col=_words(col),
                                                         value=_lit(value))
            pairs.append((question, f"SELECT {q(show)} FROM {q(t)} WHERE {q(col)} = {_lit(value)}"))
            break
    # 2. join: through a bridge table that links two other selected tables (the many-to-many shape),
    # else along one foreign key between two selected tables
    bridge = _bridge(db, tables)
    if bridge:
        mid, (c1, a, k1), (c2, b, k2) = bridge
        a_show, b_show = _show(db, a), _show(db, b)
        question = _TEMPLATES["bridge"][lang].format(a=_words(a), a_show=_words(a_show), b=_words(b),
                                                     b_show=_words(b_show))
        pairs.append((question, f"SELECT T2.{q(a_show)}, T3.{q(b_show)} FROM {q(mid)} AS T1 JOIN {q(a)} AS T2 "
                                f"ON T1.{q(c1)} = T2.{q(k1)} JOIN {q(b)} AS T3 ON T1.{q(c2)} = T3.{q(k2)}"))
    done = bool(bridge)
    for a in tables if not done else []:
        for col, b, rc in infos[a].foreign_keys:
            if b not in tables or b == a:
                continue
            a_show, b_show = _show(db, a), _show(db, b)
            if not (a_show and b_show):
                continue
            question = _TEMPLATES["join"][lang].format(a=_words(a), a_show=_words(a_show), b=_words(b),
                                                       b_show=_words(b_show))
            pairs.append((question, f"SELECT T1.{q(a_show)}, T2.{q(b_show)} FROM {q(a)} AS T1 JOIN {q(b)} AS T2 "
                                    f"ON T1.{q(col)} = T2.{q(rc)}"))
            done = True
            break
        if done:
            break
    # 3. count per group on a category-like column
    for t in tables:
        info = infos[t]
        fk_cols = {c for c, _, _ in info.foreign_keys}
        for col in db.text_columns(t):
            if col in info.primary_key or col in fk_cols:
                continue
            vals = db.distinct_values(t, col, 12)
            if vals and len(vals) > 1 and _repeats(db, t, col) and not all(str(v).isdigit() for v in vals):
                question = _TEMPLATES["count"][lang].format(table=_words(t), col=_words(col))
                pairs.append((question, f"SELECT {q(col)}, COUNT(*) FROM {q(t)} GROUP BY {q(col)}"))
                break
        else:
            continue
        break
    return pairs[:limit]
