"""Words of a Chinese question aligned with the table and column names they mean, by their readings.

A Chinese question shares no words with an English schema, so a small model guesses which column
"面积" is (it picked `Region` for it). Given the question's words with the stemmed English words of
their dictionary readings (`Senses`, e.g. `tools.understanding.glossary.word_senses`: 面积 -> {area},
{surface, area}), a word is linked to a name of the shown tables when one reading: equals the name's
pieces (年龄 -> `Age`), equals them less the table's own (`singer.Singer_Name`), or holds them all (体重
"body weight" -> `Weight`); two adjacent words (or two joined by 的) together when their readings joined (a verb's too) equal a
name or hold its last piece and part of the rest (经理 + 姓名 -> `manager_name`, 歌曲的名字 -> `Song_Name`,
发行 + 年份 -> `Song_release_year`); failing all these, a one-word reading naming the last piece (面积 "area" ->
`SurfaceArea`). Tables come before columns, and a column of a table the question names before one of
another table. Readings that ask for an operation (平均 "average", 多少 "number") and key columns
(`Teacher_ID`) link nothing; a word linked to more than `max_names` names says nothing and is left out.
The prompt lists the links; nothing is taken out of it. No data of any evaluation set is used.
"""

from __future__ import annotations

from collections.abc import Callable

from queryweave.tools.sql.database import SqlDatabase
from queryweave.tools.sql.schema_select import name_pieces

Senses = Callable[[str], "list[tuple[str, list[tuple[frozenset[str], bool]]]]"]  # word, [(reading, is a verb)]
Links = list[tuple[str, list[str]]]

_KEYS = {"id"}
# readings that ask for an operation (多少, 平均, 最高), not a column, even where a column is so named
_OPERATIONS = {"number", "amount", "count", "total", "sum", "quantiti", "averag", "mean", "highest", "lowest",
               "maximum", "minimum", "max", "min", "most", "least"}


def _names(sense: frozenset[str], pieces: list[str], table: set[str], how: str) -> bool:
    """Whether a reading (its stemmed words) names an identifier (its pieces; `table`: its table's).
    `how`: `word` (one word's reading, wholly), `pair` (two words' readings joined), `head` (one word
    naming the last piece, the other pieces real words, not the `L` of `LName`)."""
    own = set(pieces)
    if not own or own & _KEYS or sense & _OPERATIONS:
        return False
    if sense == own or (own - table and sense == own - table):
        return True
    if how == "word":
        return own <= sense
    if how == "pair":
        return len(sense) > 1 and sense < own and pieces[-1] in sense
    return len(sense) == 1 and pieces[-1] in sense and all(len(p) > 1 for p in pieces)


def _named(readings: list[frozenset[str]], tables: list[str], columns: dict[str, list[str]], how: str,
           asked: list[list[str]]) -> list[str]:
    """The tables the readings name, else the columns: of the nearest table named before them (`asked`:
    the tables named by each earlier word, nearest last: 歌手的名字 -> `singer.Name`) when it has any,
    else of any table named, else all."""
    named = [t for t in tables if any(_names(s, name_pieces(t), set(), how) for s in readings)]
    if named:
        return named
    cols = [(t, c) for t in tables for c in columns[t]
            if any(_names(s, name_pieces(c), set(name_pieces(t)), how) for s in readings)]
    for near in [*reversed(asked), [t for ts in asked for t in ts]]:
        own = [(t, c) for t, c in cols if t in near]
        if own:
            return [f"{t}.{c}" for t, c in own]
    return [f"{t}.{c}" for t, c in cols]


def term_links(db: SqlDatabase, question: str, tables: list[str], senses: Senses, max_names: int = 3) -> Links:
    """(question words, [`table` or `table.column`, ...]) for the words of `question` that name at most
    `max_names` tables or columns of `tables` (see the module docstring)."""
    infos = db.tables()
    columns = {t: [c for c, _ in infos[t].columns] for t in tables}
    read = senses(question)
    spans = [(w, [s for s, verb in r if not verb]) for w, r in read]  # 列出 "to make a list" names no `Make`
    no_columns: dict[str, list[str]] = {t: [] for t in tables}
    asked = [_named(readings, tables, no_columns, "word", []) for _, readings in spans]
    found: dict[int, tuple[str, list[str]]] = {}
    taken: set[int] = set()
    for i in range(len(read) - 1):  # a verb may qualify the next word: 发行 + 年份 "release year"
        (w1, r1), (w2, r2) = read[i], read[i + 1]
        joined = next((w1 + mid + w2 for mid in ("", "的") if w1 + mid + w2 in question), None)
        if joined is None or i in taken:
            continue
        named = _named([a | b for a, _ in r1 for b, _ in r2], tables, columns, "pair", asked[:i])
        if 0 < len(named) <= max_names:
            found[i] = (joined, named)
            taken |= {i, i + 1}
    for how in ("word", "head"):
        for i, (word, readings) in enumerate(spans):
            if i in taken:
                continue
            named = _named(readings, tables, columns, how, asked[:i])
            if 0 < len(named) <= max_names:
                found[i] = (word, named)
                taken.add(i)
    out: Links = []
    for _, (word, named) in sorted(found.items()):
        if all(word != w for w, _ in out):
            out.append((word, named))
    return out
