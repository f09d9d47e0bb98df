"""Turn a database error into feedback a small model can act on.

"no such column: T2.Sex" alone rarely leads a 0.5B model to the fix; "column Sex exists in: Student"
often does. Missing tables get the list of real tables, ambiguous columns the tables that have them,
aggregate misuse a reminder about GROUP BY / HAVING.
"""

from __future__ import annotations

import difflib
import re

from queryweave.prompts import pick
from queryweave.prompts import sql as P
from queryweave.tools.sql.database import SqlDatabase


def _owners(db: SqlDatabase, column: str) -> list[str]:
    return [f"{t}.{c}" for t, info in db.tables().items() for c, _ in info.columns if c.lower() == column.lower()]


def explain_error(db: SqlDatabase, error: str, lang: str = "en") -> str:
    """The error with a hint appended when one helps; the error unchanged otherwise."""
    hint = ""
    m = re.search(r"no such column: (?:[\w\"`]+\.)?[\"`]?(\w+)|ambiguous column name: (?:\w+\.)?(\w+)", error, re.I)
    if m:
        column = m.group(1) or m.group(2)
        owners = _owners(db, column)
        if owners:
            hint = pick(P.HINT_COLUMN_IN, lang).format(column=column, where=", ".join(owners))
        else:
            every = [f"{t}.{c}" for t, info in db.tables().items() for c, _ in info.columns]
            names = {e.split(".", 1)[1].lower(): e for e in every}
            close = [names[n] for n in difflib.get_close_matches(column.lower(), list(names), n=3, cutoff=0.6)]
            close += [e for e in every if column.lower() in e.lower() and e not in close][:3]
            hint = pick(P.HINT_NO_COLUMN, lang).format(column=column, similar=", ".join(close[:4]) or "-")
    elif re.search(r"no such table", error, re.I):
        hint = pick(P.HINT_TABLES, lang).format(tables=", ".join(db.tables()))
    elif re.search(r"misuse of aggregate", error, re.I):
        hint = pick(P.HINT_AGGREGATE, lang)
    return f"{error} ({hint})" if hint else error
