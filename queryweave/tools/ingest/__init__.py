"""Ingestion: loaders and parsers, chunking, the ingest pipeline, and the enrichers that run after it
(Doc2Query, the summary layer, entity extraction into the entity graph).

May import: `tools.common`, `sql`, `cypher`, `stores`, `media`, `understanding`, `models`, `prompts`.
"""
