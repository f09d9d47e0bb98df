"""Prompts for Text-to-Cypher: generation from the graph schema, repair after an error, the naive baseline."""

SYSTEM = {
    "en": (
        "You write one read-only Cypher query that answers the user's question over the graph below.\n"
        "Rules: use only the node labels, relationship types, directions and properties listed. Match only the "
        "relationships the question names; a question about one label needs no relationship. Return only what "
        "the question asks for. Add ORDER BY or LIMIT only when the question asks for an order, a top or first "
        "N, or a maximum. A property belongs to the label or relationship it is listed with.\n"
        "Reply with the Cypher only, in a ```cypher code block.\n\n"
        "Graph schema:\n{schema}"
    ),
    "zh": (
        "请写出一条只读的 Cypher 查询，用下面的图回答用户的问题。\n"
        "规则：只使用列出的节点标签、关系类型、方向和属性。只匹配问题提到的关系；只涉及一个标签的问题不需要关系。"
        "只返回问题要求的内容。问题中的名字可能被翻译成了中文，查询里请使用图中的原始取值。只有问题要求排序、"
        "前 N 个或最大值时才加 ORDER BY 或 LIMIT。属性只属于和它一起列出的标签或关系。\n"
        "只回复 Cypher，放在 ```cypher 代码块中。\n\n"
        "图结构：\n{schema}"
    ),
}

ANSWER = "```cypher\n{query}\n```"

POOL_QUESTION = {  # a worked example from another database or another kind of question
    "en": "Question (a worked example, possibly over another schema): {question}",
    "zh": "问题（一个示例，可能来自另一个数据库结构）：{question}",
}

QUESTION = {"en": "Question: {question}", "zh": "问题：{question}"}

REPAIR = {
    "en": (
        "These queries failed; do not repeat them:\n{failures}\n"
        "Write a corrected query for the question. Reply with the Cypher only, in a ```cypher code block."
    ),
    "zh": (
        "下面这些查询出错了，不要重复：\n{failures}\n"
        "请为这个问题写出修正后的查询。只回复 Cypher，放在 ```cypher 代码块中。"
    ),
}

FAILURE = {"en": "Cypher: {query}\nError: {error}", "zh": "Cypher：{query}\n错误：{error}"}

HINT_PROPERTY = {
    "en": "property {prop} exists on: {where}",
    "zh": "属性 {prop} 位于：{where}",
}
HINT_NO_PROPERTY = {
    "en": "no label or relationship has a property {prop}; the properties are: {where}",
    "zh": "没有标签或关系包含属性 {prop}；现有属性：{where}",
}
HINT_CLAUSE_ORDER = {
    "en": "ORDER BY, SKIP and LIMIT go after RETURN or WITH: MATCH ... RETURN ... ORDER BY ... LIMIT n",
    "zh": "ORDER BY、SKIP、LIMIT 写在 RETURN 或 WITH 之后：MATCH ... RETURN ... ORDER BY ... LIMIT n",
}
HINT_SCOPE = {
    "en": "after WITH only the variables it lists stay in scope: WITH p, m, count(r) AS n ...",
    "zh": "WITH 之后只有它列出的变量仍然可用：WITH p, m, count(r) AS n ...",
}
HINT_AGGREGATE = {
    "en": "aggregates go in WITH or RETURN; filter on them after WITH: WITH x, count(y) AS n WHERE n > 1 RETURN x",
    "zh": "聚合函数写在 WITH 或 RETURN 中；对其过滤写在 WITH 之后：WITH x, count(y) AS n WHERE n > 1 RETURN x",
}

NAIVE = {
    "en": "Graph schema:\n{schema}\n\n// Answer the question with one Cypher query.\n// Question: {question}\nCypher:",
    "zh": "图结构：\n{schema}\n\n// 用一条 Cypher 查询回答问题。\n// 问题：{question}\nCypher:",
}

NEEDS_LLM = {
    "en": "Text-to-Cypher needs an LLM back-end (set --llm openai or llamacpp); the rules back-end cannot write Cypher.",
    "zh": "Text-to-Cypher 需要大模型后端（--llm openai 或 llamacpp）；rules 后端无法生成 Cypher。",
}
