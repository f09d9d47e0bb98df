"""Stores under one data dir: the SQLite catalog, Chroma vectors, the BM25 index, the knowledge base
over them (`kb`), embeddings, the summary store, the entity-graph reader, the structured sources
(SQL / Cypher, opened once), the query logs with their prefix index, the writer lock, and the
PostgreSQL connection pools for shared state (`pg`).

May import: `tools.common`, `tools.sql`, `tools.cypher`, `models`.
"""
