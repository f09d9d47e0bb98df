"""Text-to-Cypher: a read-only guard, graph stores (embedded kuzu, Neo4j), a script loader, and the loop.

May import: `tools.common`, `models`, `prompts` (not `tools.sql`: the two are peers).
"""
