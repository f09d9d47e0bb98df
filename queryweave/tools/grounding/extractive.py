"""Extractive answering without an LLM: pick the passages' units that best answer the question, cite them.

Text is cut into answer units: sentences of prose (Chinese and Latin punctuation), single rows of
Markdown tables (header names prefixed, so "maximumPoolSize | 10" reads as an answer), list items;
headings are dropped. A unit's score combines
- lexical coverage: the IDF-weighted share of the question's terms it contains (IDF over the units
  of the retrieved passages, so rare, specific words count most), and
- semantic similarity between question and unit under the embedding model (when one is given),
  which carries cross-lingual questions ("默认是多少" against an English passage),
plus a small bonus for higher-ranked passages. The best few, in document order, form the answer,
each followed by its citation marker.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from queryweave.tools.common.text import detect_language, prose_language, tokenize, unit_language
from queryweave.tools.grounding.antecedent import with_antecedents
from queryweave.tools.grounding.coverage import setting_names
from queryweave.tools.grounding.elaboration import with_elaboration
from queryweave.tools.grounding.enumeration import with_continuations
from queryweave.tools.grounding.fields import (
    field_answer,
    fields_first,
    row_field,
    row_name,
)
from queryweave.tools.grounding.kinds import (
    ASKS_CODE,
    ASKS_IDENTIFIER,
    ASKS_VALUE,
    asked_kind,
    completed,
    states_asked,
)
from queryweave.tools.grounding.translation import is_translation
from queryweave.tools.grounding.units import CODE_PREFIX, render, sectioned_units
from queryweave.tools.grounding.units import (
    answer_units as answer_units,  # re-exported: callers import it here
)
from queryweave.tools.understanding.glossary import cross_terms

Embed = Callable[[list[str]], Any]  # texts -> (n, d) normalised vectors; the question is texts[0]

_WORDY = re.compile(r"[^\W_]")
_CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]")  # CJK characters and punctuation
OTHER_LANGUAGE = 0.9  # score factor of a unit in another language than the question, when the passages hold its own
SHORT_UNIT = 12  # tokens: a unit this short that names nothing asked for leans on the sentence before


@dataclass
class ExtractiveAnswer:
    """An extractive answer: text with [n] markers, the cited documents, and how well it covers the question."""

    answer: str
    citations: list[dict[str, Any]] = field(default_factory=list)
    coverage: float = 0.0
    sentences: list[dict[str, Any]] = field(default_factory=list)
    rendered: list[str] = field(default_factory=list)  # the rendered units the answer is made of, in order
    similarity: float | None = None  # the embedding cosine of the question and its closest chosen unit
    margin: float | None = None  # how far the best unit's score (headings' terms left out) is ahead of the runner-up's
    field: bool = False  # a chosen unit is a field line stating the asked attribute of the setting asked about
    best_rank: int | None = None  # the rank (0 = first) of the passage that holds the best-scored unit


def _idf(unit_tokens: list[set[str]]) -> dict[str, float]:
    df = Counter(t for toks in unit_tokens for t in toks)
    n = max(1, len(unit_tokens))
    return {t: math.log(1 + n / c) for t, c in df.items()}


def _coverage(q_tokens: set[str], q_cross: dict[str, set[str]], toks: set[str],
              idf: dict[str, float]) -> float:
    """IDF weight of the question terms a unit contains; a term met only by a translation counts 0.8."""
    total = 0.0
    for t in q_tokens:
        if t in toks:
            total += idf.get(t, 0.0)
        else:
            hits = q_cross.get(t, set()) & toks
            if hits:
                total += 0.8 * max(idf.get(h, 0.0) for h in hits)
    return total


def _cosines(question: str, units: list[str], embed: Embed | None) -> np.ndarray | None:
    """Cosine similarity of the question to each unit (given with its context window)."""
    if embed is None or not units:
        return None
    try:
        vecs = np.asarray(embed([question, *units]), dtype=np.float32)
    except Exception:  # an embedding failure must not stop an answer
        return None
    return vecs[1:] @ vecs[0]


def _minmax(sims: np.ndarray) -> np.ndarray:
    lo, hi = float(sims.min()), float(sims.max())
    return (sims - lo) / (hi - lo) if hi > lo else np.ones_like(sims)


def _similarities(question: str, units: list[str], embed: Embed | None) -> np.ndarray | None:
    """Min-max normalised similarity of the question to each unit (given with its context window)."""
    sims = _cosines(question, units, embed)
    return None if sims is None else _minmax(sims)


def _continuations(all_pairs: list[list[tuple[str, str]]], sources: list[str]) -> dict[tuple[str, str], str]:
    """What follows each unit that ends in a colon, by (page, unit), in any passage: a passage cut right after
    "try the following in the Linux console:" borrows the command from an overlapping passage of the same
    page (never from another page that happens to say "Run the following:" too)."""
    out: dict[tuple[str, str], str] = {}
    for pairs, source in zip(all_pairs, sources, strict=True):
        for (unit, _), (nxt, _) in zip(pairs, pairs[1:], strict=False):
            if unit.endswith((":", "：")):
                out.setdefault((source, unit), nxt)
    return out


def extract_answer(question: str, documents: list[dict[str, Any]], max_sentences: int = 3,
                   min_score: float = 0.2, embed: Embed | None = None,
                   semantic_weight: float = 0.3, topic_terms: bool = True,
                   heading_terms: bool = False, elaboration: bool = False) -> ExtractiveAnswer:
    """Answer `question` from `documents` (dicts with chunk_id, source, text) by extracting units.
    `topic_terms`: a document's title terms count as terms of each of its units, for ranking and coverage;
    `heading_terms`: the terms of the heading a unit stands under count too, for ranking only (the items
    under "## 三个核心组件" answer "Room 有哪几个核心组件？" without repeating the words); `elaboration`: the best
    unit of a question that asks for a description, reason or definition is shown with the one after it."""
    q_tokens = set(tokenize(question))
    # Each question term is also met by its other-language equivalents (weighted a little lower).
    q_cross = {t: cross_terms({t}) for t in q_tokens}
    asks_value = bool(ASKS_VALUE.search(question))
    asks_code = bool(ASKS_CODE.search(question))
    # the settings the question names (`fs.inotify.max_user_watches`, `max_connections`): a code line that
    # writes one ("sudo sysctl fs.inotify.max_user_watches=524288") is no noise
    settings = {t for n in setting_names(question) for t in tokenize(n)}
    asks_identifier = bool(ASKS_IDENTIFIER.search(question))
    cands: list[tuple[int, int, str, set[str]]] = []
    windows: list[str] = []
    before: list[tuple[str, set[str]]] = []  # the unit before each candidate (in its passage), and its tokens
    after: list[tuple[str, set[str]]] = []  # the unit a candidate ending in a colon introduces
    topics: list[set[str]] = []  # per document: its title's terms, which every unit of it is about
    fields: list[bool] = []  # the unit is a field line stating the asked attribute of what is asked about
    headings: dict[tuple[int, int], str] = {}  # the heading each unit stands under
    # a bare tag or image renders as nothing: neither an answer nor the sentence before one ("<HomeSponsors />")
    all_pairs = [[(u, where) for u, where in sectioned_units(doc.get("text", "")) if _WORDY.search(render(u))]
                 for doc in documents]
    sources = [str(doc.get("source") or "") for doc in documents]
    continued = _continuations(all_pairs, sources)
    for d_idx, doc in enumerate(documents):
        topics.append(set(tokenize(str(doc.get("title") or ""))) if topic_terms else set())
        pairs = all_pairs[d_idx]
        units = [u for u, _where in pairs]
        for u_idx, (unit, where) in enumerate(pairs):
            cands.append((d_idx, u_idx, unit, set(tokenize(unit))))
            prev = units[u_idx - 1] if u_idx else str(doc.get("title") or "")
            windows.append(f"{prev} {unit}".strip())  # a unit is read with the sentence before it
            subject = where or str(doc.get("title") or "")
            headings[d_idx, u_idx] = where
            row = row_field(question, unit)  # a table row of the setting asked about, with the attribute asked
            fields.append(row or field_answer(question, unit, subject))
            row = row or bool(row_name(unit)) and not unit.startswith(CODE_PREFIX)  # a row leans on no other row
            # a field line ("Default: `600`") is read with its heading, the setting it is a field of
            # (a unit leans only on one under the same heading: "Cache version." under "### version" does
            # not borrow the sentence that ends "### readonly")
            same = bool(u_idx) and pairs[u_idx - 1][1] == where
            before.append(("", set()) if row else (f"{subject} —", set(tokenize(subject))) if fields[-1]
                          else (units[u_idx - 1] if same else "", set(tokenize(prev)) if same or not u_idx else set()))
            # "... offers:" / "enabled with:" introduces the next unit (a list item, a code block): read both
            nxt = (units[u_idx + 1] if u_idx + 1 < len(units) else continued.get((sources[d_idx], unit), "")) \
                if unit.endswith((":", "：")) else ""
            after.append((nxt, set(tokenize(nxt[len(CODE_PREFIX):] if nxt.startswith(CODE_PREFIX) else nxt))))
    if not cands:
        return ExtractiveAnswer("")
    idf = _idf([c[3] for c in cands])
    index = {(c[0], c[1]): i for i, c in enumerate(cands)}  # each unit's index among the candidates
    # the terms of the heading each unit stands under (`heading_terms`), which count as its own for ranking
    # (weighted by how many units they are read in) and not for the coverage reported
    sections = [set(tokenize(headings[c[0], c[1]])) if heading_terms else set() for c in cands]
    idf_ranking = _idf([c[3] | section for c, section in zip(cands, sections, strict=True)]) if heading_terms else idf
    q_weight = sum(idf.get(t, math.log(1 + len(cands))) for t in q_tokens) or 1.0
    r_weight = sum(idf_ranking.get(t, math.log(1 + len(cands))) for t in q_tokens) or 1.0
    cosines = _cosines(question, [c[2] for c in cands], embed)
    alone = None if cosines is None else _minmax(cosines)
    q_lang = detect_language(question)
    # units read in context count only for units in another language than the question's: the
    # windows are embedded only when there is one (same scores, fewer texts to embed)
    # each unit's language, read once; a table row is in its passage's language when it mixes scripts (the type
    # column of a Chinese props table runs in Latin letters: "spin-props | 类型: { strokeWidth?: number, … }")
    rows = {i for i, c in enumerate(cands) if row_name(c[2])}
    passage_langs = {d: prose_language(str(documents[d].get("text", "")), default=q_lang)
                     for d in {cands[i][0] for i in rows}}  # read only for the passages that hold a row
    langs = [unit_language(c[2], passage_langs[c[0]]) if i in rows else detect_language(c[2])
             for i, c in enumerate(cands)]
    crossing = alone is not None and any(lang != q_lang for lang in langs)
    in_context = _similarities(question, windows, embed) if crossing else None
    # a bilingual site's pages in the question's language: their units go before those of the translation
    other_language = langs.count(q_lang) >= len(cands) // 4
    scored = []
    plain: dict[tuple[int, int], float] = {}  # each unit's score without its heading's terms (`heading_terms`)
    for i, (d_idx, u_idx, unit, toks) in enumerate(cands):
        w_sem, sem = (semantic_weight, float(alone[i])) if alone is not None else (0.0, 0.0)
        if alone is not None and in_context is not None and langs[i] != q_lang:
            # Across languages few terms match: trust the embedding more, and read the unit in context.
            w_sem, sem = 0.75, 0.5 * (float(alone[i]) + float(in_context[i]))
        follow, follow_toks = after[i]
        if follow:
            toks = toks | follow_toks
        cov = _coverage(q_tokens, q_cross, toks, idf) / q_weight if q_tokens else 0.0
        # "The default is 100." answers "default max_connections" when the sentence before names it: a
        # unit that finds most of the question in that sentence is shown, and scored, with it.
        lead_text, lead_toks = before[i]
        # A short unit that states the kind of thing asked for but names nothing of the question ("对此你可以
        # 使用`jsonable_encoder`。", "Defaults to `600`.") continues its sentence before: it is read with it too.
        states = len(toks) <= SHORT_UNIT and ((asks_value and states_asked(unit, "value"))
                                              or (asks_identifier and states_asked(unit, "name")))
        cov_ctx = (_coverage(q_tokens, q_cross, toks | lead_toks, idf) / q_weight
                   if lead_text and (cov or states) else 0.0)
        lean = (fields[i] and bool(lead_text)) or (cov_ctx - cov > cov and not lead_text.startswith(CODE_PREFIX))
        if lean:
            cov, toks = cov_ctx, toks | lead_toks
        # A unit of the page "大果西番莲" is about 大果西番莲 whether or not it repeats the name ("它的根部可用来
        # 当作催吐剂"): for ranking, the title's terms count as the unit's, so the words that tell the page's
        # units apart decide; the coverage reported (and fed to the confidence) is read the same way.
        ranked = _coverage(q_tokens, q_cross, toks | topics[d_idx], idf) / q_weight if q_tokens and topics[d_idx] else cov
        ranking = (_coverage(q_tokens, q_cross, toks | topics[d_idx] | sections[i], idf_ranking) / r_weight
                   if q_tokens and heading_terms else ranked)
        brevity = 1.0 / (1.0 + max(0, len(toks) - 40) / 40)  # long run-on units read badly
        factor = 1.0
        if other_language and langs[i] != q_lang and not unit.startswith(CODE_PREFIX):
            factor *= OTHER_LANGUAGE  # the knowledge base speaks the question's language: answer in it first
        if unit.startswith(CODE_PREFIX) and not asks_code and not (settings and settings <= toks):
            factor *= 0.5  # a bare code line rarely answers a question in words
        elif asks_value and ranked > 0 and states_asked(unit, "value"):
            factor *= 1.15  # the question wants a value and this unit states one
        elif asks_identifier and ranked > 0 and states_asked(unit, "name"):
            factor *= 1.15  # the question wants a name in code and this unit writes one
        score = _score(ranking, w_sem, sem, brevity, d_idx, factor)
        if heading_terms:
            plain[d_idx, u_idx] = _score(ranked, w_sem, sem, brevity, d_idx, factor)
        if ranked > 0 or sem > 0.8:
            pieces = ((lead_text,) if lean else ()) + (unit,) + ((follow,) if follow else ())
            scored.append((score, ranked, d_idx, u_idx, pieces, unit[:60], lead_text[:60] if lean else ""))
    if any(fields):  # a field line that states the asked attribute of the asked setting answers first
        scored = fields_first(scored, fields, index, question, headings, q_lang)
    scored.sort(key=lambda x: -x[0])
    chosen, seen = [], set()
    best = scored[0][0] if scored else 0.0
    for item in scored:
        own, lead = item[5], item[6]
        if own in seen or item[0] < max(min_score, 0.5 * best):
            continue
        if lead in seen:  # its sentence before was chosen alone: show the two together instead
            chosen = [item if c[5] == lead else c for c in chosen]
            seen.add(own)
            continue
        if any(is_translation(item[4], c[4]) for c in chosen):  # the same sentence in the other language
            continue
        if any(p in c[4] for c in chosen for p in item[4]):  # shown already, as what a colon introduces
            continue
        seen.update(k for k in (own, lead) if k)
        chosen.append(item)
        if len(chosen) >= max_sentences:
            break
    if not chosen:
        return ExtractiveAnswer("", coverage=scored[0][1] if scored else 0.0)
    kind = asked_kind(question)
    placed = {(c[0], c[1]): c[2] for c in cands}
    if kind:
        chosen = completed(chosen, placed, kind, question, headings)
    chosen = with_antecedents(chosen, placed, headings, question)  # "因此……" shown after its cause
    chosen = with_continuations(chosen, placed, headings, question)  # "有以下三点：第一，…" shown to its last point
    if elaboration:  # "什么是…？": the best unit with the sentence that goes on with it
        first = index.get((chosen[0][2], chosen[0][3]))
        chosen = with_elaboration(chosen, placed, headings, question, kind, first is not None and fields[first])
    chosen.sort(key=lambda x: (x[2], x[3]))  # document order reads better than score order
    cite_no: dict[int, int] = {}
    citations, parts, sentences, rendered = [], [], [], []
    for _, cov, d_idx, _u_idx, pieces, *_keys in chosen:
        if d_idx not in cite_no:
            cite_no[d_idx] = len(cite_no) + 1
            doc = documents[d_idx]
            citations.append({"n": cite_no[d_idx], "chunk_id": doc.get("chunk_id"), "source": doc.get("source"),
                              "title": doc.get("title", ""), "text": doc.get("text", "")})
        rendered += [render(u) for u in pieces]
        shown = " ".join(rendered[-len(pieces):])
        unit = " ".join(pieces)
        parts.append(f"{shown}{'' if _CJK.match(shown[-1:]) else ' '}[{cite_no[d_idx]}]")
        sentences.append({"text": unit, "citation": cite_no[d_idx], "coverage": round(cov, 4)})
    coverage = max(c[1] for c in chosen)
    similarity = (max(float(cosines[index[(c[2], c[3])]]) for c in chosen if (c[2], c[3]) in index)
                  if cosines is not None else None)
    # the margin fed to the confidence is read from the scores without the headings' terms, which the units
    # under one heading share (`bench/results_answers.md`, "Fifteenth session")
    unheaded = [(plain[x[2], x[3]],) + x[1:] for x in scored] if heading_terms else scored
    if heading_terms and any(fields):
        unheaded = fields_first(unheaded, fields, index, question, headings, q_lang)
    margin = _margin(sorted(unheaded, key=lambda x: -x[0]))
    answered_by_field = any(fields[index[(c[2], c[3])]] for c in chosen if (c[2], c[3]) in index)
    return ExtractiveAnswer(_join(parts), citations, coverage, sentences, rendered, similarity, margin,
                            answered_by_field, scored[0][2] if scored else None)


def _score(lexical: float, w_sem: float, sem: float, brevity: float, d_idx: int, factor: float) -> float:
    """A unit's score: its lexical and embedding scores mixed, shortened for a run-on unit, a little for its
    passage's rank, times the question-kind factors."""
    return (((1 - w_sem) * lexical + w_sem * sem) * brevity + 0.05 / (1 + d_idx)) * factor


def _margin(scored: list[tuple]) -> float | None:
    """How far the best unit's score (`scored` sorted, best first) is ahead of the runner-up's, a share of it."""
    best = scored[0][0] if scored else 0.0
    runner_up = next((x[0] for x in scored[1:] if x[5] != scored[0][5]), 0.0)
    return (best - runner_up) / best if best > 0 else None


def _join(parts: list[str]) -> str:
    """Sentences side by side: a space before one that starts with a Latin letter, digit or mark
    (English read in a Chinese answer too), none before one that starts with a CJK character."""
    out = parts[0] if parts else ""
    for part in parts[1:]:
        out += ("" if _CJK.match(part) else " ") + part
    return out
