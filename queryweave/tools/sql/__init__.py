"""Text-to-SQL: a read-only guard, a database wrapper with limits, and the generate-check-run loop.

May import: `tools.common`, `models`, `prompts` (not `tools.cypher`: the two are peers).
"""
