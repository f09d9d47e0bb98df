"""Prompts for the router (which source answers the question)."""

SYSTEM = {
    "en": (
        "Choose the source that best answers the user's question. Sources:\n{sources}\n"
        "Answer with one route name only."
    ),
    "zh": "请为用户的问题选择最合适的数据源。可选数据源：\n{sources}\n只回答一个路由名称。",
}

SOURCES = {
    "vector": "vector: the document knowledge base (text search)",
    "self_query": "self_query: the document knowledge base with a metadata filter (year, tags, author, type)",
    "sql": "sql: a relational database with tables {detail}",
    "cypher": "cypher: a graph database with labels and relationships {detail}",
    "summary": "summary: summaries of the whole knowledge base (overviews, main topics)",
}
