"""Passages that name what the question asks about, when the ranked ones do not.

Hybrid retrieval ranks passages by the whole question: a long question in one language can push the one page
that names the function asked about (`renderToString`, documented only on the English SSR page) out of the
top k, and the answer would then be declined for a name the corpus does hold. `name_holders` finds the
passages whose text (with title and source) writes every one of the names as the question does (case and
all, a whole word) — BM25 over the names — and orders
them by the question's embedding (across languages too), else by BM25 of the names and the question: the
lexical anchor a RAG engineer adds by hand ("must contain the identifier").
"""

from __future__ import annotations

import re
from typing import Any

from queryweave.tools.common.fusion import Candidate

POOL = 50  # BM25 candidates read for each anchored search


def writes_all(names: list[str], text: str) -> bool:
    """Whether `text` writes every one of `names` as the question wrote it, a whole word, case and all:
    "React" is not the verb "react", "Go" not "go"."""
    return all(re.search(rf"(?<![\w$]){re.escape(n)}(?![\w$])", text) for n in names)


def _holds_all(names: list[str], doc: dict[str, Any]) -> bool:
    """Every name written in the passage (with its title, heading and path). One name alone must be what the
    passage is about — in its title, heading or path, or written twice — not a passing mention ("services
    talking to PostgreSQL or MySQL" answers nothing about MySQL); several names together are evidence enough."""
    label = f"{doc.get('title') or ''} {doc.get('heading') or ''} {doc.get('source') or ''}"
    text = str(doc.get("text") or "")
    if not writes_all(names, f"{label} {text}"):
        return False
    if len(names) > 1:
        return True
    name = re.escape(names[0])
    return writes_all(names, label) or len(re.findall(rf"(?<![\w$]){name}(?![\w$])", text)) >= 2


def _by_question(kb: Any, question: str, ids: list[str]) -> list[str]:
    """`ids` ordered by the question's embedding (the saved dense index), or as given when there is none."""
    try:
        idx = kb.dense()
        if idx is None:
            return ids
        ranked = [i for i, _ in idx.search(kb.embeddings.embed_query(question), len(ids), allowed=set(ids))]
    except Exception:  # an embedding failure leaves the lexical order
        return ids
    placed = set(ranked)
    return ranked + [i for i in ids if i not in placed]


def name_holders(kb: Any, names: list[str], question: str, n: int = 3,
                 exclude: set[str] | None = None) -> list[dict[str, Any]]:
    """Up to `n` passages (as retrieval's document dicts) that hold every one of `names`, closest to the
    question first; none of the ids in `exclude`."""
    if not names:
        return []
    hits = kb.bm25_search(" ".join([*names, question]), POOL)
    docs = [h.as_dict() for h in kb.hits([Candidate(i, s, {"anchored": (r, s)}) for r, (i, s) in enumerate(hits, 1)])]
    held = {d["chunk_id"]: d for d in docs if d.get("chunk_id") not in (exclude or set()) and _holds_all(names, d)}
    return [held[i] for i in _by_question(kb, question, list(held))[:n]]
