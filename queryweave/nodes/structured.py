"""`text_to_sql` and `text_to_cypher`: answer from a registered database or graph, read-only.

The tools select the schema, generate with the configured LLM, guard the query (one read-only
statement), run it under row and time caps and repair it on errors (at most 2 retries). The rows
become the answer, shown with the query that produced them.
"""

from __future__ import annotations

from typing import Any

from queryweave.config import context_of
from queryweave.models import get_chat_model, resolve_backend
from queryweave.nodes.common import language_of, query_of, timed
from queryweave.tools.stores.sources import open_graph, open_sql, redact

MAX_SHOWN = 20
FAILED = {"en": "I could not answer this from the {kind} source: {error}",
          "zh": "无法从{kind}数据源回答这个问题：{error}"}
NO_MATCH = {"en": "Nothing matched: {note}.", "zh": "没有匹配的行：{note}。"}  # an empty result, and why


def rows_table(columns: list[str], rows: list[Any]) -> str:
    """Rows as a small Markdown table (at most MAX_SHOWN rows)."""
    if not rows:
        return "(no rows)"
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for row in rows[:MAX_SHOWN]:
        lines.append("| " + " | ".join(str(v) for v in row) + " |")
    if len(rows) > MAX_SHOWN:
        lines.append(f"… {len(rows) - MAX_SHOWN} more rows")
    return "\n".join(lines)


def _finish(kind: str, query: str, columns: list[str], rows: list[Any], error: str | None, source: str,
            lang: str, backend: str, note: str | None = None) -> dict[str, Any]:
    if error:
        return {"answer": FAILED[lang if lang in FAILED else "en"].format(kind=kind, error=error), "citations": [],
                "confidence": 0.1, "backend": backend, kind.lower(): query}
    answer = f"{rows_table(columns, rows)}\n\n```{kind.lower()}\n{query}\n```"
    if note:
        answer = f"{rows_table(columns, rows)}\n\n{NO_MATCH[lang if lang in NO_MATCH else 'en'].format(note=note)}" \
                 f"\n\n```{kind.lower()}\n{query}\n```"
    return {"answer": answer, "rows": [dict(zip(columns, r, strict=False)) for r in rows[:100]],
            "citations": [{"chunk_id": kind.lower(), "source": source, "title": f"{kind} query", "text": query}],
            "confidence": 0.85 if rows else 0.3 if note else 0.5, "backend": backend, kind.lower(): query}


def _absent_values(db: Any, sql: str, rows: list[Any], lang: str) -> str | None:
    """For an empty result: which compared values the data does not hold, with the values it does."""
    from queryweave.tools.sql.literals import check_literals

    return None if rows or not sql else check_literals(db, sql, lang=lang, max_values=12)[1]


@timed("text_to_sql")
def text_to_sql(state: dict[str, Any], runtime: Any = None) -> dict[str, Any]:
    """Question -> guarded SQL -> rows."""
    from queryweave.tools.retrieval.self_query_match import named_value
    from queryweave.tools.sql.text_to_sql import TextToSQL
    from queryweave.tools.understanding.glossary import word_senses
    from queryweave.tools.understanding.zh_dictionary import name_readings, word_readings

    ctx = context_of(runtime)
    db = open_sql(ctx.sql_url)
    ans = TextToSQL(db, get_chat_model(ctx.model_settings()), samples=max(1, ctx.sql_samples),
                    value_names=named_value, seed=ctx.sample_seed, translate_questions=ctx.sql_translate,
                    bilingual=ctx.sql_bilingual, prompt_language=ctx.sql_prompt_language or None,
                    term_senses=word_senses if ctx.sql_term_links else None,
                    ground_values=word_readings if ctx.sql_ground_values else None,
                    hint_readings=name_readings if ctx.sql_reading_hints else None).ask(query_of(state))
    lang = language_of(state, ctx)
    note = None if ans.error else _absent_values(db, ans.sql, ans.rows, lang)
    return _finish("SQL", ans.sql, ans.columns, ans.rows, ans.error, redact(ctx.sql_url), lang,
                   resolve_backend(ctx.model_settings()), note)


@timed("text_to_cypher")
def text_to_cypher(state: dict[str, Any], runtime: Any = None) -> dict[str, Any]:
    """Question -> guarded Cypher -> rows."""
    from queryweave.tools.cypher.text_to_cypher import TextToCypher

    ctx = context_of(runtime)
    ans = TextToCypher(open_graph(ctx.graph_url), get_chat_model(ctx.model_settings()),
                       samples=max(1, ctx.cypher_samples), seed=ctx.sample_seed).ask(query_of(state))
    columns = list(ans.rows[0]) if ans.rows else []
    rows = [tuple(r.values()) for r in ans.rows]
    return _finish("Cypher", ans.query, columns, rows, ans.error, redact(ctx.graph_url), language_of(state, ctx),
                   resolve_backend(ctx.model_settings()))
