"""Query understanding by rules: follow-up resolution (coreference, pronouns, history, constraint
carry-over), RAG necessity, intent and complexity, ambiguity, macro questions and the bilingual glossaries
(question words; metadata values for self-query).

May import: `tools.common`, `tools.stores`, `tools.media`, `tools.sql`, `tools.cypher`, `models`, `prompts`.
"""
