"""Which tables and values of a database a question is about: lexical schema linking.

Question words (stemmed) are matched against table and column names (split on `_` and camelCase)
and against database values; matched tables bring their foreign-key neighbours along so joins stay
possible. Chinese questions rarely share words with English schemas: given a `reader` (such as
`tools.understanding.glossary.question_terms`: the English readings of a question's Chinese words), a
question with Han characters is scored by its readings instead, less bare numbers (a "2" is a value,
not the `2` of `line_2`); when nothing matches, every table is kept, and low-cardinality text columns
list their values in the prompt instead.

`value_hints` lists stored values equal to a question's Latin terms; `reading_hints` does the same for a
Chinese question through its words' English readings (`zh_dictionary.word_readings`, passed in), so the
prompt can show `state.state_name = 'nebraska' (内布拉斯加州)`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from queryweave.tools.common.text import EN_STOPWORDS, cjk_ratio, tokenize, words
from queryweave.tools.sql.database import SqlDatabase
from queryweave.tools.sql.value_map import Readings, column_values

_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_QUOTED = re.compile(r"[\"'“‘]([^\"'”’]{2,60})[\"'”’]")

Reader = Callable[[str], "set[str] | None"]


def name_pieces(name: str) -> list[str]:
    """Stemmed pieces of an identifier in order: `SurfaceArea` -> [surfac, area]; `car_makers` -> [car, maker]."""
    parts = [p for chunk in re.split(r"[_\W]+", name) for p in _CAMEL.findall(chunk)]
    return tokenize(" ".join(parts), stopwords=False)


def identifier_tokens(name: str) -> set[str]:
    """Stemmed pieces of an identifier and the whole name: `FullName` -> {full, name, fullname}."""
    return set(name_pieces(name)) | {name.lower()}


def own_words(question: str) -> set[str]:
    """A reader that keeps the question's own words (with `question_words`: numbers dropped, no readings)."""
    return set(tokenize(question, stopwords=True))


def question_words(question: str, reader: Reader | None = None) -> set[str]:
    """The stemmed words a question's tables are scored by: its own, or for a question with Han
    characters and a `reader`, the reader's terms less bare numbers."""
    if reader is not None and cjk_ratio(question) > 0:
        read = reader(question)
        if read is not None:
            return {w for w in read if not w.isdigit()}
    return set(tokenize(question, stopwords=True))


def table_scores(db: SqlDatabase, question: str, reader: Reader | None = None) -> dict[str, float]:
    """A lexical relevance score per table: name hits count double, column hits once."""
    q = question_words(question, reader)
    scores: dict[str, float] = {}
    for name, info in db.tables().items():
        score = 2.0 * len(identifier_tokens(name) & q)
        for col, _ in info.columns:
            score += 1.0 * bool(identifier_tokens(col) & q - {"id"})
        scores[name] = score
    return scores


def candidate_terms(question: str, limit: int = 10) -> list[str]:
    """Pieces of the question that may be database values: quoted strings, names, numbers, words."""
    terms: list[str] = [m.group(1).strip() for m in _QUOTED.finditer(question)]
    latin = [w for w in words(question) if w.isascii()]
    caps = []
    run: list[str] = []
    for i, w in enumerate(latin + [""]):
        if w[:1].isupper() and i > 0:
            run.append(w)
        else:
            if run:
                caps.append(" ".join(run))
            run = []
    terms += caps
    terms += [w for w in latin if len(w) >= 3 and w.lower() not in EN_STOPWORDS and not w.isdigit()]
    seen: set[str] = set()
    out = []
    for t in terms:
        if t.lower() not in seen:
            seen.add(t.lower())
            out.append(t)
    return out[:limit]


def value_hints(db: SqlDatabase, question: str, tables: list[str], limit: int = 8) -> list[tuple[str, str, Any]]:
    """(table, column, value) for database values equal to (case-insensitively) a term of the question."""
    hits: list[tuple[str, str, Any]] = []
    q = db.quote
    for term in candidate_terms(question):
        safe = term.replace("'", "''")
        for table in tables:
            for col in db.text_columns(table):
                res = db.run(f"SELECT DISTINCT {q(col)} FROM {q(table)} WHERE lower({q(col)}) = lower('{safe}') "
                             f"LIMIT 2", max_rows=2)
                hits.extend((table, col, r[0]) for r in res.rows)
        if len(hits) >= limit:
            break
    return hits[:limit]


def reading_hints(db: SqlDatabase, question: str, tables: list[str], readings: Readings,
                  limit: int = 8) -> list[tuple[str, str, Any, str]]:
    """(table, column, value, word) for stored values equal (ignoring case) to an English reading of three or
    more letters of a word of `question`, longer words first (a Chinese question's value hints). A word inside
    quotation marks is left out: a quoted span is already a literal the model copies and the value mapping reads
    (“巴西” -> 'Brazil'), and hinting it again changed a small model's queries for the worse (33rd session)."""
    quoted = [m.group(1) for m in _QUOTED.finditer(question)]
    found = sorted(((word, sorted(r for r in heard if sum(ch.isalpha() for ch in r) >= 3))
                    for word, heard in readings(question) if not any(word in span for span in quoted)),
                   key=lambda wr: -len(wr[0]))
    found = [(word, heard) for word, heard in found if heard]
    if not found:  # nothing to look for: no column is read
        return []
    stored = {(t, c): {v.lower().strip(): v for v in column_values(db, t, c)}
              for t in tables for c in db.text_columns(t)}
    hits: dict[tuple[str, str, Any], str] = {}
    for word, heard in found:
        for reading in heard:
            for (table, col), values in stored.items():
                if reading in values:
                    hits.setdefault((table, col, values[reading]), word)
        if len(hits) >= limit:
            break
    return [(t, c, v, w) for (t, c, v), w in hits.items()][:limit]


def hint_lines(db: SqlDatabase, question: str, tables: list[str], readings: Readings | None = None,
               limit: int = 8) -> list[str]:
    """The prompt's value-hint lines: `value_hints`, then (given `readings`) `reading_hints` up to `limit`."""
    lines = [f"- {t}.{c} = {v!r}" for t, c, v in value_hints(db, question, tables, limit)]
    if readings is not None and len(lines) < limit:
        lines += [f"- {t}.{c} = {v!r} ({w})" for t, c, v, w in
                  reading_hints(db, question, tables, readings, limit - len(lines))]
    return lines


def select_tables(db: SqlDatabase, question: str, max_tables: int = 5,
                  scores: dict[str, float] | None = None, reader: Reader | None = None) -> list[str]:
    """The tables worth showing for `question`: all of a small schema, else matches plus FK neighbours.
    `scores` (per table) replaces the lexical name and value scores when given; `reader`: see the
    module docstring."""
    infos = db.tables()
    names = list(infos)
    if len(names) <= max_tables:
        return names
    if scores is None:
        scores = table_scores(db, question, reader)
        for table, _, _ in value_hints(db, question, names):
            scores[table] = scores.get(table, 0) + 2.0
    scores = {n: scores.get(n, 0.0) for n in names}
    picked = [n for n in sorted(names, key=lambda n: -scores[n]) if scores[n] > 0][:max_tables]
    if not picked:
        return names
    neighbours: list[str] = []
    for name in picked:
        for _, ref, _ in infos[name].foreign_keys:
            neighbours.append(ref)
        neighbours += [o for o, info in infos.items() if any(ref == name for _, ref, _ in info.foreign_keys)]
    extra = [n for n in dict.fromkeys(neighbours) if n not in picked]
    # bridge tables (pointing at two picked tables) first, then other neighbours
    extra.sort(key=lambda n: -sum(ref in picked for _, ref, _ in infos[n].foreign_keys))
    return [n for n in names if n in picked + extra[: max(0, max_tables + 2 - len(picked))]]
