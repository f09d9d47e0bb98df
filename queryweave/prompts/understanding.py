"""Prompts for query understanding: follow-up rewriting, RAG necessity, intent and complexity.

Used when the rule layers (`queryweave.tools.understanding.coref`, `.necessity`, `.intent`) return
`confident=False`; the output schemas sit next to those rules (`CorefRewrite`, `NecessityOutput`,
`IntentOutput`). `*_messages(...)` build the (role, text) list for `queryweave.models.structured`.
"""

from __future__ import annotations

from queryweave.prompts import pick

COREF_SYSTEM = {
    "en": (
        "You rewrite the user's latest message into a standalone search question.\n"
        "- Replace pronouns (it, its, they, them, this, that, these) with what they refer to in the conversation.\n"
        "- Complete elliptical follow-ups (\"what about Kotlin?\", \"and in 2023?\", \"what about its timeout?\") "
        "by reusing the previous question with the new entity, year or attribute.\n"
        "- Keep the user's language, technical terms, identifiers and numbers exactly as written.\n"
        "- Do not answer the question, do not add facts, do not add constraints the user did not state.\n"
        "- If the message already stands alone, return it unchanged and set changed to false."
    ),
    "zh": (
        "请把用户最后一条消息改写成一个不依赖上下文、可以直接用于检索的独立问题。\n"
        "- 把代词（它、它的、其、该、这个、那个、这些、他们）替换成对话中所指的具体对象。\n"
        "- 补全省略的追问（“那 Python 呢？”“2023 年的呢？”“它的超时时间呢？”）：沿用上一个问题，换成新的实体、年份或属性。\n"
        "- 保持用户使用的语言；技术名词、标识符和数字原样保留。\n"
        "- 不要回答问题，不要补充事实，不要加入用户没说过的限制条件。\n"
        "- 如果这条消息本身已经完整，原样返回，并把 changed 设为 false。"
    ),
}

NECESSITY_SYSTEM = {
    "en": (
        "Decide whether the user's message needs a search of the knowledge base (the documents the user ingested).\n"
        "- greeting: hello, good morning. chitchat: thanks, goodbye, questions about you, small talk.\n"
        "- general: things any assistant can answer without documents (arithmetic, the date, translating a given "
        "sentence, writing a short poem) and that the knowledge base cannot be about.\n"
        "- kb: everything else, including any question that could be answered from the documents. "
        "When in doubt, choose kb: retrieving needlessly is cheap, missing the documents is not.\n"
        "For greeting, chitchat and general, write a short polite reply in English that says no retrieval was "
        "needed; for kb leave reply empty."
    ),
    "zh": (
        "判断用户的这条消息是否需要检索知识库（用户导入的文档）。\n"
        "- greeting：打招呼（你好、早上好）。chitchat：致谢、告别、询问你是谁、闲聊。\n"
        "- general：不看文档也能回答、而且知识库不可能涉及的内容（算术、日期、翻译给定的句子、写一首短诗）。\n"
        "- kb：其他所有情况，包括任何可能由文档回答的问题。拿不准时选 kb：多检索一次代价很小，漏掉文档代价更大。\n"
        "对 greeting、chitchat、general，用中文写一句简短礼貌的回复，并说明这次无需检索；对 kb，reply 留空。"
    ),
}

INTENT_SYSTEM = {
    "en": (
        "Classify the search question for a retrieval system.\n"
        "intent:\n"
        "- factual: asks for one fact, value, definition or procedure (\"What is the default port of Redis?\", "
        "\"How do I enable the build cache?\").\n"
        "- reasoning: asks why, how one thing affects another, or to compare / weigh options (\"Why is Kafka "
        "faster than RabbitMQ?\", \"What happens if the pool is too small?\").\n"
        "- comprehensive: asks for an overview, a list of all items, a summary or history of a whole area "
        "(\"Summarize the JVM garbage collectors\").\n"
        "- fuzzy: vague, half-remembered or keyword-only (\"that thing about memory\", \"gradle slow\").\n"
        "scope: narrow (one item or value), medium (a few related items), broad (a whole topic).\n"
        "depth: shallow (a fact), medium (an explanation or steps), deep (analysis, mechanisms, trade-offs)."
    ),
    "zh": (
        "为检索系统给这个问题分类。\n"
        "intent（意图）：\n"
        "- factual：问一个事实、数值、定义或操作步骤（“Redis 的默认端口是多少？”“怎么开启构建缓存？”）。\n"
        "- reasoning：问原因、一件事如何影响另一件事，或比较、权衡多个方案（“为什么 Kafka 比 RabbitMQ 快？”"
        "“连接池太小会怎样？”）。\n"
        "- comprehensive：要一个领域的概览、全部条目的列表、总结或发展历程（“总结一下 JVM 的垃圾回收器”）。\n"
        "- fuzzy：表述模糊、只记得大概，或只有几个关键词（“那个关于内存的东西”“gradle 慢”）。\n"
        "scope（范围）：narrow 单个对象或数值；medium 几个相关对象；broad 整个主题。\n"
        "depth（深度）：shallow 一个事实；medium 解释或步骤；deep 分析、机制、权衡。"
    ),
}


def transcript(history: list[tuple[str, str]], max_turns: int = 8, max_chars: int = 600) -> str:
    """The last `max_turns` entries of a history as "role: text" lines (long texts cut)."""
    lines = []
    for role, text in history[-max_turns:]:
        text = " ".join(text.split())
        lines.append(f"{role}: {text[:max_chars]}{'…' if len(text) > max_chars else ''}")
    return "\n".join(lines)


def coref_messages(question: str, history: list[tuple[str, str]], lang: str) -> list[tuple[str, str]]:
    """Messages for `CorefRewrite`: the instructions, then the conversation and the follow-up."""
    label = "追问" if lang == "zh" else "follow-up"
    return [("system", pick(COREF_SYSTEM, lang)), ("human", f"{transcript(history)}\n\n{label}: {question}")]


def necessity_messages(question: str, lang: str, kb_description: str = "") -> list[tuple[str, str]]:
    """Messages for `NecessityOutput`; `kb_description` (optional) says what the knowledge base holds."""
    system = pick(NECESSITY_SYSTEM, lang)
    if kb_description:
        system += ("\n知识库内容：" if lang == "zh" else "\nThe knowledge base covers: ") + kb_description
    return [("system", system), ("human", question)]


def intent_messages(question: str, lang: str) -> list[tuple[str, str]]:
    """Messages for `IntentOutput`."""
    return [("system", pick(INTENT_SYSTEM, lang)), ("human", question)]
