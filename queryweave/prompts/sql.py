"""Prompts for Text-to-SQL: generation, repair after an error, and the naive one-shot baseline."""

SYSTEM = {
    "en": (
        "You write one {dialect} SELECT query that answers the user's question over the database below.\n"
        "Rules: use only the tables and columns listed; join on the keys shown (->); select only the "
        "columns the question asks for; never modify data. String values must match the database's values "
        "exactly (see the listed values and sample rows).\n"
        "Reply with the SQL only, in a ```sql code block.\n\n"
        "Database schema:\n{schema}"
    ),
    "zh": (
        "请写出一条 {dialect} 的 SELECT 查询语句，用下面的数据库回答用户的问题。\n"
        "规则：只使用列出的表和列；按所示的键（->）连接；只选择问题要求的列；不得修改数据。"
        "问题中的字符串值可能被翻译成了中文（例如“法国”），查询里必须使用数据库中的原始取值"
        "（见列出的取值和示例行，例如 'France'）。\n"
        "只回复 SQL，放在 ```sql 代码块中。\n\n"
        "数据库结构：\n{schema}"
    ),
}

CHINESE_QUESTION = (  # added to the English instructions when the question is Chinese (`prompt_language="en"`)
    "The question is in Chinese; its string values may be translated (e.g. “法国”): the query must use the "
    "database's stored values (see the listed values and sample rows, e.g. 'France')."
)

VALUE_HINTS = {
    "en": "Values found in the database that may be meant in the question:\n{hints}",
    "zh": "数据库中可能与问题相关的取值：\n{hints}",
}

COLUMN_HINTS = {  # schema linking by names, values and meaning (`tools.sql.column_link`)
    "en": "Columns that look most related to the question: {columns}{joins}",
    "zh": "与问题最相关的列：{columns}{joins}",
}

TERM_LINKS = {
    "en": "Words of the question and the tables or columns they name:\n{links}",
    "zh": "问题中的词语对应的表或列：\n{links}",
}
JOIN_HINTS = {"en": "\nTheir tables join on: {joins}", "zh": "\n这些表的连接键：{joins}"}

POOL_QUESTION = {  # a worked example from another database or another kind of question
    "en": "Question (a worked example, possibly over another schema): {question}",
    "zh": "问题（一个示例，可能来自另一个数据库结构）：{question}",
}

QUESTION = {
    "en": "Question: {question}",
    "zh": "问题：{question}",
}

BESIDE = {  # a Chinese question's English translation shown beside it (`TextToSQL(bilingual=True)`)
    "en": "{question}\n(In English: {english})",
    "zh": "{question}\n（英文：{english}）",
}

ANSWER = "```sql\n{sql}\n```"  # a few-shot example's reply

REPAIR = {
    "en": (
        "These queries failed; do not repeat them:\n{failures}\n"
        "Write a corrected query for the question. Reply with the SQL only, in a ```sql code block."
    ),
    "zh": (
        "下面这些查询出错了，不要重复：\n{failures}\n"
        "请为这个问题写出修正后的查询。只回复 SQL，放在 ```sql 代码块中。"
    ),
}

FAILURE = {"en": "SQL: {sql}\nError: {error}", "zh": "SQL：{sql}\n错误：{error}"}

UNKNOWN_VALUE = {
    "en": "the value {value!r} does not occur in {table}.{column}; its values are: {values}",
    "zh": "取值 {value!r} 不在 {table}.{column} 中；该列的取值有：{values}",
}

TRANSLATE_QUESTION = (
    "Translate this question about a database into English. Reply with the English question only.\n\n"
    "{question}"
)

TRANSLATE_VALUE = (
    "Translate the value {value!r} of the database column {table}.{column} into English, the way the "
    "database would store it. Reply with the translation only."
)

NAIVE = {
    "en": "{schema}\n\n-- Answer the question with one SQLite query.\n-- Question: {question}\nSQL:",
    "zh": "{schema}\n\n-- 用一条 SQLite 查询回答问题。\n-- 问题：{question}\nSQL:",
}

NEEDS_LLM = {
    "en": "Text-to-SQL needs an LLM back-end (set --llm openai or llamacpp); the rules back-end cannot write SQL.",
    "zh": "Text-to-SQL 需要大模型后端（--llm openai 或 llamacpp）；rules 后端无法生成 SQL。",
}

HINT_COLUMN_IN = {
    "en": "column {column} exists in: {where}",
    "zh": "列 {column} 位于：{where}",
}
HINT_NO_COLUMN = {
    "en": "no table has a column {column}; similar columns: {similar}",
    "zh": "没有表包含列 {column}；相近的列：{similar}",
}
HINT_TABLES = {
    "en": "the tables are: {tables}",
    "zh": "可用的表：{tables}",
}
HINT_AGGREGATE = {
    "en": "aggregates (COUNT, SUM, AVG...) need GROUP BY; conditions on them go in HAVING, not WHERE",
    "zh": "聚合函数（COUNT、SUM、AVG 等）需要 GROUP BY；对聚合结果的条件写在 HAVING 中，而不是 WHERE",
}
