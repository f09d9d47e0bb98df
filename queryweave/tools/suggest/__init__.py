"""Search suggestions: titles and headings, popular queries, semantic neighbours (`suggester`).

May import: every tools sub-package before it (`common` … `grounding`), `models`, `prompts`.
"""
