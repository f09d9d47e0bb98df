"""Prompts (and the offline templates) for the recursive summary layer: documents, groups, the KB, zh and en."""

DOCUMENT_SYSTEM = {
    "en": (
        "Summarise the document below in 2-4 sentences for a search index: what it is about, its main "
        "facts, names and numbers. Use only what the document says. Return only the summary."
    ),
    "zh": "请用 2 到 4 句话概括下面的文档，用于检索索引：它讲什么、主要事实、名称和数字。只使用文档中的内容。只返回摘要。",
}

GROUP_SYSTEM = {
    "en": (
        "Below are summaries of related documents. Write one summary of the group in 3-5 sentences: the "
        "common theme, the main topics it covers and what distinguishes the documents. Use only what the "
        "summaries say. Return only the summary."
    ),
    "zh": (
        "下面是一组相关文档的摘要。请用 3 到 5 句话写出这一组的总摘要：共同主题、涵盖的主要话题以及各文档的区别。"
        "只使用摘要中的内容。只返回摘要。"
    ),
}

ROOT_SYSTEM = {
    "en": (
        "Below are summaries of the groups of documents in a knowledge base. Write an overview of the whole "
        "knowledge base in 4-6 sentences: its core themes and the main topics of each group. Use only what "
        "the summaries say. Return only the overview."
    ),
    "zh": (
        "下面是一个知识库中各组文档的摘要。请用 4 到 6 句话写出整个知识库的概述：核心主题以及每组的主要话题。"
        "只使用摘要中的内容。只返回概述。"
    ),
}

USER = {
    "en": "Title: {title}\n\n{text}",
    "zh": "标题：{title}\n\n{text}",
}

# Offline templates (extractive summaries need a heading line for groups and the root).
GROUP_HEADER = {
    "en": "Group \"{title}\" - documents: {n} ({members}).",
    "zh": "分组“{title}”（{n} 篇文档：{members}）。",
}
ROOT_HEADER = {
    "en": "This knowledge base has {n} documents in {g} groups. Main topics: {topics}.",
    "zh": "本知识库共有 {n} 篇文档，分为 {g} 组。主要主题：{topics}。",
}
ROOT_TITLE = {"en": "Knowledge base overview", "zh": "知识库概览"}
