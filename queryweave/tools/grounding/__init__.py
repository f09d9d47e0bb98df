"""Grounding: claims of an answer, evidence features and facts, the groundedness detector
(`detector`), answer relevance / document sufficiency, and extractive answers without an LLM.

May import: every tools sub-package before it (`common` … `retrieval`), `models`, `prompts`.
"""
