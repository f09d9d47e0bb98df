"""Macro questions (about the whole knowledge base, or everything on a subject), by rules, zh and en.

"总结这个知识库的核心主题", "what are the main topics", "give me an overview of everything about
Gradle" ask for the big picture: they are answered from the summary layer, not from single chunks.
`is_macro_question` says whether a question is one; `macro_topic` gives what is left of it once the
macro wording is removed ("Gradle"; "" when the question is about the whole knowledge base).
A bare "summarise X" stays a micro question unless it asks for all/everything/the main points.
"""

from __future__ import annotations

import re

from queryweave.tools.common.text import EN_STOPWORDS, ZH_STOPWORDS, words

_SCOPE_EN = (r"(?:everything|all(?:\s+(?:the|of\s+the))?\s+(?:documents?|docs|files|notes|articles|pages|content|topics)"
             r"|(?:the\s+)?whole|(?:the\s+)?entire|knowledge\s*base|\bkb\b|corpus|collection|(?:this|the|these)\s+"
             r"(?:documents?|docs|files|library|wiki|site|repository|repo)|all\s+(?:of\s+)?it|in\s+general|overall)")
_EN = [
    re.compile(r"\b(?:main|key|core|major|central|primary|overall|general|common|recurring)\s+"
               r"(?:topics?|themes?|subjects?|ideas?|areas?|points?|takeaways?|concepts?)\b", re.I),
    re.compile(r"\bwhat\s+(?:topics|subjects|themes|areas)\b", re.I),
    re.compile(r"\b(?:overview|big\s+picture|high[- ]level\s+(?:view|summary|picture)|bird'?s[- ]eye)\b", re.I),
    re.compile(r"\b(?:summar(?:y|i[sz]e)|recap|outline|gist|digest)\b.*" + _SCOPE_EN, re.I),
    re.compile(_SCOPE_EN + r".*\b(?:summar(?:y|i[sz]e)|recap|outline|gist)\b", re.I),
    re.compile(r"\bwhat\s+(?:is|are|'s)\s+(?:this|the|these)\s+(?:knowledge\s*base|kb|corpus|collection|documents?|"
               r"docs|files|library)\s+(?:about|for)\b", re.I),
    re.compile(r"\bwhat(?:'s|\s+is|\s+are)?\s+(?:in|covered\s+(?:in|by))\s+(?:this|the)\s+(?:knowledge\s*base|kb|"
               r"corpus|collection|documents?|library)\b", re.I),
    re.compile(r"\beverything\s+(?:about|on|regarding)\b", re.I),
]
_SCOPE_ZH = r"(?:知识库|资料库|文档库|所有|全部|整个|整体|这些文档|这些资料|各个文档|所有文档|全部文档)"
_ZH = [
    re.compile(r"(?:核心|主要|关键|总体|整体)(?:的)?(?:主题|话题|内容|观点|要点|议题|领域)"),
    re.compile(r"(?:哪些|什么)(?:主题|话题|方面|领域)"),
    re.compile(r"(?:概览|总览|综述|全貌|大纲|梗概|鸟瞰)"),
    re.compile(r"(?:总结|概括|概述|归纳|汇总|梳理).*" + _SCOPE_ZH),
    re.compile(_SCOPE_ZH + r".*(?:总结|概括|概述|归纳|汇总|梳理|讲了什么|讲的是什么|讲什么|关于什么|包含什么|有什么内容|涵盖)"),
    re.compile(r"关于.{1,20}的(?:一切|全部内容|所有内容|所有信息|全部信息)"),
]
# What is removed from a macro question to see whether a topic is left.
_STRIP_EN = re.compile(
    r"\b(?:give|me|an?|the|of|about|on|regarding|everything|all|whole|entire|overview|summary|summari[sz]e|"
    r"recap|outline|gist|big|picture|high[- ]level|view|main|key|core|major|central|primary|overall|general|"
    r"topics?|themes?|subjects?|ideas?|areas?|points?|takeaways?|concepts?|knowledge|base|kb|corpus|collection|"
    r"documents?|docs|files|notes|articles|pages|content|library|wiki|site|repo(?:sitory)?|this|these|that|"
    r"what|which|is|are|was|were|covered|in|by|please|can|could|you|tell|provide|write|show|list|it|its|"
    r"there|here|do|does|we|have|has|i|know|need|want|common|recurring|digest|for|and|or|to|s|across|throughout|"
    r"cover(?:s|ed)?|discuss(?:es|ed)?|contain(?:s|ed)?|mention(?:s|ed)?|talk|talks|say|says)\b", re.I)
_STRIP_ZH = re.compile(
    r"请|帮我|给我|一下|这个|那个|这些|知识库|资料库|文档库|文档|资料|所有|全部|整个|整体|核心|主要|关键|总体|主题|话题|内容|"
    r"观点|要点|议题|领域|哪些|什么|方面|概览|总览|综述|全貌|大纲|梗概|鸟瞰|总结|概括|概述|归纳|汇总|梳理|讲了|讲的是|讲|"
    r"关于|包含|涵盖|一切|信息|有|的|是|了|吗|呢|吧|和|与|下|中|里")


def is_macro_question(question: str) -> bool:
    """Whether the question asks for the big picture (summary layer) rather than a fact (chunks)."""
    q = " ".join((question or "").split())
    if not q:
        return False
    return any(p.search(q) for p in _EN) or any(p.search(q) for p in _ZH)


def macro_topic(question: str) -> str:
    """The subject a macro question is about ("" for the whole knowledge base)."""
    text = _STRIP_ZH.sub(" ", _STRIP_EN.sub(" ", question or ""))
    kept = [w for w in words(text) if w.lower() not in EN_STOPWORDS and w not in ZH_STOPWORDS]
    return " ".join(kept)
