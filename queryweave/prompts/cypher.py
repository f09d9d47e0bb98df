"""Prompts for Text-to-Cypher: generation from the graph schema, and repair after an error."""

SYSTEM = {
    "en": (
        "You write one read-only Cypher query that answers the user's question over the graph below.\n"
        "Rules: use only the node labels, relationship types, directions and properties listed; "
        "never create, merge, set, delete or remove anything; return only what the question asks for.\n"
        "Reply with the Cypher only, in a ```cypher code block.\n\n"
        "Graph schema:\n{schema}"
    ),
    "zh": (
        "请写出一条只读的 Cypher 查询，用下面的图回答用户的问题。\n"
        "规则：只使用列出的节点标签、关系类型、方向和属性；不得创建、合并、修改、删除任何内容；"
        "只返回问题要求的内容。问题中的名字可能被翻译成了中文，查询里请使用图中的原始取值。\n"
        "只回复 Cypher，放在 ```cypher 代码块中。\n\n"
        "图结构：\n{schema}"
    ),
}

QUESTION = {"en": "Question: {question}", "zh": "问题：{question}"}

REPAIR = {
    "en": (
        "That query failed.\nCypher: {query}\nError: {error}\n"
        "Write a corrected query for the same question. Reply with the Cypher only, in a ```cypher code block."
    ),
    "zh": (
        "这条查询出错了。\nCypher：{query}\n错误：{error}\n"
        "请为同一个问题写出修正后的查询。只回复 Cypher，放在 ```cypher 代码块中。"
    ),
}

NEEDS_LLM = {
    "en": "Text-to-Cypher needs an LLM back-end (set --llm openai or llamacpp); the rules back-end cannot write Cypher.",
    "zh": "Text-to-Cypher 需要大模型后端（--llm openai 或 llamacpp）；rules 后端无法生成 Cypher。",
}
