"""`route`: which source answers — vector | self_query | sql | cypher | summary.

Rules first: registered sources only (a SQL URL, a graph URL/path; SQL and Cypher also need an LLM
to write the query), scored by how many of the question's terms name their tables, columns (split on
`_` and camelCase: `FlightNo`), labels or properties, or a value of a text column or string property
with few values ("dog", "Aberdeen", "The Matrix"); a Chinese word counts by its English readings in CC-CEDICT (one character read
whole: 狗 "dog"; a reading that is a value whole: 美国 "USA"), in its longest dictionary words, a question word such as 多少 naming none, since schemas
are named in English; request verbs ("find", "give", "show") are no terms. Data-question cues add
to the score ("how many", "有多少", "平均", "列出", an amount compared: "at least 10", "超过3500"). Macro questions go to the
summary layer; an extractable metadata filter (years, tags, authors) or a constraint carried from
earlier turns goes to self-query; everything else to vector search. The LLM decides when two
structured sources tie. An embedded kuzu graph that a writer holds (busy) is skipped for this turn:
the question goes on to the other routes and the turn is flagged `degraded` with the reason.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from queryweave.config import context_of
from queryweave.models import call_structured, get_chat_model
from queryweave.nodes.common import query_of, timed
from queryweave.prompts import pick
from queryweave.prompts.route import SOURCES, SYSTEM
from queryweave.tools.common.text import cjk_ratio, tokenize
from queryweave.tools.cypher.store import StoreBusyError
from queryweave.tools.stores.sources import graph_values, graph_vocabulary, sql_values, sql_vocabulary

Route = Literal["vector", "self_query", "sql", "cypher", "summary"]
_DATA_CUE = re.compile(r"how many|number of|count|average|avg|total|sum of|maximum|minimum|highest|lowest|"
                       r"list (?:all|the)|which .* (?:has|have) the most|有多少|多少个|几个|数量|数目|平均|总和|总共|"
                       r"总数|最高|最低|最大|最小|最多|列出|统计|排名", re.I)  # the English cues, each put into Chinese
_COMPARED = re.compile(r"\b(?:(?:more|less|fewer|greater|larger|smaller|higher|lower|older|younger|heavier|lighter|"
                       r"longer|shorter|bigger)\s+than|at (?:least|most)|over|under|above|below|after|before)\s+\d|"
                       r"(?:超过|至少|至多|少于|多于|大于|小于|高于|低于|不少于|不超过|不低于|不高于)\s*\d|\d\s*(?:以上|以下)",
                       re.I)  # an amount compared: "at least 10 flights", "重量超过3500"
_REQUEST = frozenset(tokenize("find give show return display list"))  # asks, names no data
_QUESTION_WORD = re.compile(r"(?:how|what|which|who|whom|whose|where|when|why)\b", re.I)


class RouteDecision(BaseModel):
    """LLM output for routing."""

    route: Route = Field(description="vector, self_query, sql, cypher or summary")


def _overlap(question: str, vocab: frozenset[str], values: frozenset[frozenset[str]] = frozenset()) -> float:
    """Share of the question's terms that name the schema's terms; a Chinese word counts when one of its
    English readings (CC-CEDICT: 歌手 "singer", 国家 "country") does, since schemas are written in English;
    words are also read whole where the tokenizer splits them (航空公司 "airline": 航空 + 公司)."""
    q = set(tokenize(question)) - _REQUEST
    if not q:
        return 0.0
    named = _named_words(question, q, vocab, values) if cjk_ratio(question) else []
    in_data = set().union(*(v for v in values if v <= q))  # a value of the data, named whole
    return sum(t in vocab or t in in_data or any(t in w for w in named) for t in q) / len(q)


def _names(readings: tuple[tuple[str, bool], ...], vocab: frozenset[str],
           values: frozenset[frozenset[str]] = frozenset()) -> bool:
    """Whether a Chinese word's readings name a schema term, or are one of the data's values whole
    (狗 "dog" in a pet-type column, 美国 "USA" in a country column)."""
    if any(_QUESTION_WORD.match(sense) for sense, _verb in readings):
        return False  # 多少 "how many; number": a question word, as "how many" is no schema term in English
    for sense, _verb in readings:
        words = tokenize(sense)
        if any(w in vocab for w in words) or frozenset(words) in values:
            return True
    return False


def _readings(word: str) -> tuple[tuple[str, bool], ...]:
    """CC-CEDICT's readings of a whole Chinese word, one character included (狗 "dog", 年 "year")."""
    from queryweave.tools.understanding.zh_dictionary import char_senses, senses

    return char_senses(word) if len(word) == 1 else senses(word)


def _named_words(question: str, terms: set[str], vocab: frozenset[str],
                 values: frozenset[frozenset[str]] = frozenset()) -> list[str]:
    """The question's Chinese words (its `terms`, and the dictionary's longest matches) that name a schema
    term or a value of the data."""
    from queryweave.tools.understanding.zh_dictionary import lookup_spans

    words = [question[a:b] for a, b, readings in lookup_spans(question) if _names(readings, vocab, values)]
    return words + [t for t in terms if cjk_ratio(t) and _names(_readings(t), vocab, values)]


def _is_macro(question: str) -> bool:
    try:
        from queryweave.tools.ingest.summaries import is_macro_question
    except ImportError:
        return False
    return is_macro_question(question)


def _has_filter(state: dict[str, Any], data_dir: str | None = None) -> bool:
    c = state.get("constraints") or {}
    if c.get("year_from") or c.get("year_to") or c.get("include") or c.get("exclude"):
        return True
    from queryweave.tools.retrieval.self_query import conditions, extract, schema_for

    return bool(conditions(extract(query_of(state), schema_for(data_dir)).structured_query))


def structured_scores(ctx: Any, question: str, has_llm: bool,
                      skipped: list[str] | None = None) -> dict[str, float]:
    """Scores of the registered structured sources (empty without an LLM to write queries). A graph
    store that is busy (held by a writer) gets no score; why is appended to `skipped`."""
    scores: dict[str, float] = {}
    if not has_llm:
        return scores
    cue = 0.3 if _DATA_CUE.search(question) or _COMPARED.search(question) else 0.0
    if ctx.sql_url:
        scores["sql"] = _overlap(question, sql_vocabulary(ctx.sql_url), sql_values(ctx.sql_url)) + cue
    if ctx.graph_url:
        try:
            scores["cypher"] = _overlap(question, graph_vocabulary(ctx.graph_url), graph_values(ctx.graph_url)) + cue
        except StoreBusyError as exc:
            if skipped is not None:
                skipped.append(f"route: {exc}; the Cypher route was skipped")
    return scores


@timed("route")
def route(state: dict[str, Any], runtime: Any = None) -> dict[str, Any]:
    """Pick the route (and say why)."""
    ctx = context_of(runtime)
    question = query_of(state)
    llm = get_chat_model(ctx.model_settings())
    skipped: list[str] = []
    scores = {k: v for k, v in structured_scores(ctx, question, llm is not None, skipped).items() if v >= 0.5}
    out: dict[str, Any] = {"degraded": True, "degraded_reasons": skipped} if skipped else {}
    if scores:
        ranked = sorted(scores, key=lambda k: -scores[k])
        choice = ranked[0]
        if len(ranked) > 1 and scores[ranked[0]] - scores[ranked[1]] < 0.15:
            listing = "\n".join(SOURCES[r].format(detail="") for r in ["vector", *ranked])
            res = call_structured(llm, RouteDecision, [SystemMessage(pick(SYSTEM, state.get("language", "en"))
                                                                     .format(sources=listing)),
                                                       HumanMessage(question)])
            if res.value is not None:
                choice = res.value.route
        return out | {"route": choice, "route_reason": f"schema terms in the question ({scores})"}
    if ctx.feature("summaries") and _is_macro(question):
        return out | {"route": "summary", "route_reason": "a macro question about the whole knowledge base"}
    if ctx.feature("self_query") and _has_filter(state, ctx.data_dir):
        return out | {"route": "self_query",
                      "route_reason": "a metadata filter in the question or the conversation"}
    return out | {"route": "vector", "route_reason": "plain hybrid search"}
