"""Check the string literals of a generated query against the database's actual values.

Small models copy values from the question: a Chinese question says 法国 where the database says
'France', an English one says 'France' where the column holds 'france'. For every `column = 'x'`
and `column IN ('x', ...)` whose value does not occur in the column: a unique case-insensitive
match is substituted silently; otherwise a note listing the column's values (or similar ones) goes
back to the model as feedback.
"""

from __future__ import annotations

import sqlglot
from sqlglot import exp

from queryweave.prompts import pick
from queryweave.prompts import sql as P
from queryweave.tools.sql.database import SqlDatabase


def compared_literals(tree: exp.Expression) -> list[tuple[exp.Column, exp.Literal]]:
    """(column, string literal) for each `column = 'x'`, `!=` and `column IN ('x', ...)` in `tree`."""
    pairs = []
    for node in tree.walk():
        if isinstance(node, exp.EQ | exp.NEQ):
            left, right = node.this, node.expression
            if isinstance(right, exp.Column) and isinstance(left, exp.Literal):
                left, right = right, left
            if isinstance(left, exp.Column) and isinstance(right, exp.Literal) and right.is_string:
                pairs.append((left, right))
        elif isinstance(node, exp.In) and isinstance(node.this, exp.Column):
            pairs += [(node.this, e) for e in node.expressions if isinstance(e, exp.Literal) and e.is_string]
    return pairs


def _table_of(db: SqlDatabase, column: exp.Column, aliases: dict[str, str]) -> str | None:
    infos = db.tables()
    name = column.name.lower()
    if column.table:
        table = aliases.get(column.table.lower())
        return table if table and name in {c.lower() for c, _ in infos[table].columns} else None
    owners = [t for t in dict.fromkeys(aliases.values()) if name in {c.lower() for c, _ in infos[t].columns}]
    return owners[0] if len(owners) == 1 else None


def _column_name(db: SqlDatabase, table: str, name: str) -> str:
    return next(c for c, _ in db.tables()[table].columns if c.lower() == name.lower())


def _aliases(db: SqlDatabase, tree: exp.Expression) -> dict[str, str]:
    lower_tables = {n.lower(): n for n in db.tables()}
    aliases: dict[str, str] = {}
    for t in tree.find_all(exp.Table):
        real = lower_tables.get(t.name.lower())
        if real:
            aliases[t.name.lower()] = real
            if t.alias:
                aliases[t.alias.lower()] = real
    return aliases


def string_literals(db: SqlDatabase, tree: exp.Expression) -> list[tuple[str, str, str]]:
    """(table, column, value) for each string literal compared with a text column (`=`, `!=`, `IN`)."""
    aliases = _aliases(db, tree)
    out = []
    for column, literal in compared_literals(tree):
        table = _table_of(db, column, aliases)
        if table is None or column.name.lower() not in {c.lower() for c in db.text_columns(table)}:
            continue
        out.append((table, _column_name(db, table, column.name), literal.this))
    return out


def like_patterns(db: SqlDatabase, tree: exp.Expression) -> list[tuple[str, str, str]]:
    """(table, column, pattern) for each `column LIKE 'pattern'` on a text column."""
    aliases = _aliases(db, tree)
    out = []
    for node in tree.find_all(exp.Like):
        column, pattern = node.this, node.expression
        if not (isinstance(column, exp.Column) and isinstance(pattern, exp.Literal) and pattern.is_string):
            continue
        table = _table_of(db, column, aliases)
        if table is not None and column.name.lower() in {c.lower() for c in db.text_columns(table)}:
            out.append((table, _column_name(db, table, column.name), pattern.this))
    return out


def value_exists(db: SqlDatabase, table: str, column: str, value: str) -> bool:
    """Whether `value` occurs exactly in `table.column`."""
    q = db.quote
    safe = value.replace("'", "''")
    return bool(db.run(f"SELECT 1 FROM {q(table)} WHERE {q(column)} = '{safe}' LIMIT 1", max_rows=1).rows)


def check_literals(db: SqlDatabase, sql: str, lang: str = "en", max_values: int = 30) -> tuple[str, str | None]:
    """(sql with case-only fixes applied, a feedback note for values not in their column or None)."""
    try:
        tree = sqlglot.parse_one(sql, read=db.dialect)
    except Exception:
        return sql, None
    q = db.quote
    notes: list[str] = []
    for table, col, value in string_literals(db, tree):
        safe = value.replace("'", "''")
        base = f"SELECT DISTINCT {q(col)} FROM {q(table)} WHERE "
        if db.run(base + f"{q(col)} = '{safe}' LIMIT 1", max_rows=1).rows:
            continue
        same = db.run(base + f"lower({q(col)}) = lower('{safe}') LIMIT 2", max_rows=2).rows
        if len(same) == 1 and isinstance(same[0][0], str):
            fixed = same[0][0].replace("'", "''")
            sql = sql.replace(f"'{safe}'", f"'{fixed}'")
            continue
        values = db.distinct_values(table, col, max_values)
        if values is None:
            similar = db.run(base + f"{q(col)} LIKE '%{safe.replace('%', '')}%' LIMIT 10", max_rows=10).rows
            values = [r[0] for r in similar]
        shown = ", ".join(repr(v) for v in values) if values else "(no similar values)"
        notes.append(pick(P.UNKNOWN_VALUE, lang).format(value=value, table=table, column=col, values=shown))
    return sql, ("; ".join(notes) or None)
