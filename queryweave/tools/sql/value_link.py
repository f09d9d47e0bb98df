"""Move a string comparison to the column that holds its value (value-based column linking).

A model that knows the value but not the column writes `Region = 'Africa'` where the database keeps
'Africa' in `Continent` (and 'Eastern Africa' in `Region`), or `Continent = 'Carribean'` where
'Caribbean' is a `Region`: the query runs and finds nothing. For each column compared with string
literals (`=`, `!=`, `IN (...)`), when no literal occurs in that column — not exactly, not ignoring
case, not as its one close match — but every literal occurs in one and the same other text column of
the tables of that SELECT (exactly, else ignoring case, else as the single close match, `difflib`
ratio ≥ `cutoff`, literals of four characters or more), the comparison moves to that column and the
literals take its stored spelling. Anything else is left as it was, for `literals.check_literals`
to report. Columns with more distinct values than `max_values` are searched by equality only.
"""

from __future__ import annotations

import sqlglot
from sqlglot import exp

from queryweave.tools.sql.database import SqlDatabase
from queryweave.tools.sql.literals import compared_literals, value_exists
from queryweave.tools.sql.value_map import closest_value, column_values


def _select_tables(db: SqlDatabase, select: exp.Select) -> dict[str, str]:
    """alias (lower) -> real table for the tables named directly in `select`'s FROM and JOINs."""
    lower = {n.lower(): n for n in db.tables()}
    out: dict[str, str] = {}
    for table in _sources(select):
        if table.name.lower() in lower:
            out[table.alias_or_name.lower()] = lower[table.name.lower()]
    return out


def _sources(select: exp.Select) -> list[exp.Table]:
    """The tables named directly in `select`'s FROM and JOINs (not inside subqueries)."""
    first = select.args.get("from_") or select.args.get("from")  # the key's name differs across sqlglot versions
    nodes = [first.this if first is not None else None] + [j.this for j in select.args.get("joins") or []]
    return [n for n in nodes if isinstance(n, exp.Table)]


class _Values:
    """Lookups of a literal in text columns, each column's distinct values read once."""

    def __init__(self, db: SqlDatabase, cutoff: float, max_values: int):
        self.db, self.cutoff, self.max_values = db, cutoff, max_values
        self._cache: dict[tuple[str, str], list[str] | None] = {}

    def values(self, table: str, column: str) -> list[str] | None:
        if (table, column) not in self._cache:
            got = column_values(self.db, table, column, limit=self.max_values + 1)
            self._cache[(table, column)] = got if len(got) <= self.max_values else None
        return self._cache[(table, column)]

    def find(self, table: str, column: str, literal: str) -> tuple[int, str] | None:
        """(level, stored value): 0 exact, 1 ignoring case, 2 the one close match; None when absent."""
        values = self.values(table, column)
        if values is None:
            return (0, literal) if value_exists(self.db, table, column, literal) else None
        if literal in values:
            return 0, literal
        folded = [v for v in values if v.lower().strip() == literal.lower().strip()]
        if len(folded) == 1:
            return 1, folded[0]
        if len(literal.strip()) >= 4:
            close = closest_value(literal, values, self.cutoff)
            if close is not None:
                return 2, close
        return None


def _compared(tree: exp.Expression) -> dict[int, tuple[exp.Column, list[exp.Literal]]]:
    """Each compared column node (by id) with the string literals compared with it."""
    out: dict[int, tuple[exp.Column, list[exp.Literal]]] = {}
    for column, literal in compared_literals(tree):
        out.setdefault(id(column), (column, []))[1].append(literal)
    return out


def _owner(db: SqlDatabase, column: exp.Column, tables: dict[str, str]) -> tuple[str, str] | None:
    """(alias, table) of the SELECT's table that has `column`; None when none or ambiguous."""
    name = column.name.lower()
    has = {a: t for a, t in tables.items() if name in {c.lower() for c in db.text_columns(t)}}
    if column.table:
        alias = column.table.lower()
        return (alias, has[alias]) if alias in has else None
    return next(iter(has.items())) if len(has) == 1 else None


def relink_values(db: SqlDatabase, sql: str, cutoff: float = 0.8, max_values: int = 5000) -> tuple[str, list[str]]:
    """(`sql` with comparisons moved to the column that holds their values, notes); unchanged when
    nothing applies or the query does not parse."""
    try:
        tree = sqlglot.parse_one(sql, read=db.dialect)
    except Exception:
        return sql, []
    found = _Values(db, cutoff, max_values)
    notes: list[str] = []
    for column, literals in _compared(tree).values():
        select = column.find_ancestor(exp.Select)
        if select is None:
            continue
        tables = _select_tables(db, select)
        owner = _owner(db, column, tables)
        if owner is None:
            continue
        alias, table = owner
        name = next(c for c in db.text_columns(table) if c.lower() == column.name.lower())
        texts = [lit.this for lit in literals]
        if any(found.find(table, name, t) is not None for t in texts):
            continue  # the column holds (one of) its values: not ours to move
        homes: dict[tuple[str, str], list[tuple[int, str]]] = {}
        for other_alias, other in tables.items():
            for other_col in db.text_columns(other):
                if (other_alias, other_col.lower()) == (alias, name.lower()):
                    continue
                hits = [found.find(other, other_col, t) for t in texts]
                if all(h is not None for h in hits):
                    homes[(other_alias, other_col)] = hits  # type: ignore[assignment]
        if not homes:
            continue
        best = min(max(level for level, _ in hits) for hits in homes.values())
        winners = [k for k, hits in homes.items() if max(level for level, _ in hits) == best]
        if len(winners) != 1:
            continue
        (new_alias, new_col), hits = winners[0], homes[winners[0]]
        qualifier = next((t.alias_or_name for t in _sources(select) if t.alias_or_name.lower() == new_alias), None)
        op = "IN" if len(texts) > 1 else "="
        before = f"{column.sql()} {op} {', '.join(repr(t) for t in texts)}"
        column.set("this", exp.to_identifier(new_col))
        if column.table or len(tables) > 1:
            column.set("table", exp.to_identifier(qualifier) if qualifier else None)
        for lit, (_, stored) in zip(literals, hits, strict=True):
            lit.set("this", stored)
        notes.append(f"{before} -> {column.sql()} {op} {', '.join(repr(s) for _, s in hits)}")
    if not notes:
        return sql, []
    return tree.sql(dialect=db.dialect), notes
