"""`self_query`: a validated metadata filter from the question and the conversation's constraints.

Rules (years, ranges, tags, content types, authors; zh + en) or, when they are unsure and a model is
configured, LangChain's query constructor produce a `StructuredQuery`; constraints carried from
earlier turns ("只看 2023 年的", "only Kotlin") are added; unknown fields/values are dropped with a
note; the Chroma `where` is relaxed step by step while it matches nothing (checked with a metadata
lookup, so no embedding call is needed).
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Any

from langchain_core.structured_query import Comparator, Comparison, Operation, Operator, StructuredQuery

from queryweave.config import context_of
from queryweave.models import get_chat_model
from queryweave.nodes.common import knowledge_base, query_of, timed
from queryweave.tools.retrieval.self_query import (
    conditions,
    extract,
    relaxations,
    schema_for,
    to_chroma,
    validate,
)
from queryweave.tools.stores.embeddings import embedding_outage

_YEAR_FOLDER = re.compile(r"(?:19|20)\d{2}")


def folder_tags(meta: dict[str, Any]) -> bool:
    """Whether a document's tags are only the folders of its path (ingest's fallback when the page declares
    none: "zh/guide/optimization/tree-shaking.md" is tagged zh, guide, optimization)."""
    tags = [str(t) for t in meta.get("tags") or []]
    folders = [p for p in PurePosixPath(str(meta.get("source") or "")).parts[:-1] if not _YEAR_FOLDER.fullmatch(p)]
    return bool(tags) and tags == folders


def _vocabulary(kb: Any) -> dict[str, list[str]]:
    """Tags and authors the rules may filter on. Folder names are left out: a docs site's folders
    ("guide", "config", "server", "optimization") are words of its questions ("应该改 optimization 下面的哪个
    配置？"), not filters asked for, and a filter on one hid the page that answered. Tags a page declares
    (front matter) stay."""
    tags: dict[str, None] = {}
    authors: dict[str, None] = {}
    for doc in kb.catalog.documents():
        meta = doc["metadata"]
        for t in [] if folder_tags(meta) else meta.get("tags") or []:
            tags[str(t)] = None
        if meta.get("author"):
            authors[str(meta["author"])] = None
    return {"tags": list(tags), "author": list(authors)}


def with_constraints(sq: StructuredQuery, constraints: dict[str, Any], tags: list[str]) -> StructuredQuery:
    """Add carried-over constraints (years, included tags) to a structured query."""
    conds = list(conditions(sq))
    have = {c.attribute for c in conds}
    extra: list[Comparison] = []
    if "year" not in have:
        if constraints.get("year_from"):
            extra.append(Comparison(comparator=Comparator.GTE, attribute="year", value=int(constraints["year_from"])))
        if constraints.get("year_to"):
            extra.append(Comparison(comparator=Comparator.LTE, attribute="year", value=int(constraints["year_to"])))
    known = {t.lower(): t for t in tags}
    query = sq.query
    for term in constraints.get("include") or []:
        if term.lower() in known and "tags" not in have:
            extra.append(Comparison(comparator=Comparator.CONTAIN, attribute="tags", value=known[term.lower()]))
        elif term.lower() not in query.lower():
            query = f"{query} {term}".strip()
    all_conds = conds + extra
    if not all_conds:
        return StructuredQuery(query=query, filter=None, limit=sq.limit)
    flt = all_conds[0] if len(all_conds) == 1 else Operation(operator=Operator.AND, arguments=all_conds)
    return StructuredQuery(query=query, filter=flt, limit=sq.limit)


@timed("self_query")
def self_query(state: dict[str, Any], runtime: Any = None) -> dict[str, Any]:
    """Set `filters` (a Chroma where), `filter_notes`, and the query text without the filter words."""
    ctx = context_of(runtime)
    kb = knowledge_base(ctx)
    question = query_of(state)
    vocab = _vocabulary(kb)
    schema = schema_for(ctx.data_dir).with_vocabulary(**vocab)  # the user's metadata_schema.json, if any
    llm = get_chat_model(ctx.model_settings())
    model = getattr(kb.embeddings, "underlying_embeddings", kb.embeddings)  # phrases stay out of the disk cache
    embed = None if embedding_outage(kb.embeddings) else model.embed_documents
    try:  # declared values may also be matched by embedding similarity (when MatchSettings turns it on)
        sq_result = extract(question, schema, llm=llm, embed=embed)
    except Exception as exc:  # the embedding endpoint failed mid-call: lexical matching only
        sq_result = extract(question, schema, llm=llm)
        sq_result.notes.append(f"value matching without embeddings: {type(exc).__name__}")
    sq, notes = validate(with_constraints(sq_result.structured_query, state.get("constraints") or {},
                                          vocab["tags"]), schema)
    notes = [*sq_result.notes, *notes]
    query, where = to_chroma(sq)
    for step in relaxations(sq, schema):
        query, where = to_chroma(step)
        if not where or kb.vectors.collection.get(where=where, limit=1, include=[])["ids"]:
            break
        notes.append(f"no documents match {where}; relaxing the filter")
    return {"filters": where, "filter_notes": notes, "queries": [query or question],
            "route_reason": f"self-query ({sq_result.source}): filter {where}"}
