"""Retrieval: the hybrid pipeline and its settings and profiles, PRF, query expansion, decomposition,
title links, rerankers, graph retrieval, result and query-vector caches, self-query filters (declared
values matched without alias lists, negation), the strategy tuner and the IR metrics it (and `eval`)
scores with.

May import: every tools sub-package before it (`common` … `ingest`), `models`, `prompts`.
"""
