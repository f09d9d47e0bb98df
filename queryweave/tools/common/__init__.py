"""Shared building blocks every tool may use: language-aware text helpers (`text`), input cleaning
(`validation`), query-guard verdicts (`guard_result`) and fusion of ranked lists (`fusion`).

May import: nothing of queryweave (the lowest layer of `tools`).
"""
