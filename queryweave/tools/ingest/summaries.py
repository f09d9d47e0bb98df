"""The recursive summary layer: a summary per document, per group of documents, and of the whole KB.

At ingest (`build_summaries`, an enricher) every document gets a summary (LLM when configured, else
extractive: `summary_text`); documents are grouped by their first subject folder (`folder_topic`: language
folders such as `en/`, `zh-CN/`, versions and generic ones such as `docs/` are skipped), else by first
tag, else by k-means over their mean chunk embeddings; the root names the main topics from content (each
group with the first headings of its largest documents, `topics_line`), not from folder names alone; a group's summary summarises its members' summaries and
the root summary summarises the groups'. Summaries live in `summaries.sqlite` in the data dir, their
vectors in a Chroma collection of their own (`summaries-<embedding>`, our embedding function). An
extractive summary (no LLM) is a few of its documents' own sentences, so its vector is the content's:
the mean of the documents' chunk vectors (each document weighing the same), already computed by the
embed stage; only LLM-written summaries and the root are embedded.
Updates are incremental: each summary carries a fingerprint (the document's catalog fingerprint;
for a group, its members' fingerprints; for the root, the groups'), so only what changed is
summarised again, and summaries of deleted documents and vanished groups are removed.

`search_summaries` answers macro questions (`is_macro_question`, in `macro.py`): about the whole
knowledge base it returns the root and the largest groups; about a subject ("everything about
Gradle") it searches the group and document summaries for it (dense + BM25, fused).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import threading
from collections import Counter
from typing import Any

from queryweave.prompts import pick
from queryweave.prompts.summaries import (
    DOCUMENT_SYSTEM,
    GROUP_HEADER,
    GROUP_SYSTEM,
    ROOT_HEADER,
    ROOT_SYSTEM,
    ROOT_TITLE,
)
from queryweave.tools.common.fusion import rrf
from queryweave.tools.ingest.summary_text import (
    central_sentences,
    extractive_summary,
    join_sentences,
    llm_summary,
    sentences_of,
)
from queryweave.tools.stores.embeddings import EmbeddingError
from queryweave.tools.stores.kb import KnowledgeBase
from queryweave.tools.stores.summary_store import SummaryStore
from queryweave.tools.understanding.macro import is_macro_question, macro_topic

__all__ = ["SummaryStore", "build_summaries", "is_macro_question", "macro_topic", "search_summaries",
           "summaries_enricher"]
LEVELS = ("root", "group", "document")


def _hash(*parts: Any) -> str:
    return hashlib.sha256(json.dumps(parts, ensure_ascii=False, sort_keys=True, default=str).encode()).hexdigest()[:24]


# -- building -------------------------------------------------------------------------------------
def _doc_text(kb: KnowledgeBase, source: str) -> str:
    ids = kb.catalog.chunk_ids(source)
    chunks = kb.catalog.get_chunks(ids)
    return "\n\n".join(chunks[i].text for i in ids if i in chunks)


_LANG_DIR = re.compile(r"^(?:[a-z]{2}(?:[-_][a-z]{2,4})?|zh[-_]?(?:hans|hant|cn|tw|hk))$", re.I)
_GENERIC_DIRS = {"docs", "doc", "documentation", "content", "contents", "src", "source", "sources", "pages",
                 "site", "website", "i18n", "locale", "locales", "lang", "langs", "translations", "md", "markdown",
                 "articles", "posts", "blog", "wiki", "files", "data", "corpus", "current", "latest", "stable",
                 "master", "main", "versioned_docs", "docusaurus-plugin-content-docs"}
_VERSION_DIR = re.compile(r"^v?\d+(?:[._]\d+)*$|^version-", re.I)


def folder_topic(source: str) -> str:
    """The first folder of `source` that names a subject: language folders ("en", "zh-CN"), versions and
    generic ones ("docs", "content", "i18n") are skipped, so a bilingual docs site groups by subject."""
    dirs = source.split("#")[0].replace("\\", "/").split("/")[:-1]
    for d in dirs:
        if d and not (_LANG_DIR.match(d) or d.lower() in _GENERIC_DIRS or _VERSION_DIR.match(d) or d in (".", "..")):
            return d
    return ""


def _groups(kb: KnowledgeBase, docs: list[dict[str, Any]]) -> list[tuple[str, str, list[str]]]:
    """[(key, title, member sources)]: by subject folder, else first tag, else k-means clusters."""
    def folder(src: str) -> str:
        return folder_topic(src)

    def first_tag(d: dict[str, Any]) -> str:
        tags = d["metadata"].get("tags")
        return str(tags[0]) if isinstance(tags, list) and tags else ""

    for label, key_of in (("folder", lambda d: folder(d["source"])), ("tag", first_tag)):
        keys = {d["source"]: key_of(d) for d in docs}
        distinct = set(keys.values())
        # every document keyed and at least two keys; top-level files may sit beside two folders or more
        if len(distinct) >= 2 and ("" not in distinct or (label == "folder" and len(distinct) >= 3)):
            members: dict[str, list[str]] = {}
            for src, key in keys.items():
                members.setdefault(key, []).append(src)
            return [(f"{label}:{k}", k or "(top level)", sorted(v)) for k, v in sorted(members.items())]
    return _clusters(kb, docs)


def content_vector(kb: KnowledgeBase, sources: list[str]) -> list[float] | None:
    """Unit mean of the documents' mean chunk vectors (None when none of them has a stored vector)."""
    import numpy as np

    from queryweave.tools.stores.kb import chunk_vectors

    ids = {s: kb.catalog.chunk_ids(s) for s in sources}
    vecs = chunk_vectors(kb, [i for s in sources for i in ids[s]])
    means = [np.mean([vecs[i] for i in ids[s] if i in vecs], axis=0) for s in sources if any(i in vecs for i in ids[s])]
    if not means:
        return None
    means = [m / (float(np.linalg.norm(m)) or 1.0) for m in means]
    out = np.mean(means, axis=0)
    return (out / (float(np.linalg.norm(out)) or 1.0)).astype(np.float32).tolist()


def _clusters(kb: KnowledgeBase, docs: list[dict[str, Any]]) -> list[tuple[str, str, list[str]]]:
    import numpy as np

    from queryweave.tools.stores.kb import chunk_vectors

    sources = sorted(d["source"] for d in docs)
    titles = {d["source"]: str(d["title"] or d["source"]) for d in docs}
    if len(sources) < 4:
        return [("all", pick(ROOT_TITLE, "en"), sources)]
    ids = {s: kb.catalog.chunk_ids(s) for s in sources}
    vecs = chunk_vectors(kb, [i for s in sources for i in ids[s]])
    keep = [s for s in sources if any(i in vecs for i in ids[s])]
    if len(keep) < 4:
        return [("all", pick(ROOT_TITLE, "en"), sources)]
    x = np.stack([np.mean([vecs[i] for i in ids[s] if i in vecs], axis=0) for s in keep])
    x /= np.linalg.norm(x, axis=1, keepdims=True) + 1e-9
    from sklearn.cluster import KMeans

    k = min(12, max(2, round(math.sqrt(len(keep) / 2))))
    km = KMeans(n_clusters=k, n_init=4, random_state=0).fit(x)
    out = []
    for c in range(k):
        idx = [i for i in range(len(keep)) if km.labels_[i] == c]
        central = sorted(idx, key=lambda i: -float(x[i] @ km.cluster_centers_[c]))[:3]
        members = sorted(keep[i] for i in idx)
        out.append(("cluster:" + _hash(members), " / ".join(titles[keep[i]] for i in central), members))
    missing = sorted(set(sources) - set(keep))
    if missing:
        out.append(("cluster:unembedded", "other", missing))
    return out


def _group_text(llm: Any, title: str, members: list[dict[str, Any]], lang: str) -> tuple[str, str, str]:
    """(text, body, method) of a group from its members' summaries."""
    listing = "\n".join(f"- {m['title']}: {m['text']}" for m in members)
    names = ", ".join(m["title"] for m in members[:5]) + (", …" if len(members) > 5 else "")
    header = pick(GROUP_HEADER, lang).format(title=title, n=len(members), members=names)
    body = llm_summary(llm, GROUP_SYSTEM, title, listing)
    method = "llm" if body else "extractive"
    if body is None:
        body = join_sentences(central_sentences([s for m in members for s in sentences_of(m["body"])], 3, 600))
    return f"{header} {body}".strip(), body, method


def build_summaries(kb: KnowledgeBase, changed_sources: list[str], llm: Any = None) -> dict[str, int]:
    """Enricher: bring document, group and root summaries up to date; returns how many were written."""
    store = SummaryStore(kb)
    try:
        method = "llm" if llm is not None else "extractive"
        docs = list(kb.catalog.documents())
        lang = Counter(str(d["metadata"].get("lang", "en")) for d in docs).most_common(1)[0][0] if docs else "en"
        stored = store.all()
        changed = set(changed_sources)
        written: list[dict[str, Any]] = []
        current: dict[str, dict[str, Any]] = {}
        for d in docs:
            src, sid = d["source"], "doc:" + _hash(d["source"])
            fp = _hash(method, kb.catalog.document_fingerprint(src))
            old = stored.get(sid)
            if old is not None and old["fingerprint"] == fp and src not in changed:
                current[src] = old
                continue
            title = str(d["title"] or src)
            text = _doc_text(kb, src)
            summary = llm_summary(llm, DOCUMENT_SYSTEM, title, text) or extractive_summary(text, 3, 500)
            row = {"id": sid, "level": "document", "title": title, "text": summary, "sources": [src],
                   "fingerprint": fp, "method": method}
            if llm is None:
                row["vector"] = content_vector(kb, [src])
            current[src] = row
            written.append(row)
        groups = _groups(kb, docs) if docs else []
        group_rows = []
        for key, title, members in groups:
            gid = "group:" + _hash(key)
            fp = _hash(method, title, [current[m]["fingerprint"] for m in members])
            old = stored.get(gid)
            if old is not None and old["fingerprint"] == fp:
                group_rows.append(old)
                continue
            text, body, how = _group_text(llm, title, [{**current[m], "body": current[m].get("body", current[m]["text"])}
                                                        for m in members], lang)
            row = {"id": gid, "level": "group", "title": title, "text": text, "body": body, "sources": members,
                   "fingerprint": fp, "method": how}
            if how == "extractive":
                row["vector"] = content_vector(kb, members)
            group_rows.append(row)
            written.append(row)
        if group_rows:
            fp = _hash(method, [g["fingerprint"] for g in group_rows])
            if stored.get("root", {}).get("fingerprint") != fp:
                written.append(_root(llm, group_rows, len(docs), lang, fp, method, kb))
        keep = {r["id"] for r in current.values()} | {g["id"] for g in group_rows} | ({"root"} if group_rows else set())
        gone = sorted(set(stored) - keep)
        store.delete(gone)
        store.put(written)
        if written or gone:
            store.touch()
        return {"written": len(written), "removed": len(gone), "documents": len(current), "groups": len(group_rows)}
    finally:
        store.close()


def topics_line(kb: KnowledgeBase | None, groups: list[dict[str, Any]], lang: str, per_group: int = 2) -> str:
    """The main topics, from content, as one sentence: each group (largest first) named by its folder when
    that names a subject, with the titles (first headings) of its largest documents in brackets."""
    titles, sizes = {}, {}
    if kb is not None:
        for d in kb.catalog.documents():
            titles[d["source"]] = str(d["title"] or "").strip()
            sizes[d["source"]] = len(kb.catalog.chunk_ids(d["source"]))
    sep, inner, (lp, rp) = ("、", "，", "（）") if lang == "zh" else (", ", ", ", "()")  # one sentence
    parts = []
    for g in groups[:12]:
        members = sorted(g["sources"], key=lambda s: -sizes.get(s, 0))
        names = list(dict.fromkeys(t for t in (titles.get(s, "") for s in members) if t))[:per_group]
        label = str(g["title"])
        named = label not in ("(top level)", "other", *ROOT_TITLE.values()) and " / " not in label  # not a cluster
        if names and named:
            parts.append(f"{label.replace('-', ' ').replace('_', ' ')} {lp}{inner.join(names)}{rp}")
        else:
            parts.append(inner.join(names) or label)
    return sep.join(parts)


def _root(llm: Any, groups: list[dict[str, Any]], n_docs: int, lang: str, fp: str, method: str,
          kb: KnowledgeBase | None = None) -> dict[str, Any]:
    groups = sorted(groups, key=lambda g: -len(g["sources"]))
    topics = topics_line(kb, groups, lang)
    header = pick(ROOT_HEADER, lang).format(n=n_docs, g=len(groups), topics=topics)
    body = llm_summary(llm, ROOT_SYSTEM, pick(ROOT_TITLE, lang), "\n".join(f"- {g['title']}: {g['body']}" for g in groups))
    how = "llm" if body else "extractive"
    if body is None:
        body = join_sentences(central_sentences([s for g in groups for s in sentences_of(g["body"])], 4, 800))
    return {"id": "root", "level": "root", "title": pick(ROOT_TITLE, lang), "text": f"{header} {body}".strip(),
            "body": body, "sources": sorted(s for g in groups for s in g["sources"]), "fingerprint": fp, "method": how}


def summaries_enricher(ctx: Any) -> Any:
    """The enricher for a context: the configured LLM when there is one, else extractive summaries."""
    from queryweave.models import get_chat_model, model_settings

    llm = get_chat_model(model_settings(ctx))

    def enrich(kb: KnowledgeBase, changed: list[str]) -> None:
        build_summaries(kb, changed, llm)

    return enrich


# -- searching ------------------------------------------------------------------------------------
_BM25: dict[str, tuple[str, Any]] = {}
_BM25_LOCK = threading.Lock()


def _bm25(store: SummaryStore, rows: dict[str, dict[str, Any]]) -> Any:
    from queryweave.tools.stores.bm25_index import BM25Index

    key, version = str(store.kb.data_dir), store.version()
    with _BM25_LOCK:
        if key not in _BM25 or _BM25[key][0] != version:
            ids = sorted(rows)
            _BM25[key] = (version, BM25Index.build(ids, [f"{rows[i]['title']}\n{rows[i]['text']}" for i in ids]))
        return _BM25[key][1]


def search_summaries(kb: KnowledgeBase, query: str, k: int = 5, levels: list[str] | None = None) -> list[dict]:
    """Summaries for a question: [{id, level, title, text, sources, score}], best first.

    A macro question about the whole knowledge base gets the root and the largest groups; one about
    a subject, or any other question, gets the summaries nearest to it (dense + BM25, RRF), of the
    given `levels` (for a macro question on a subject: groups and documents).
    """
    if not (kb.data_dir / "summaries.sqlite").exists():
        return []
    store = SummaryStore(kb)
    try:
        rows = store.all()
        if not rows:
            return []
        macro = is_macro_question(query)
        topic = macro_topic(query) if macro else query
        if macro and not topic:
            ranked = sorted((r for r in rows.values() if r["level"] in ("root", "group")),
                            key=lambda r: (r["level"] != "root", -len(r["sources"]), r["title"]))
            return [_out(r, 1.0 / (1 + i)) for i, r in enumerate(ranked[:k])]
        wanted = set(levels or (("group", "document") if macro else LEVELS))
        ids = {i for i, r in rows.items() if r["level"] in wanted}
        if not ids:
            return []
        n = min(len(rows), max(50, 5 * k))
        try:
            dense = store.collection.query(query_embeddings=[kb.embeddings.embed_query(topic)], n_results=n,
                                           include=["distances"])
            dense_rank = [(i, 1.0 - float(d)) for i, d in zip(dense["ids"][0], dense["distances"][0], strict=False)
                          if i in ids]
        except EmbeddingError:  # the embedding endpoint is down: the summaries' BM25 ranking alone
            dense_rank = []
        sparse = [(i, s) for i, s in _bm25(store, rows).search(topic, n) if i in ids]
        fused = rrf({"dense": dense_rank, "bm25": sparse})
        return [_out(rows[c.id], c.score) for c in fused[:k] if c.id in rows]
    finally:
        store.close()


def _out(row: dict[str, Any], score: float) -> dict[str, Any]:
    return {"id": row["id"], "level": row["level"], "title": row["title"], "text": row["text"],
            "sources": list(row["sources"]), "score": round(float(score), 6)}
