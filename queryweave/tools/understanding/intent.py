"""Intent and complexity: factual / reasoning / comprehensive / fuzzy, scope x depth -> k, strategies.

The four types of the seeds, each with its retrieval strategy (`STRATEGIES`):
- factual: one fact or procedure ("Redis 的默认端口是多少？") -> dense-heavy hybrid + keyword refinement;
- reasoning: why / compare / what-if ("为什么 Kafka 比 RabbitMQ 快？") -> entity graph + vector;
- comprehensive: overview / list / summary ("总结一下 JVM 的垃圾回收器") -> multi-angle entity/keyword/semantic;
- fuzzy: vague or half-remembered ("那个关于内存的东西") -> query expansion.
Rules score weighted cue patterns in both languages; `confident=False` when the best type does not
clearly win, so an LLM may decide (schema `IntentOutput`). `detect_ambiguity` lives in
`queryweave.tools.understanding.ambiguity` and is re-exported here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, Field

from queryweave.tools.common.text import tokenize
from queryweave.tools.understanding.ambiguity import Ambiguity, detect_ambiguity  # noqa: F401 (re-export)
from queryweave.tools.understanding.mentions import extract_mentions

Intent = Literal["factual", "reasoning", "comprehensive", "fuzzy"]
Scope = Literal["narrow", "medium", "broad"]
Depth = Literal["shallow", "medium", "deep"]
INTENTS: tuple[Intent, ...] = ("factual", "reasoning", "comprehensive", "fuzzy")


@dataclass(frozen=True)
class Strategy:
    """How to retrieve for an intent: retrievers and their fusion weights, plus expansion/graph/multi-query."""

    name: str
    description: str
    retrievers: tuple[str, ...]
    weights: dict[str, float] = field(default_factory=dict)
    expand: bool = False
    graph: bool = False
    multi_query: bool = False
    fallback: str = ""


STRATEGIES: dict[str, Strategy] = {
    "factual": Strategy(
        "dense_keyword", "Dense-heavy hybrid search, refined by keyword (BM25) matches on the exact terms.",
        ("dense", "bm25"), {"dense": 0.7, "bm25": 0.3}),
    "reasoning": Strategy(
        "graph_vector", "Walk the entity graph from the question's entities and fuse with vector search.",
        ("graph", "dense", "bm25"), {"graph": 0.4, "dense": 0.4, "bm25": 0.2}, graph=True,
        fallback="hybrid + expansion while no entity graph exists"),
    "comprehensive": Strategy(
        "multi_angle", "Several angles at once: entity, keyword and semantic queries (and summaries), fused.",
        ("entity", "bm25", "dense", "summary"), {"entity": 0.25, "bm25": 0.25, "dense": 0.35, "summary": 0.15},
        multi_query=True),
    "fuzzy": Strategy(
        "expansion", "Expand the vague query (synonyms, sub-queries, hypothetical answer), then hybrid search.",
        ("dense", "bm25"), {"dense": 0.6, "bm25": 0.4}, expand=True),
}

K_TABLE = {("narrow", "shallow"): 2, ("narrow", "medium"): 3, ("narrow", "deep"): 5,
           ("medium", "shallow"): 4, ("medium", "medium"): 6, ("medium", "deep"): 8,
           ("broad", "shallow"): 8, ("broad", "medium"): 12, ("broad", "deep"): 20}


def k_for(scope: str, depth: str, k_min: int = 1, k_max: int = 20) -> int:
    """Chunks to retrieve for scope x depth: 2 for a single fact ... 20 for a deep panorama (at k 1..20),
    scaled linearly into [k_min, k_max]."""
    base = K_TABLE.get((scope, depth), 6)
    k_min, k_max = max(1, k_min), max(k_min, k_max)
    return max(k_min, min(k_max, k_min + round((base - 1) / 19 * (k_max - k_min))))


@dataclass
class IntentResult:
    """The intent, whether the rules are sure, the cue scores, and the size of the retrieval."""

    intent: Intent
    confident: bool
    scores: dict[str, float]
    scope: Scope
    depth: Depth
    k: int
    strategy: Strategy | None = None


class IntentOutput(BaseModel):
    """LLM output for intent and complexity."""

    intent: Intent = Field(description="factual, reasoning, comprehensive or fuzzy.")
    scope: Scope = Field(description="narrow (one thing), medium (a few), broad (a whole area).")
    depth: Depth = Field(description="shallow (a fact), medium (an explanation), deep (analysis, mechanisms).")


_CUES: dict[str, list[tuple[str, float]]] = {
    "factual": [
        (r"是什么|是多少|多少|哪一年|哪年|什么时候|何时|谁|在哪|哪里|哪个版本|默认|端口|版本号|是否|是不是|几个|几种|全称|缩写|"
         r"怎么(?:配置|设置|安装|启用|开启|关闭|禁用|修改|查看|使用|用|创建|删除|添加|运行)|如何(?:配置|设置|安装|启用|开启|关闭|"
         r"禁用|修改|查看|使用|创建|删除|添加|运行)|命令|吗[？?]?$", 1.0),
        (r"^(?:what(?:'s| is| are| was)|when|who|where|which (?:version|command|port|file|option|flag)|how many|"
         r"how much|is there|does|do|can i|can you|is|are|should i set)\b", 1.0),
        (r"\b(?:default|port|version|flag|option|command|stand for|located|released|maximum|minimum|limit)\b", 0.8),
        (r"\bhow (?:do|can|should) (?:i|we|you) (?:configure|set|install|enable|disable|change|check|use|run|create|"
         r"delete|add|remove|turn|start|stop|upgrade|update|write|read|connect|import|export|deploy)\b", 1.0),
    ],
    "reasoning": [
        (r"为什么|为何|为啥|原因|导致|造成|影响|区别|差异|不同之处|比较|对比|相比|优缺点|利弊|权衡|取舍|如果|假如|假设|会不会|"
         r"原理|机制|关系|哪个更|更适合|应该选|还是", 1.4),
        (r"^why\b|\bwhy (?:does|is|do|are|did|would|should)\b|\bcause[sd]?\b|\blead to\b|\bresult in\b|\bimpact\b|"
         r"\baffect|\bdifference|\bdiffer\b|\bcompare|\bcomparison\b|\bvs\.?\b|\bversus\b|\bbetter than\b|"
         r"\bwhich is (?:better|faster|safer|cheaper)|\bshould i (?:use|choose|pick)\b|\btrade-?offs?\b|"
         r"\bpros and cons\b|\bwhat happens if\b|\bwhat if\b|\brelationship\b|\bhow come\b|\bexplain why\b|\breason",
         1.4),
        (r"\bhow does .+ (?:work|affect|impact|interact|relate|handle)\b|是怎么(?:工作|实现|运作)的|如何(?:工作|实现|运作)", 1.0),
    ],
    "comprehensive": [
        (r"总结|概述|概览|综述|全面|整体|都有哪些|有哪些|列出|列举|汇总|梳理|盘点|介绍一下|介绍下|各种|所有|全部|完整|发展历程|"
         r"历史|演进|体系|全景|生态|最佳实践|指南|各个方面|方方面面|大全", 1.3),
        (r"\boverview\b|\bsummar(?:y|ize|ise)\b|\ball (?:the )?\w+|\blist (?:all|the|every)\b|\bevery\b|"
         r"\beverything about\b|\bcomprehensive\b|\bcomplete guide\b|\blandscape\b|\bhistory of\b|\bevolution of\b|"
         r"\becosystem\b|\bwhat are the (?:main|different|various|key|common)\b|\btypes of\b|\bkinds of\b|"
         r"\bbest practices\b|\bguide to\b|\bsurvey\b|\bwalk me through\b|\btell me (?:all )?about\b|\bintroduc", 1.3),
    ],
    "fuzzy": [
        (r"好像|似乎|大概|之类|那个什么|某个|不记得|记得有|忘了|类似|差不多|有没有什么|随便|相关的东西|有关的东西|什么东西|"
         r"那个.{0,8}的东西|推荐(?:一些|点|几个)?|有什么好的|怎么办|建议", 1.3),
        (r"\bsomething (?:about|like|on|for)\b|\bstuff\b|\bkind of\b|\bsort of\b|\bi remember\b|\bi forgot\b|"
         r"\bcan't remember\b|\bthere was (?:a|some)\b|\bsome (?:way|kind|thing)\b|\bany (?:ideas|tips|suggestions)\b|"
         r"\btips\b|\brecommend|\bhelp with\b|\bideas?\b|\bwhatever\b|\bthat thing\b|\bsimilar to\b|\banything on\b|"
         r"\b(?:issues?|problems?|trouble) with\b|\bnot sure\b|\bsomehow\b|\bmaybe\b", 1.3),
    ],
}
_QUESTION = re.compile(r"[?？]|^(?:what|when|who|where|which|how|why|is|are|does|do|can|should)\b|"
                       r"什么|多少|吗|呢|怎么|如何|为什么|哪|谁|几", re.I)
_BROAD = re.compile(r"所有|全部|各种|各个|整体|全面|有哪些|都有哪些|总结|概述|汇总|\ball\b|\bevery|\boverview\b|"
                    r"\bsummar|\blist\b|\becosystem\b|\blandscape\b|\bhistory\b|\btypes of\b|\bkinds of\b", re.I)
_NARROW = re.compile(r"默认|端口|版本号|多少|哪一年|哪年|什么时候|何时|谁|全称|缩写|是否|是不是|吗[？?]?$|\bdefault\b|\bport\b|"
                     r"\bversion\b|\bwhen\b|\bwho\b|\bhow many\b|\bhow much\b|\bstand for\b|^(?:is|are|does|do|can)\b",
                     re.I)
_DEEP = re.compile(r"为什么|原理|机制|深入|详细|底层|内部|源码|本质|如何实现|怎么实现|\bwhy\b|\bin depth\b|\bin detail\b|"
                   r"\bdetailed\b|\bunder the hood\b|\binternals?\b|\bmechanism\b|\bhow does .+ work\b|\bthorough\b|"
                   r"\bcomprehensive\b|\bcomplete\b|全面|完整", re.I)


def _scores(q: str) -> dict[str, float]:
    scores = {intent: 0.0 for intent in INTENTS}
    for intent, cues in _CUES.items():
        for pattern, weight in cues:
            if re.search(pattern, q, re.I):
                scores[intent] += weight
    content = tokenize(q)
    if not _QUESTION.search(q) and len(content) <= 3:
        scores["fuzzy"] += 1.0  # a few bare keywords: underspecified
    if not any(scores.values()):
        scores["factual" if _QUESTION.search(q) else "fuzzy"] += 0.6
    return scores


def classify_intent(question: str, k_min: int = 1, k_max: int = 20) -> IntentResult:
    """Intent, scope, depth and k for `question` (rule layer; `confident=False` when unsure)."""
    q = question.strip()
    scores = _scores(q)
    ranked = sorted(INTENTS, key=lambda i: (-scores[i], INTENTS.index(i)))
    intent, second = ranked[0], ranked[1]
    confident = scores[intent] >= 1.0 and scores[intent] - scores[second] >= 0.5
    entities = {m.text.lower() for m in extract_mentions(q) if m.kind in ("name", "code", "noun", "phrase")}
    if intent == "comprehensive" or _BROAD.search(q) or len(entities) >= 4:
        scope: Scope = "broad"
    elif intent == "factual" and _NARROW.search(q) and len(entities) <= 2:
        scope = "narrow"
    elif intent == "factual" and len(entities) <= 1 and len(tokenize(q)) <= 4:
        scope = "narrow"
    else:
        scope = "medium"
    if _DEEP.search(q) or (intent == "reasoning" and scope != "narrow"):
        depth: Depth = "deep" if intent != "factual" else "medium"
    elif intent == "factual" and scope == "narrow":
        depth = "shallow"
    else:
        depth = "medium"
    total = sum(scores.values()) or 1.0
    norm = {i: round(scores[i] / total, 3) for i in INTENTS}
    return IntentResult(intent, confident, norm, scope, depth, k_for(scope, depth, k_min, k_max), STRATEGIES[intent])
