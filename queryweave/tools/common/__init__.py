"""Shared building blocks every tool may use: language-aware text helpers (`text`), input cleaning
(`validation`), query-guard verdicts (`guard_result`), fusion of ranked lists (`fusion`) and pools of worked
query examples (`examples`).

May import: nothing of queryweave (the lowest layer of `tools`).
"""
