"""The naive Text-to-SQL baseline the evaluations score the pipeline against: the whole schema, one
shot, no selection, no value hints, no retry (still guarded and run with limits)."""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage

from queryweave.prompts import pick
from queryweave.prompts import sql as P
from queryweave.tools.common.text import detect_language
from queryweave.tools.sql.database import SqlDatabase
from queryweave.tools.sql.guard import check_sql
from queryweave.tools.sql.text_to_sql import SqlAnswer, extract_sql


def naive_sql(db: SqlDatabase, llm: BaseChatModel, question: str) -> SqlAnswer:
    """The baseline: whole schema, one shot, no selection, no value hints, no retry (still guarded)."""
    lang = detect_language(question)
    answer = SqlAnswer(question, tables=list(db.tables()))
    schema = "\n".join(t.render() .split("\n")[0] for t in db.tables().values())
    prompt = pick(P.NAIVE, lang).format(schema=schema, question=question)
    try:
        sql = extract_sql(str(llm.invoke([HumanMessage(prompt)]).content))
    except Exception as exc:
        answer.error = f"model call failed: {exc}"[:300]
        return answer
    answer.sql = sql
    verdict = check_sql(sql, db.dialect)
    if not verdict.allowed:
        answer.error = f"blocked by the guard: {verdict.reason}"
    else:
        result = db.run(sql)
        answer.columns, answer.rows, answer.error = result.columns, result.rows, result.error
    answer.attempts.append({"sql": sql, "error": answer.error})
    return answer
