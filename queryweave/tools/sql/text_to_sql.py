"""Text-to-SQL: select tables, prompt the model, extract and guard the SQL, run it, repair, retry.

The loop: schema linking (`schema_select`) -> prompt (`queryweave.prompts.sql`, with a few question ->
SQL examples written from the selected tables, `fewshot`, as earlier turns) -> the model's SQL
(plain text with a code block, or function calling) -> the read-only guard -> execution with limits.
Before running, two schema-driven repairs: columns named on the wrong table are moved, joined or
renamed (`schema_fix`), and non-ASCII literals missing from their column are translated by one short
model call and accepted only when they match a real value (`value_map`). A blocked query, an execution
error, or a string literal that is still not a value of its column is fed back and the model tries
again, at most `max_retries` times. Literals that differ from a database value only in case are
fixed without asking.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from queryweave.prompts import pick
from queryweave.prompts import sql as P
from queryweave.tools.common.examples import Example, nearest
from queryweave.tools.common.guard_result import query_in_reply
from queryweave.tools.common.sampling import Seeds
from queryweave.tools.common.text import cjk_ratio, detect_language
from queryweave.tools.common.vote import majority
from queryweave.tools.sql.column_link import column_scores, join_keys, top_columns
from queryweave.tools.sql.column_link import table_scores as linked_table_scores
from queryweave.tools.sql.database import SqlDatabase
from queryweave.tools.sql.fewshot import sql_examples
from queryweave.tools.sql.guard import check_sql
from queryweave.tools.sql.join_fix import Terms
from queryweave.tools.sql.join_fix import fix_joins as repair_joins
from queryweave.tools.sql.literals import check_literals
from queryweave.tools.sql.repair import explain_error
from queryweave.tools.sql.schema_fix import fix_columns
from queryweave.tools.sql.schema_select import hint_lines, select_tables
from queryweave.tools.sql.shape import Shape, question_shape
from queryweave.tools.sql.term_links import Senses, term_links
from queryweave.tools.sql.translate import english_question, stored_names
from queryweave.tools.sql.value_link import relink_values
from queryweave.tools.sql.value_map import Named, Readings, map_translated, proposal_of

_FENCE = re.compile(r"```(?:sql|sqlite|postgresql)?\s*\n?(.*?)```", re.S | re.I)
_START = re.compile(r"\b(SELECT|WITH)\b", re.I)
_DIALECTS = {"sqlite": "SQLite", "postgres": "PostgreSQL", "mysql": "MySQL"}  # as the prompts name them


class SqlQuery(BaseModel):
    """One SQL query answering the question."""

    sql: str = Field(description="a single read-only SELECT query")


@dataclass
class SqlAnswer:
    """What the loop produced: the final SQL and its rows, or the error that remained."""

    question: str
    sql: str = ""
    columns: list[str] = field(default_factory=list)
    rows: list[tuple] = field(default_factory=list)
    error: str | None = None
    attempts: list[dict[str, Any]] = field(default_factory=list)
    tables: list[str] = field(default_factory=list)
    truncated: bool = False
    votes: dict[str, int] = field(default_factory=dict)  # with samples > 1: queries run, queries agreeing
    translation: str = ""  # the English question the pipeline worked from, when it translated one
    shape: str = ""  # with shape checks on: the result shape the question asks for (`tools.sql.shape`)
    shape_fits: bool | None = None  # and whether the final result has it

    @property
    def ok(self) -> bool:
        """True when a guarded query ran without error."""
        return self.error is None and bool(self.sql)


def extract_sql(text: str) -> str:
    """The SQL in a model reply: a fenced block if any, else from the first SELECT/WITH on."""
    body = query_in_reply(text, _FENCE, _START)
    if ";" in body:  # keep the first statement when the model wrote several
        body = body.split(";")[0].strip() if check_sql(body).reason.endswith("exactly one SELECT is allowed") else body
    return body


class TextToSQL:
    """Question -> guarded SQL -> rows, with schema selection and bounded repair."""

    def __init__(self, db: SqlDatabase, llm: BaseChatModel | None, max_retries: int = 2, max_tables: int = 5,
                 low_cardinality: int = 12, method: str = "text", retry_temperature: float = 0.3,
                 fix_schema: bool = True, map_values: bool = True, translate_questions: bool = False,
                 examples: int = 3, samples: int = 1, vote_temperature: float = 0.7, link_schema: bool = True,
                 example_pool: Sequence[Example] = (), pool_examples: int = 0, value_cutoff: float = 0.8,
                 shape_repairs: bool = True, shape_select: int = 2, link_columns: bool = False,
                 embeddings: Embeddings | None = None, fix_joins: bool = True, value_names: Named | None = None,
                 seed: int | None = None, drop_joins: bool | Terms = False, link_values: bool = True,
                 cross_lingual_tables: Terms | None = None, term_senses: Senses | None = None,
                 bilingual: bool = True, prompt_language: str | None = None, ground_values: Readings | None = None,
                 hint_readings: Readings | None = None, translation_names: Readings | None = None,
                 asked_only: bool = False):
        """`method` is `text` (SQL in a code block, robust for small models) or `function_calling`.

        `fix_schema` turns on the wrong-table column repair, `map_values` the translation of non-ASCII literals to
        database values (by `value_names` first when given, no model call, then by the model: `tools.sql.value_map`),
        `translate_questions` one model call that turns a Chinese question into English first, quoted values kept
        (`tools.sql.translate`; off by default).
        `examples` is the number of schema-derived few-shot pairs shown as earlier turns (0: none).
        `samples` > 1 turns on self-consistency: once a query has run, `samples - 1` more are sampled at
        `vote_temperature` from the same prompt, and the result most of them return wins (`tools.common.vote`);
        `answer.votes` says how many ran and how many agreed.
        `link_schema` off shows every table and no value hints (the ablation of schema linking).
        `example_pool` holds worked pairs from other databases; the `pool_examples` nearest to the question come first
        among the earlier turns (`tools.common.examples`). `value_cutoff` is the `difflib` ratio a translated literal
        needs to be taken as a stored value.
        `shape_repairs` (on by default, as `shape_select=2`: both were kept by the leave-one-database-out runs of
        bench/results_structured.md): a query that runs but whose result lacks the shape the question asks for (a
        count, one row, one row per group, at most N rows: `tools.sql.shape`) is fed back like an error while retries
        are left, and a repaired query is taken only when its result has that shape (else the first query that ran is
        kept). `shape_select` > 0: when the result still lacks the shape, up to that many more queries are sampled at
        `vote_temperature` and the first whose result has it is taken (execution-guided selection).
        `link_columns` (off by default: it lowered accuracy in those runs) scores every column by the question's
        words, stored values and meaning (`embeddings`, multilingual, when given: `tools.sql.column_link`); the prompt
        then lists the best columns and the keys joining their tables, and the scores choose the tables of a large
        schema and break the schema repair's join-or-replace tie.
        `fix_joins` (on by default) rewrites joins that contradict the declared foreign keys before a query runs: a
        join condition comparing one table with itself, an `IN` subquery on an unrelated key, a count ordered without
        a grouping (`tools.sql.join_fix`); `drop_joins` (off by default) also drops an inner join nothing but its own
        condition uses and the question never names (True: English questions; a callable reading a question's words,
        e.g. `glossary.question_terms`).
        `link_values` (on by default) moves a comparison whose values its column never holds to the one other column
        of the query's tables that holds them all (`Region = 'Africa'` -> `Continent = 'Africa'`:
        `tools.sql.value_link`).
        `cross_lingual_tables`, a reader such as `glossary.question_terms`, chooses a Chinese question's tables by the
        English readings of its words, not its few Latin words and numbers (`schema_select`). None by default: on 58
        unseen-database questions it lost one (bench/results_structured.md, 27th session).
        `term_senses`, a reader of a question's words and their English readings such as `glossary.word_senses`, lists
        for a Chinese question the tables and columns its words name ("面积 → country.SurfaceArea":
        `tools.sql.term_links`); None by default (see bench/results_structured.md, 28th session).
        `bilingual` (on by default: it met its criterion on never-scored questions, 28th session): a Chinese question
        is shown with its English translation beside it (the same call as `translate_questions`); everything else
        still reads the Chinese question.
        `prompt_language` ("en", "zh"; None, the default: the question's) sets the language of everything around the
        unchanged question (instructions, examples, hints, feedback; 30th session).
        `ground_values`, a reader such as `zh_dictionary.word_readings` (the graph and `eval sql` pass it: on by
        default there, 32nd session; None here), replaces a Chinese question's literal that none of its words reads to
        by the one value of its column that a word reads to (`value_map.ground_literals`; in `map_values`).
        `hint_readings` (such a reader; None by default, 33rd session) adds to a Chinese question's value hints the
        stored values its words read to (`schema_select.reading_hints`: "- state.state_name = 'nebraska' (内布拉斯加州)").
        `translation_names` (such a reader; None by default, 35th session): the question translated carries the stored
        values its words read to in place of the words (`translate.with_names`: 得克萨斯州 -> Texas); `asked_only` (off by
        default, 35th session) drops a translation that answers instead of asking ("Denver is in Colorado.").
        `seed`: the sampled calls of one question (retries, votes, shape samples) carry seeds `seed`, `seed + 1`, … so
        that a run can be repeated and another seed draws anew (`tools.common.sampling`); None leaves the draw to the
        endpoint.
        """
        self.seed, self._seeds = seed, Seeds(seed)
        self.fix_joins, self.drop_joins, self.link_values = fix_joins, drop_joins, link_values
        self.cross_lingual_tables, self.term_senses = cross_lingual_tables, term_senses
        self.bilingual, self.prompt_language = bilingual, prompt_language
        self.shape_repairs, self.shape_select = shape_repairs, shape_select
        self.ground_values, self.hint_readings, self.translation_names = ground_values, hint_readings, translation_names
        self.link_columns, self.embeddings, self.asked_only = link_columns, embeddings, asked_only
        self._linked: dict[str, tuple[dict[tuple[str, str], float], dict[str, float]]] = {}
        self.link_schema = link_schema
        self.example_pool = list(example_pool)
        self.pool_examples, self.value_cutoff = pool_examples, value_cutoff
        self.samples, self.vote_temperature, self.examples = samples, vote_temperature, examples
        self.translate_questions, self.fix_schema, self.retry_temperature = translate_questions, fix_schema, retry_temperature
        self.map_values, self.value_names = map_values, value_names
        self.db, self.llm = db, llm
        self.max_retries = max_retries
        self.max_tables = max_tables
        self.low_cardinality = low_cardinality
        self.method = method

    def messages(self, question: str, lang: str | None = None) -> tuple[list[BaseMessage], list[str]]:
        """The opening prompt for `question` and the tables it shows."""
        lang = lang or detect_language(question)
        plang = self.prompt_language or lang
        linked = self._link(question)
        if self.link_schema:
            tables = select_tables(self.db, question, self.max_tables, scores=linked[1] if linked else None,
                                   reader=self.cross_lingual_tables)
        else:
            tables = list(self.db.tables())
        schema = self.db.schema_text(tables, low_cardinality=self.low_cardinality)
        system = pick(P.SYSTEM, plang).format(dialect=_DIALECTS.get(self.db.dialect, self.db.dialect), schema=schema)
        if plang != lang and lang == "zh":
            system += "\n" + P.CHINESE_QUESTION
        hints = hint_lines(self.db, question, tables, self.hint_readings if lang == "zh" else None) \
            if self.link_schema else []
        if hints:
            system += "\n\n" + pick(P.VALUE_HINTS, plang).format(hints="\n".join(hints))
        links = term_links(self.db, question, tables, self.term_senses) \
            if self.term_senses is not None and cjk_ratio(question) > 0 else []
        if links:
            lines = "\n".join(f"- {w} → {', '.join(names)}" for w, names in links)
            system += "\n\n" + pick(P.TERM_LINKS, plang).format(links=lines)
        best = top_columns(linked[0], tables) if linked else []
        if best:
            keys = join_keys(self.db, list(dict.fromkeys(t for t, _ in best)))
            joins = pick(P.JOIN_HINTS, plang).format(joins="; ".join(keys)) if keys else ""
            system += "\n\n" + pick(P.COLUMN_HINTS, plang).format(
                columns=", ".join(f"{t}.{c}" for t, c in best), joins=joins)
        out: list[BaseMessage] = [SystemMessage(system)]
        for ex in self.pool_shown(question):
            out += [HumanMessage(pick(P.POOL_QUESTION, plang).format(question=ex.question)),
                    AIMessage(P.ANSWER.format(sql=ex.query))]
        for q, sql in sql_examples(self.db, tables, plang, self.examples) if self.examples else []:
            out += [HumanMessage(pick(P.QUESTION, plang).format(question=q)), AIMessage(P.ANSWER.format(sql=sql))]
        return out + [HumanMessage(pick(P.QUESTION, plang).format(question=question))], tables

    def _link(self, question: str) -> tuple[dict[tuple[str, str], float], dict[str, float]] | None:
        """(column scores, table scores) for `question` when `link_columns` is on, else None."""
        if not self.link_columns:
            return None
        if question not in self._linked:
            cols = column_scores(self.db, question, self.embeddings)
            self._linked[question] = cols, linked_table_scores(cols, self.db, question)
        return self._linked[question]

    def pool_shown(self, question: str) -> list[Example]:
        """The worked examples from the pool that the prompt for `question` shows."""
        return nearest(question, self.example_pool, self.pool_examples)

    def _generate(self, messages: list[BaseMessage], warmer: bool = False, temperature: float = 0.0) -> str:
        llm = self.llm
        if warmer:  # a little sampling on retries, so the model does not write the same query again
            temperature = self.retry_temperature
        if temperature:
            llm = self._seeds.bind(self.llm, temperature)
        if self.method == "function_calling":
            out = llm.with_structured_output(SqlQuery, method="function_calling").invoke(messages)
            if isinstance(out, dict):
                out = SqlQuery.model_validate(out)
            return out.sql if out else ""
        return str(llm.invoke(messages).content)

    def ask(self, question: str, lang: str | None = None) -> SqlAnswer:
        """Answer `question` with rows from the database (or a clear error)."""
        lang = lang or detect_language(question)
        answer = SqlAnswer(question)
        self._seeds = Seeds(self.seed)
        if self.llm is None:
            answer.error = pick(P.NEEDS_LLM, lang)
            return answer
        if (self.translate_questions or self.bilingual) and lang == "zh":
            answer.translation = english_question(self.llm, question, stored_names(
                self.db, question, self.translation_names, self.max_tables, self.cross_lingual_tables), self.asked_only)
        read = answer.translation if self.translate_questions and answer.translation else question
        lang = lang if read == question else "en"
        messages, answer.tables = self.messages(read, lang)
        plang = self.prompt_language or lang  # the language of everything around the question
        if read == question and answer.translation:
            beside = pick(P.BESIDE, plang).format(question=messages[-1].content, english=answer.translation)
            messages[-1] = HumanMessage(beside)
        shape = question_shape(read, lang) if self._shaped else None
        if shape is not None:
            answer.shape = shape.kind
        ran: list[SqlAnswer] = []  # the results that ran, in order
        failures: list[str] = []
        for attempt in range(self.max_retries + 1):
            prompt = messages
            if failures:  # a fresh turn that lists every failed try (small models echo a conversation)
                repair = pick(P.REPAIR, plang).format(failures="\n".join(failures))
                prompt = messages[:-1] + [HumanMessage(f"{messages[-1].content}\n\n{repair}")]
            try:
                reply = self._generate(prompt, warmer=attempt > 0)
            except Exception as exc:  # endpoint down, malformed tool call...
                answer.attempts.append({"sql": "", "error": f"model call failed: {exc}"[:300]})
                answer.error = answer.attempts[-1]["error"]
                break
            sql = extract_sql(reply)
            feedback = self._run(answer, sql)
            if feedback is None:
                ran.append(_snapshot(answer))
                if shape is None or shape.fits(answer.rows) or not self.shape_repairs:
                    break
                feedback = shape.describe(answer.rows, plang)
                answer.attempts[-1]["shape"] = feedback
                if attempt == self.max_retries:
                    break
            failures.append(pick(P.FAILURE, plang).format(sql=sql, error=feedback))
        if not ran:
            return answer
        if shape is not None and self.shape_select and not any(shape.fits(r.rows) for r in ran):
            ran += self._sample(answer, messages, self.shape_select, shape)
        if self.samples > 1:
            ran += self._sample(answer, messages, self.samples - 1)
            return self._vote(answer, ran, shape)
        fitting = [r for r in ran if shape is None or shape.fits(r.rows)]
        _restore(answer, (fitting or ran)[0], vote=False)
        if shape is not None:
            answer.shape_fits = bool(fitting)
        return answer

    @property
    def _shaped(self) -> bool:
        return self.shape_repairs or self.shape_select > 0

    def _sample(self, answer: SqlAnswer, messages: list[BaseMessage], n: int,
                stop: Shape | None = None) -> list[SqlAnswer]:
        """Up to `n` more queries sampled from the opening prompt, each through the guard and repairs:
        the results that ran (with `stop`, sampling ends at the first whose result has that shape)."""
        out: list[SqlAnswer] = []
        for _ in range(n):
            try:
                reply = self._generate(messages, temperature=self.vote_temperature)
            except Exception:  # the endpoint failed: go on with what ran
                break
            other = SqlAnswer(answer.question, tables=answer.tables, translation=answer.translation)
            if self._run(other, extract_sql(reply)) is None:
                out.append(other)
                answer.attempts.append({**other.attempts[-1], "sampled": True})
                if stop is not None and stop.fits(other.rows):
                    break
        return out

    def _vote(self, answer: SqlAnswer, ran: list[SqlAnswer], shape: Shape | None = None) -> SqlAnswer:
        """Keep the result most of the queries that ran agree on (the earliest breaks ties); with a
        shape, only results that have it vote when any does."""
        voters = [r for r in ran if shape is None or shape.fits(r.rows)] or ran
        win, agree = majority([(i, a.rows) for i, a in enumerate(voters)])
        chosen = voters[max(win, 0)]
        _restore(answer, chosen, vote=chosen is not ran[0])
        answer.votes = {"samples": self.samples, "ran": len(ran), "agree": agree}
        if shape is not None:
            answer.shape_fits = shape.fits(chosen.rows)
        return answer

    def _translate(self, value: str, table: str, column: str, examples: list[str]) -> str | None:
        """The model's guess at how `table.column` stores `value` (one short call, first line only).

        The column's values are deliberately not shown: a small model then tends to echo the first one.
        """
        prompt = P.TRANSLATE_VALUE.format(table=table, column=column, value=value)
        reply = str(self.llm.invoke([HumanMessage(prompt)]).content).strip().strip("`").strip()
        return proposal_of(reply.splitlines()[0]) if reply else None

    def _run(self, answer: SqlAnswer, sql: str) -> str | None:
        """Guard, run and check one query; returns feedback for the model, or None when done."""
        verdict = check_sql(sql, self.db.dialect)
        answer.sql = sql
        if not verdict.allowed:
            answer.error = f"blocked by the guard: {verdict.reason}"
            answer.attempts.append({"sql": sql, "error": answer.error})
            return answer.error
        repairs: list[str] = []
        if self.fix_schema:
            linked = self._link(answer.translation or answer.question)
            sql, notes = fix_columns(self.db, sql, answer.translation or answer.question,
                                     table_scores=linked[1] if linked else None)
            repairs += notes
        if self.fix_joins:
            sql, notes = repair_joins(self.db, sql, answer.translation or answer.question, self.drop_joins)
            repairs += notes
        if self.map_values and not answer.question.isascii():
            sql, notes = map_translated(self.db, sql, self._translate if self.llm is not None else None,
                                        cutoff=self.value_cutoff, named=self.value_names,
                                        question=answer.question, readings=self.ground_values)
            repairs += notes
        if self.link_values:
            sql, notes = relink_values(self.db, sql, cutoff=self.value_cutoff)
            repairs += notes
        answer.sql = sql
        lang = "en" if answer.translation else detect_language(answer.question)
        fixed, problem = check_literals(self.db, sql, lang=lang)
        if fixed != sql:
            sql = answer.sql = fixed
        result = self.db.run(sql)
        answer.columns, answer.rows, answer.truncated = result.columns, result.rows, result.truncated
        answer.error = result.error
        answer.attempts.append({"sql": sql, "error": result.error or problem, "repairs": repairs})
        if result.error:
            return explain_error(self.db, result.error, lang)
        if problem and len(answer.attempts) <= self.max_retries:
            return problem
        return None


def _snapshot(answer: SqlAnswer) -> SqlAnswer:
    """A copy of what one run produced (the query and its result)."""
    return SqlAnswer(answer.question, sql=answer.sql, columns=list(answer.columns), rows=list(answer.rows),
                     error=answer.error, truncated=answer.truncated, attempts=answer.attempts[-1:])


def _restore(answer: SqlAnswer, chosen: SqlAnswer, vote: bool) -> None:
    """Make `chosen`'s query and result the answer's (its attempts stay as they were)."""
    if (answer.sql, answer.rows) == (chosen.sql, chosen.rows):
        return
    answer.sql, answer.columns, answer.rows = chosen.sql, list(chosen.columns), list(chosen.rows)
    answer.truncated, answer.error = chosen.truncated, chosen.error
    if chosen.attempts:
        answer.attempts.append({**chosen.attempts[-1], "vote" if vote else "chosen": True})
