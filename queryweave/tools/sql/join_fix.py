"""Repair joins that contradict the declared foreign keys, using the schema alone (no model call).

Small models write joins whose shape is right but whose keys are not, and such queries often run and
return the wrong rows. Three patterns are wrong whatever the question, so they are rewritten along
the foreign keys the database declares (nothing is fitted; a query without them is left unchanged):

1. **A join condition that compares one table with itself** (`car_names AS T1 JOIN cars_data AS T2
   ON T1.MakeId = T1.MakeId`, `... ON T2.lost_in_battle = T2.id`): it does not link the joined table
   at all. It takes the foreign key between the joined table and the one other table of the query it
   is linked to (the table the broken condition names first, when several are linked).
2. **An `IN` subquery on an unrelated key** (`Stadium_ID NOT IN (SELECT concert_ID FROM concert)`):
   when the subquery's table has exactly one foreign key to the outer column, it selects that one.
3. **A count ordered or filtered without a grouping** (`SELECT Name FROM shop ORDER BY COUNT(*) DESC
   LIMIT 1`, which no SQL engine runs): with joins, it is grouped by the key of the table whose
   columns are selected; on one table, the one table that refers to it by a foreign key (or the
   one the question names best) is joined and the query is grouped by the table's key.
4. **A join the question does not need** (only with `drop_unneeded=True`, off by default: it broke
   nothing held out but gained too little, bench/results_structured.md): `FROM teacher JOIN
   course_arrange ON ... WHERE Age IN (32, 33)` for "teachers aged 32 or 33". An inner join to a
   table that nothing but its own join condition uses adds no column, only drops and repeats rows;
   in a query with no grouping or aggregate, when the question names none of that table's words
   (English; Chinese when a reader such as `tools.understanding.glossary.question_terms` is given),
   the join is dropped.
"""

from __future__ import annotations

from functools import partial

import sqlglot
from sqlglot import exp
from sqlglot.optimizer.scope import Scope

from queryweave.tools.common.text import EN_STOPWORDS, tokenize
from queryweave.tools.sql.database import SqlDatabase
from queryweave.tools.sql.schema_fix import (
    _columns,
    _join_condition,
    _own_columns,
    _scope_tables,
    rewrite_scopes,
)
from queryweave.tools.sql.schema_select import Reader, identifier_tokens, table_scores

Terms = Reader  # a question -> its stemmed words in the schema's language (None: unreadable)


def _linked(db: SqlDatabase, a: str, b: str) -> list[tuple[str, str]]:
    """(column of a, column of b) pairs joined by a declared foreign key, either direction."""
    infos = db.tables()
    pairs = [(c, rc) for c, ref, rc in infos[a].foreign_keys if ref == b]
    pairs += [(rc, c) for c, ref, rc in infos[b].foreign_keys if ref == a]
    return list(dict.fromkeys(pairs))


def _alias_of(db: SqlDatabase, col: exp.Column, tables: dict[str, str]) -> str | None:
    """The scope alias (lower) a column belongs to: its qualifier, or the one table that has it."""
    if col.table:
        return col.table.lower() if col.table.lower() in tables else None
    owners = [a for a, t in tables.items() if col.name.lower() in _columns(db, t)]
    return owners[0] if len(owners) == 1 else None


def _fix_self_joins(db: SqlDatabase, scope: Scope, tables: dict[str, str], notes: list[str]) -> None:
    """Rule 1."""
    select = scope.expression
    seen = [a for a in scope.sources if isinstance(scope.sources[a], exp.Table)][:1]
    for join in select.args.get("joins") or []:
        alias = join.alias_or_name
        on = join.args.get("on")
        if alias.lower() not in tables:
            return
        if isinstance(on, exp.EQ) and all(isinstance(s, exp.Column) for s in (on.this, on.expression)):
            sides = {(s.table or "").lower() for s in (on.this, on.expression)}
            if len(sides) == 1 and "" not in sides and seen:
                joined = tables[alias.lower()]
                named = next(iter(sides))
                order = ([named] if named != alias.lower() else []) + [a.lower() for a in seen]
                others = [a for a in dict.fromkeys(order) if a != alias.lower() and _linked(db, tables[a], joined)]
                if others and len(_linked(db, tables[others[0]], joined)) == 1 and (
                        others[0] == named or len(others) == 1):
                    other = next(a for a in scope.sources if a.lower() == others[0])
                    cond = _join_condition(db, tables[others[0]], other, joined, alias)
                    if cond:
                        notes.append(f"ON {on.sql(dialect=db.dialect)} -> ON {cond}")
                        join.set("on", sqlglot.parse_one(cond, read=db.dialect))
        seen.append(alias)


def _fix_in_subqueries(db: SqlDatabase, scope: Scope, tables: dict[str, str], notes: list[str]) -> None:
    """Rule 2."""
    where = scope.expression.args.get("where")
    if where is None:
        return
    for node in where.find_all(exp.In):
        query = node.args.get("query")
        inner = query.this if isinstance(query, exp.Subquery) else query
        if not isinstance(node.this, exp.Column) or not isinstance(inner, exp.Select):
            continue
        if node.this.find_ancestor(exp.Select) is not scope.expression or inner.args.get("joins"):
            continue
        source = inner.args.get("from_") or inner.args.get("from")
        src = source.this if source is not None else None
        if not isinstance(src, exp.Table) or len(inner.expressions) != 1 or not isinstance(inner.expressions[0], exp.Column):
            continue
        lower = {n.lower(): n for n in db.tables()}
        alias = _alias_of(db, node.this, tables)
        if alias is None or src.name.lower() not in lower:
            continue
        outer, sub, picked = tables[alias], lower[src.name.lower()], inner.expressions[0]
        column = node.this.name.lower()
        pairs = [(a, b) for a, b in _linked(db, outer, sub) if a.lower() == column]
        if len(pairs) != 1 or any(b.lower() == picked.name.lower() for _, b in pairs):
            continue
        new = pairs[0][1]
        notes.append(f"IN (SELECT {picked.name} FROM {sub}) -> IN (SELECT {new} FROM {sub})")
        picked.set("this", exp.to_identifier(new))


def _aggregated(node: exp.Expression | None) -> bool:
    return node is not None and node.find(exp.AggFunc) is not None


def _key(db: SqlDatabase, table: str) -> list[str]:
    info = db.tables()[table]
    return list(info.primary_key) if info.primary_key else []


def _fix_ungrouped_counts(db: SqlDatabase, scope: Scope, tables: dict[str, str], notes: list[str],
                          question: str) -> None:
    """Rule 3."""
    select = scope.expression
    if select.args.get("group") or any(_aggregated(e) for e in select.expressions):
        return
    if not (_aggregated(select.args.get("order")) or _aggregated(select.args.get("having"))):
        return
    projected = [c for e in select.expressions for c in e.find_all(exp.Column)]
    owners = {_alias_of(db, c, tables) for c in projected}
    if len(owners) != 1 or None in owners:
        return
    alias = owners.pop()
    table = tables[alias]
    key = _key(db, table)
    if not key:
        return
    name = next(a for a in scope.sources if a.lower() == alias)
    if not select.args.get("joins"):
        referring = [t for t, info in db.tables().items() if t != table
                     and any(ref == table and rc.lower() in {k.lower() for k in key} for _, ref, rc in info.foreign_keys)]
        if len(referring) > 1:
            scores = table_scores(db, question) if question else {}
            best = max(scores.get(t, 0.0) for t in referring)
            referring = [t for t in referring if best > 0 and scores.get(t, 0.0) == best]
        if len(referring) != 1:
            return
        other = referring[0]
        cond = _join_condition(db, table, name, other, other)
        if cond is None:
            return
        for col in _own_columns(scope):
            if not col.table and col.name.lower() in _columns(db, table):
                col.set("table", exp.to_identifier(name))
        select.join(exp.to_table(db.quote(other)), on=cond, dialect=db.dialect, copy=False)
        notes.append(f"JOIN {other} for the count")
    group = ", ".join(f"{db.quote(name)}.{db.quote(k)}" for k in key)
    select.group_by(group, dialect=db.dialect, copy=False)
    notes.append(f"GROUP BY {group}")


def english_terms(question: str) -> set[str] | None:
    """The question's stemmed words; None for a question not in plain ASCII (nothing here reads it)."""
    return set(tokenize(question)) if question.isascii() else None


def _simple_joins(select: exp.Select, tables: dict[str, str]) -> list[tuple[str, str]] | None:
    """(alias, alias) each join's condition links, when every join is an inner one on `a.x = b.y`."""
    links = []
    for join in select.args.get("joins") or []:
        on = join.args.get("on")
        if join.args.get("side") or (join.args.get("kind") or "INNER").upper() != "INNER" or join.args.get("using"):
            return None
        if not (isinstance(on, exp.EQ) and all(isinstance(s, exp.Column) and s.table for s in (on.this, on.expression))):
            return None
        pair = (on.this.table.lower(), on.expression.table.lower())
        if pair[0] == pair[1] or not set(pair) <= set(tables):
            return None
        links.append(pair)
    return links


def _used(db: SqlDatabase, select: exp.Select, tables: dict[str, str]) -> set[str] | None:
    """Aliases a column outside the join conditions may refer to (None: `*` selects them all)."""
    ons = {id(c) for j in select.args.get("joins") or [] for c in j.args["on"].find_all(exp.Column)}
    used: set[str] = set()
    for node in select.find_all(exp.Column, exp.Star):
        if isinstance(node, exp.Star) or isinstance(node.this, exp.Star):
            if isinstance(node, exp.Star) and isinstance(node.parent, exp.Count):
                continue  # COUNT(*) reads no column
            return None
        if id(node) in ons:
            continue
        name = node.name.lower()
        if node.table:
            used.add(node.table.lower())
        used |= {a for a, t in tables.items() if not node.table and name in _columns(db, t)}
    return used


def _drop_unneeded_joins(db: SqlDatabase, scope: Scope, tables: dict[str, str], notes: list[str],
                         question: str, reader: Terms = english_terms) -> None:
    """Rule 4 (`reader`: the question's words, stemmed, in the schema's language; None: unreadable)."""
    select = scope.expression
    if select.args.get("group") or select.args.get("having") or _aggregated(select.args.get("order")) or any(
            _aggregated(e) for e in select.expressions):
        return  # a count over the joined rows counts what the join repeats
    terms = reader(question) if question else None
    while terms is not None and select.args.get("joins"):
        links = _simple_joins(select, tables)
        used = _used(db, select, tables)
        if links is None or used is None:
            return
        first = (select.args.get("from_").this.alias_or_name or "").lower()
        order = [first] + [j.alias_or_name.lower() for j in select.args["joins"]]
        for pos, alias in enumerate(order):
            touching = [i for i, pair in enumerate(links) if alias in pair]
            words = identifier_tokens(tables[alias]) - EN_STOPWORDS
            if alias in used or len(touching) != 1 or words & terms:
                continue
            joins = select.args["joins"]
            if pos > 0 and touching == [pos - 1]:
                joins.pop(pos - 1)
            elif pos == 0 and touching == [0]:
                select.set("from_", exp.From(this=joins.pop(0).this))
            else:
                continue
            select.set("joins", joins)
            notes.append(f"dropped JOIN {tables[alias]} (only its join condition uses it; the question does not name it)")
            tables = {a: t for a, t in tables.items() if a != alias}
            break
        else:
            return


def fix_joins(db: SqlDatabase, sql: str, question: str = "", drop_unneeded: bool | Terms = False) -> tuple[str, list[str]]:
    """(`sql` with its joins repaired along the foreign keys, notes on what changed); unchanged when
    no rule applies. `question` (optional) names the table to count when several refer to one, and
    the tables a join may not be dropped from (`drop_unneeded`: rule 4; True reads English questions
    only, a callable such as `tools.understanding.glossary.question_terms` reads Chinese too)."""
    reader = drop_unneeded if callable(drop_unneeded) else english_terms
    def fix(scope: Scope, notes: list[str]) -> None:
        tables = _scope_tables(db, scope) if isinstance(scope.expression, exp.Select) else None
        rules = (_fix_self_joins, _fix_in_subqueries, _fix_ungrouped_counts) + (
            (partial(_drop_unneeded_joins, reader=reader),) if drop_unneeded else ())
        for rule in rules if tables else ():
            try:  # a rule that cannot read this scope leaves it to the others
                rule(db, scope, tables, notes, *((question,) if rule in rules[2:] else ()))
            except Exception:
                continue

    return rewrite_scopes(db, sql, fix)
