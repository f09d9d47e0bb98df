"""Query expansion: multi-query variants (LLM and offline) and HyDE / Query2Doc pseudo-documents.

Offline variants need no model; they come from the corpus itself:
- `keywords`: the query's content words only (question words and stop words dropped), which
  sharpens the dense side for long natural-language questions;
- `neighbours`: the keywords plus the terms that characterise the query's embedding neighbours
  (the top dense chunks), chosen by frequency there × idf, and with out-of-vocabulary words replaced
  by their nearest spelling in the index vocabulary.
LLM variants (3-5) and HyDE / Query2Doc documents go through `queryweave.models`; every LLM call
returns [] / None on failure, so the caller simply runs without them.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from queryweave.prompts import pick
from queryweave.prompts.rewrite import HYDE_SYSTEM, VARIANTS_SYSTEM
from queryweave.tools.common.text import EN_STOPWORDS, ZH_STOPWORDS, detect_language, tokenize, words

QUESTION_WORDS = frozenset(
    "what which who whom whose when where why how is are was were do does did can could should would "
    "please tell explain describe give list find show me".split()
) | frozenset("什么 怎么 怎样 如何 哪些 哪个 哪里 为什么 是否 吗 呢 多少 几 请问 请".split())


_ENTITY = re.compile(r"\"([^\"]+)\"|“([^”]+)”|《([^》]+)》|'([^']{3,})'|"
                     r"((?:[A-Z][\w'.-]*)(?:\s+(?:of|the|de|and|&)?\s*[A-Z][\w'.-]*)*)|"
                     r"\b(\d[\d.,:/-]*\d|\d)\b|\b(\w+[_.]\w+(?:[_.]\w+)*)\b")


def entities(query: str) -> list[str]:
    """Names, numbers, identifiers and quoted strings of a query (lower-cased), question words left out."""
    out = []
    for m in _ENTITY.finditer(query):
        ent = next(g for g in m.groups() if g)
        if m.start() == 0 and m.group(5) and len(ent.split()) == 1:
            continue  # the capitalised first word of a sentence is no name
        out.append(ent.lower().strip())
    if detect_language(query) == "zh":
        out += [w.lower() for w in words(query) if re.search(r"[A-Za-z0-9]", w)]
    return list(dict.fromkeys(e for e in out if len(e) > 1 or e.isdigit()))


_ABBREVIATIONS = {"i.e", "e.g", "etc", "vs", "cf"}


def names_entities(query: str) -> bool:
    """Whether the query names something: a capitalised name (not just the first word), a quoted
    string or title, or an identifier such as `max_connections` (bare numbers do not count).

    Entity questions are pinned down by their names; expansion from feedback (PRF, neighbour
    variants) then mostly adds drift, so the pipeline skips it for them (`RetrievalSettings.query_gate`).
    """
    for m in _ENTITY.finditer(query):
        groups = m.groups()
        if groups[5]:
            continue
        ent = next(g for g in groups if g)
        if (m.start() == 0 and groups[4] and len(ent.split()) == 1) or ent.lower() in _ABBREVIATIONS:
            continue
        return True
    return bool(re.search(r"[《“\"]", query))


class QueryVariants(BaseModel):
    """Alternative phrasings of a search question."""

    queries: list[str] = Field(description="3-5 different search queries with the same meaning")


def normalise(q: str) -> str:
    """A comparison key for deduplication: lower-case stemmed content tokens, sorted."""
    return " ".join(sorted(set(tokenize(q)))) or q.strip().lower()


def dedup(queries: list[str], keep: int | None = None) -> list[str]:
    """Drop empty and duplicate queries (same content tokens), keeping order."""
    seen: set[str] = set()
    out = []
    for q in queries:
        q = re.sub(r"\s+", " ", str(q or "")).strip().strip('"').strip()
        key = normalise(q)
        if q and key not in seen:
            seen.add(key)
            out.append(q)
    return out[:keep] if keep else out


def keywords(query: str) -> str:
    """The content words of a query, in their original form and order."""
    if detect_language(query) == "zh":
        from queryweave.tools.common.text import _jieba

        toks = [w for w in _jieba().lcut(query) if w.strip() and re.search(r"\w", w)]
        return " ".join(w for w in toks if w not in ZH_STOPWORDS and w not in QUESTION_WORDS)
    return " ".join(w for w in words(query) if w.lower() not in EN_STOPWORDS and w.lower() not in QUESTION_WORDS)


def _vocab_fix(kb, query_words: list[str]) -> list[str]:
    """Replace words whose stem is not in the BM25 vocabulary by the closest indexed spelling."""
    retriever = kb.bm25().retriever
    if retriever is None:
        return query_words
    vocab = retriever.vocab_dict
    out = []
    for w in query_words:
        toks = tokenize(w)
        if not toks or all(t in vocab for t in toks) or len(w) < 5 or detect_language(w) == "zh":
            out.append(w)
            continue
        close = difflib.get_close_matches(toks[0], [v for v in vocab if v[:1] == toks[0][:1]], n=1, cutoff=0.8)
        out.append(close[0] if close else w)
    return out


def neighbour_terms(kb, query: str, neighbours: list[str], n_terms: int = 5) -> list[str]:
    """Surface words characteristic of the neighbour chunks (frequency there × idf), not in the query."""
    from queryweave.tools.retrieval.prf import idf
    from queryweave.tools.stores.kb import index_text

    records = kb.catalog.get_chunks(neighbours)
    q_tokens = set(tokenize(query))
    freq: Counter[str] = Counter()
    surface: dict[str, Counter[str]] = {}
    for cid in neighbours:
        rec = records.get(cid)
        if rec is None:
            continue
        for w in words(index_text(rec)):
            toks = tokenize(w)
            if len(toks) != 1 or toks[0] in q_tokens or len(toks[0]) < 3 or toks[0].isdigit():
                continue
            freq[toks[0]] += 1
            surface.setdefault(toks[0], Counter())[w.lower() if not w.isupper() else w] += 1
    weights = idf(kb, list(freq))
    # a term must recur (in more than one place) to say something about the neighbourhood
    scored = sorted(((f * weights.get(t, 0.0), t) for t, f in freq.items() if f > 1), reverse=True)
    return [surface[t].most_common(1)[0][0] for _, t in scored[:n_terms]]


def offline_variants(kb, query: str, dense_top: list[str] | None = None, n_terms: int = 5) -> dict[str, str]:
    """Variants from the corpus's own vocabulary: {label: query}, without the original."""
    out: dict[str, str] = {}
    kw = keywords(query)
    fixed = " ".join(_vocab_fix(kb, kw.split())) if kw else ""
    if fixed and fixed.lower() != query.strip().lower():  # same BM25 terms, but a sharper dense query
        out["keywords"] = fixed
    if dense_top:
        extra = neighbour_terms(kb, query, dense_top, n_terms)
        if extra:
            out["neighbours"] = f"{fixed or query} {' '.join(extra)}"
    return out


def llm_variants(llm: BaseChatModel | None, query: str, n: int = 4, lang: str | None = None) -> list[str]:
    """3-5 LLM rephrasings of the query, deduplicated against each other and the original ([] on failure).

    Structured output first; when that yields nothing new (small local models often echo the
    question), one plain-text call whose lines are kept only if they share a content word with the
    question and are not much longer than it (an answer is not a query).
    """
    from queryweave.models import call_text, structured

    if llm is None:
        return []
    n = max(3, min(5, n))
    lang = lang or detect_language(query)
    messages = [SystemMessage(pick(VARIANTS_SYSTEM, lang).format(n=n)), HumanMessage(query)]
    out = structured(llm, QueryVariants, messages, retries=0)
    found = dedup([query] + [q for q in (out.queries if out else []) if isinstance(q, str)])[1:]
    if not found:
        raw = call_text(llm, messages, retries=0).value or ""
        q_tokens = set(tokenize(query))
        lines = [re.sub(r"^\s*(?:[-*•]|\d+[.)、])\s*", "", ln).strip() for ln in raw.splitlines()]
        found = dedup([query] + [ln for ln in lines if ln and set(tokenize(ln)) & q_tokens
                                 and len(ln) <= 3 * len(query) + 20])[1:]
    return found[:n]


def hyde_document(llm: BaseChatModel | None, query: str, lang: str | None = None) -> str | None:
    """A hypothetical answer passage for the query (HyDE), or None without an LLM / on failure."""
    from queryweave.models import call_text

    if llm is None:
        return None
    lang = lang or detect_language(query)
    res = call_text(llm, [SystemMessage(pick(HYDE_SYSTEM, lang)), HumanMessage(query)], retries=1)
    text = (res.value or "").strip()
    return text or None


def query2doc(query: str, document: str, repeat: int = 3) -> str:
    """Query2Doc's sparse query: the query repeated (to keep its weight) followed by the pseudo-document."""
    return " ".join([query] * repeat + [document])
