"""Prompts for LLM entity and relation extraction at ingest (LightRAG-style), zh and en."""

SYSTEM = {
    "en": (
        "You extract a knowledge graph from one passage. List the named entities it mentions - people, "
        "organisations, places, works (films, books, songs), products, software, technical terms and "
        "configuration names - each with its name exactly as written in the passage and a kind (person, "
        "organization, place, work, product, concept, code, other). Then list the relations between "
        "those entities that the passage states: source and target names (as in the entity list), a "
        "short description, and a strength from 0 to 1. Use only what the passage says. At most 20 "
        "entities and 20 relations."
    ),
    "zh": (
        "你的任务是从一段文字中抽取知识图谱。列出其中提到的命名实体——人物、组织、地点、作品（电影、书籍、歌曲）、"
        "产品、软件、技术术语和配置项名称——每个实体给出与原文完全一致的名称和类别（person、organization、place、"
        "work、product、concept、code、other）。然后列出原文明确陈述的实体之间的关系：起点和终点名称（与实体列表一致）、"
        "一句简短描述，以及 0 到 1 的强度。只使用原文的内容。实体和关系各最多 20 个。"
    ),
}

USER = {
    "en": "Passage (from the document titled \"{title}\"):\n{text}",
    "zh": "文字（出自标题为“{title}”的文档）：\n{text}",
}
