"""Query understanding by rules: follow-up resolution (coreference, pronouns, history, constraint
carry-over), RAG necessity, intent and complexity, ambiguity, macro questions and the bilingual glossary.

May import: `tools.common`, `tools.stores`, `tools.media`, `tools.sql`, `tools.cypher`, `models`, `prompts`.
"""
