"""Repair columns named on the wrong table, using the schema alone (no model call).

Small models often know the column but not its table: `SELECT T2.Hometown FROM teacher AS T1 JOIN
course_arrange AS T2 ...` (Hometown is teacher's), or `SELECT Model FROM cars_data ...` (Model is
in car_names, which cars_data points at). Such queries cannot run. Per SELECT scope:

0. a column no table has, but that matches one column of the scope's tables once case and
   underscores are ignored, takes that name (`PetAge` -> `pet_age`);
1. a qualified column whose table lacks it moves to the one other table of the scope that has it;
2. columns no table of the scope has: when exactly one table has all of them and it is reached
   from a scope table by one foreign key (or two, through a bridge table) along a unique shortest
   path, it is joined on the keys and the columns are qualified (`SELECT Model FROM cars_data ORDER
   BY MPG` -> `... JOIN car_names ...`; `SELECT Fname FROM Student WHERE PetType = 'cat'` -> joins
   Has_Pet and Pets). In a single-table scope, if exactly one table has every column the scope
   names, it replaces the table instead when no one-key join exists or when the question matches it
   better (lexical `table_scores`: "how many visitors ..." with `FROM visit WHERE Age < 30` ->
   `FROM visitor`). When several tables have every column, the one a column is named after is
   taken (`SELECT area FROM border_info WHERE state_name = 'ohio'`: lake and state both have area and
   state_name; `state_name` names state). A column qualified by an alias that nothing defines
   (`WHERE T2.Course = 'Math'` with no T2 in FROM; an outer query's alias is a correlated reference
   and stays) counts as missing.
3. (before 2) a missing column that other tables use as a foreign key to one scope table, all
   pointing at the same key, is that key: `SELECT ... FROM TV_Channel WHERE Channel NOT IN (SELECT
   Channel FROM Cartoon ...)` (Cartoon.Channel references TV_Channel.id) -> `WHERE id NOT IN ...`.

Only columns that would fail are touched: a query that runs is returned unchanged.
"""

from __future__ import annotations

from collections.abc import Callable

import sqlglot
from sqlglot import exp
from sqlglot.optimizer.scope import Scope, traverse_scope

from queryweave.tools.sql.database import SqlDatabase
from queryweave.tools.sql.schema_select import table_scores


def _columns(db: SqlDatabase, table: str) -> set[str]:
    return {c.lower() for c, _ in db.tables()[table].columns}


def _own_columns(scope: Scope) -> list[exp.Column]:
    """The scope's columns that belong to its own SELECT (not to a nested subquery)."""
    return [c for c in scope.columns if c.find_ancestor(exp.Select) is scope.expression]


def _scope_tables(db: SqlDatabase, scope: Scope) -> dict[str, str] | None:
    """alias (lower) -> real table for the scope's sources; None when a source is not a known table."""
    lower = {n.lower(): n for n in db.tables()}
    out = {}
    for alias, source in scope.sources.items():
        if not isinstance(source, exp.Table) or source.name.lower() not in lower:
            return None
        out[alias.lower()] = lower[source.name.lower()]
    return out


def _outer_columns(db: SqlDatabase, scope: Scope) -> set[str]:
    names: set[str] = set()
    parent = scope.parent
    while parent is not None:
        for table in (_scope_tables(db, parent) or {}).values():
            names |= _columns(db, table)
        parent = parent.parent
    return names


def _join_condition(db: SqlDatabase, a: str, a_alias: str, b: str, b_alias: str) -> str | None:
    """`a_alias.x = b_alias.y` for a foreign key between tables a and b (either direction)."""
    infos = db.tables()
    for col, ref, rcol in infos[a].foreign_keys:
        if ref == b:
            return f"{db.quote(a_alias)}.{db.quote(col)} = {db.quote(b_alias)}.{db.quote(rcol)}"
    for col, ref, rcol in infos[b].foreign_keys:
        if ref == a:
            return f"{db.quote(b_alias)}.{db.quote(col)} = {db.quote(a_alias)}.{db.quote(rcol)}"
    return None


def _neighbours(db: SqlDatabase, table: str) -> list[str]:
    infos = db.tables()
    out = [ref for _, ref, _ in infos[table].foreign_keys]
    out += [name for name, info in infos.items() if any(ref == table for _, ref, _ in info.foreign_keys)]
    return [n for n in dict.fromkeys(out) if n != table]


def _squash(name: str) -> str:
    return name.lower().replace("_", "")


def _outer_aliases(scope: Scope) -> set[str]:
    names: set[str] = set()
    parent = scope.parent
    while parent is not None:
        names |= {a.lower() for a in parent.sources}
        parent = parent.parent
    return names


def _rename_near_misses(db: SqlDatabase, scope: Scope, tables: dict[str, str], notes: list[str]) -> None:
    """Rule 0: `PetAge` -> `pet_age` when no table has the name but one scope column matches it loosely."""
    every = {c.lower() for t in db.tables() for c in _columns(db, t)}
    for col in _own_columns(scope):
        name = col.name
        if not name or name == "*" or name.lower() in every:
            continue
        hits = {c for t in tables.values() for c, _ in db.tables()[t].columns if _squash(c) == _squash(name)}
        if len(hits) == 1:
            new = hits.pop()
            notes.append(f"{name} -> {new}")
            col.set("this", exp.to_identifier(new))


def _fix_scope(db: SqlDatabase, scope: Scope, notes: list[str], question: str = "",
               scored: dict[str, float] | None = None) -> None:
    select = scope.expression
    if not isinstance(select, exp.Select):
        return
    tables = _scope_tables(db, scope)
    if not tables:
        return
    projected = {e.alias.lower() for e in select.expressions if isinstance(e, exp.Alias)}
    _rename_near_misses(db, scope, tables, notes)
    outer = _outer_columns(db, scope)
    missing: list[exp.Column] = []
    for col in _own_columns(scope):
        name = col.name.lower()
        if not name or name == "*" or isinstance(col.this, exp.Star):
            continue
        qualifier = col.table.lower()
        if qualifier:
            if qualifier not in tables:
                if qualifier not in _outer_aliases(scope) and name not in projected:
                    missing.append(col)  # an alias no FROM defines (`T2.Course`, T2 never joined)
                continue  # else a correlated reference to an outer alias: leave it
            if name in _columns(db, tables[qualifier]):
                continue
            owners = {a: t for a, t in tables.items() if name in _columns(db, t)}
            if len(set(owners.values())) == 1:  # rule 1: the only table of the scope that has it
                alias = next(iter(owners))
                notes.append(f"{col.sql()} -> {alias}.{col.name}")
                col.set("table", exp.to_identifier(_original_alias(scope, alias)))
                continue
            if not owners:
                missing.append(col)
        elif name not in projected and name not in outer and not any(name in _columns(db, t) for t in tables.values()):
            missing.append(col)
    renamed = _rename_foreign_names(db, scope, tables, missing, notes)
    missing = [c for c in missing if all(c is not r for r in renamed)]
    if not missing:
        return
    need = {c.name.lower() for c in missing}
    path = _join_path(db, tables, need)
    if len(tables) == 1 and not select.args.get("joins"):
        alias, table = next(iter(tables.items()))
        source = scope.sources[_original_alias(scope, alias)]
        named = {c.name.lower() for c in _own_columns(scope)
                 if c.name and c.name != "*" and c.name.lower() not in projected}
        holders = [t for t in db.tables() if named <= _columns(db, t)]
        near = [t for t in holders if t in _neighbours(db, table)]
        swap = near if len(near) == 1 else _named_by(holders, named) if len(holders) > 1 else holders
        scores = scored if scored is not None else table_scores(db, question) if question else {}
        if len(swap) == 1 and (path is None or len(path[1]) > 1 or scores.get(swap[0], 0) > scores.get(table, 0)):
            new = swap[0]  # rule 2, swap: one table has everything the scope names
            notes.append(f"FROM {table} -> FROM {new}")
            source.set("this", exp.to_identifier(new))
            if not source.alias:
                for col in _own_columns(scope):
                    if col.table.lower() == table.lower():
                        col.set("table", exp.to_identifier(new))
            return
    if path is None:
        return
    start_alias, hops = path
    previous_table, previous_alias = tables[start_alias], _original_alias(scope, start_alias)
    for hop in hops:
        condition = _join_condition(db, previous_table, previous_alias, hop, hop)
        if condition is None:
            return
        select.join(exp.to_table(db.quote(hop)), on=condition, dialect=db.dialect, copy=False)
        previous_table, previous_alias = hop, hop
    owner = hops[-1]
    notes.append(f"JOIN {' -> '.join(hops)} for {', '.join(sorted(need))}")
    added = set().union(*(_columns(db, h) for h in hops))
    for col in _own_columns(scope):
        name = col.name.lower()
        if col in missing or (not col.table and name in need):
            col.set("table", exp.to_identifier(owner))
        elif not col.table and name in added and name not in projected:
            homes = [a for a, t in tables.items() if name in _columns(db, t)]
            if len(homes) == 1:
                col.set("table", exp.to_identifier(_original_alias(scope, homes[0])))


def _named_by(tables: list[str], columns: set[str]) -> list[str]:
    """The one table of `tables` a column names (`state_name`, `singer_id` -> state, singer), else all."""
    def names(table: str) -> bool:
        return any(c.startswith(f"{table.lower()}_") or c == f"{table.lower()}id" for c in columns)
    named = [t for t in tables if names(t)]
    return named if len(named) == 1 else tables


def _rename_foreign_names(db: SqlDatabase, scope: Scope, tables: dict[str, str], missing: list[exp.Column],
                          notes: list[str]) -> list[exp.Column]:
    """Rule 3: a missing column named like the foreign keys that point at one scope table's key
    becomes that key (the columns renamed). Tried first: joining the referencing table instead would
    only add its rows' filtering and duplicates, since its key column equals this one along the join."""
    renamed = []
    for col in missing:
        name = col.name.lower()
        if col.table and col.table.lower() not in tables:
            continue  # an alias nothing defines: no table to look at
        own = {col.table.lower(): tables[col.table.lower()]} if col.table else tables
        keys = {(alias, rcol) for other, info in db.tables().items() for fk, ref, rcol in info.foreign_keys
                if fk.lower() == name and other not in own.values()
                for alias, table in own.items() if table == ref}
        if len(keys) != 1:
            continue
        alias, key = keys.pop()
        notes.append(f"{col.sql()} -> {key} (the key {name} refers to)")
        col.set("this", exp.to_identifier(key))
        if len(tables) > 1 and not col.table:
            col.set("table", exp.to_identifier(_original_alias(scope, alias)))
        renamed.append(col)
    return renamed


def _join_path(db: SqlDatabase, tables: dict[str, str], need: set[str]) -> tuple[str, list[str]] | None:
    """(scope alias to start from, tables to join in order) reaching the one table that has every
    column of `need`: a foreign-key neighbour of a scope table, else one behind a bridge table.
    None unless the shortest such path is unique."""
    present = set(tables.values())
    for length in (1, 2):
        found: dict[tuple[str, ...], str] = {}
        for alias, table in tables.items():
            for first in _neighbours(db, table):
                if first in present:
                    continue
                if length == 1 and need <= _columns(db, first):
                    found.setdefault((first,), alias)
                if length == 2:
                    for second in _neighbours(db, first):
                        if second not in present and second != first and need <= _columns(db, second):
                            found.setdefault((first, second), alias)
        if found:
            if len(found) != 1:
                return None
            hops, alias = next(iter(found.items()))
            return alias, list(hops)
    return None


def _original_alias(scope: Scope, lower_alias: str) -> str:
    return next(a for a in scope.sources if a.lower() == lower_alias)


def rewrite_scopes(db: SqlDatabase, sql: str, fix: Callable[[Scope, list[str]], None]) -> tuple[str, list[str]]:
    """Parse `sql`, let `fix(scope, notes)` rewrite each SELECT scope in place (a scope it fails on is
    left as it was) and return (the new SQL, the notes); `sql` unchanged when no note was made."""
    try:
        tree = sqlglot.parse_one(sql, read=db.dialect)
        scopes = list(traverse_scope(tree))
    except Exception:
        return sql, []
    notes: list[str] = []
    for scope in scopes:
        try:
            fix(scope, notes)
        except Exception:
            continue
    if not notes:
        return sql, []
    return tree.sql(dialect=db.dialect), notes


def fix_columns(db: SqlDatabase, sql: str, question: str = "",
                table_scores: dict[str, float] | None = None) -> tuple[str, list[str]]:
    """(`sql` with wrong-table columns repaired, notes on what changed); unchanged when nothing applies.

    `question` (optional) breaks the tie between joining a neighbour and replacing the table, by the
    question's words in the tables' names, or by `table_scores` when given (`column_link`).
    """
    return rewrite_scopes(db, sql, lambda scope, notes: _fix_scope(db, scope, notes, question, table_scores))
