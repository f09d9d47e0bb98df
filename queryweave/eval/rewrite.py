"""Follow-up rewriting evaluation on CANARD-style JSONL (`history`, `question`, `rewrite`, `needs_rewrite`).

Each system maps (question, history) to a standalone question; it is scored against the one gold
rewrite:
- `exact`: equal after folding case, punctuation and spacing;
- `f1`: token F1 (Latin words; Chinese by character);
- `entity_recall`: of the content tokens the gold rewrite adds to the question (what had to be
  resolved), the share the rewritten question contains — over items that add any;
- `search_recall`: the same for what retrieval searches: the question plus the rules' hints (phrases
  of the conversation carried beside a question the rules keep as asked, `tools/understanding/hints.py`);
  `hint_terms`: mean number of content tokens the hints add (the price of that recall);
- `kept`: share of `needs_rewrite=false` items returned unchanged;
- `splices`: outputs that repeat a phrase the question and the gold rewrite do not repeat ("what is
  what is its ...") — an ungrammatical splice of two questions.
Rows in one run: `none` (the follow-up as is), `rules` (the rule layer alone), and when a model is
configured `llm` (the model's rewrite of every follow-up, unchecked) and `graph` (what the `resolve`
node does: the rules, the model's rewrite when the rules are unsure and the rewrite passes
`tools/understanding/rewrite_check.py`, the rules' hints beside it). History entries alternate
user / assistant; a CANARD `title` (and `section`) is given to the systems as a leading topic line, as
the annotators saw it.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from queryweave.eval.jsonl import read_records
from queryweave.tools.common.text import tokenize

Rewriter = Callable[[str, list[tuple[str, str]]], "str | tuple[str, list[str]]"]

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_LATIN = re.compile(r"[^\W_]+", re.UNICODE)
_RUN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+|[^\W_\u3400-\u9fff\uf900-\ufaff]+", re.UNICODE)


@dataclass
class RewriteItem:
    """One follow-up with its history and gold rewrite."""

    id: str
    question: str
    rewrite: str
    history: list[tuple[str, str]]
    needs_rewrite: bool
    lang: str
    conversation: str = ""
    meta: dict[str, Any] = field(default_factory=dict)


def _rewrite_item(rec: dict[str, Any], n: int) -> RewriteItem:
    turns = [("user" if i % 2 == 0 else "assistant", str(t)) for i, t in enumerate(rec["history"])]
    topic = " — ".join(str(rec[k]) for k in ("title", "section") if rec.get(k))
    if topic:
        turns = [("system", topic), *turns]
    return RewriteItem(
        id=str(rec.get("id", n)), question=str(rec["question"]), rewrite=str(rec["rewrite"]), history=turns,
        needs_rewrite=bool(rec.get("needs_rewrite", True)),
        lang=str(rec.get("lang") or ("zh" if _CJK.search(rec["question"]) else "en")),
        conversation=str(rec.get("conversation_id", "")))


def read_rewrites(path: str | Path, limit: int | None = None) -> list[RewriteItem]:
    """Items of a CANARD-style JSONL file (unreadable lines are an error naming the line)."""
    return read_records(path, _rewrite_item, "a rewrite item", limit)


def fold(text: str) -> str:
    """Case, punctuation and spacing folded away (for exact match)."""
    text = unicodedata.normalize("NFKC", text).casefold()
    return "".join(ch for ch in text if ch.isalnum())


def units(text: str) -> list[str]:
    """F1 units: lower-case Latin words and single Chinese characters."""
    text = unicodedata.normalize("NFKC", text).casefold()
    out: list[str] = []
    for piece in _LATIN.findall(text):  # "connectionTimeout的默认值" -> connectiontimeout, 的, 默, 认, 值
        for run in _RUN.findall(piece):
            out.extend(run) if _CJK.match(run) else out.append(run)
    return out


def f1(pred: str, gold: str) -> float:
    """Token F1 of the units of `pred` against `gold`."""
    p, g = Counter(units(pred)), Counter(units(gold))
    common = sum((p & g).values())
    if not common:
        return 0.0
    precision, recall = common / sum(p.values()), common / sum(g.values())
    return 2 * precision * recall / (precision + recall)


def added_terms(question: str, gold: str) -> set[str]:
    """Content tokens of the gold rewrite that the follow-up lacks: what resolution must supply (single
    Latin letters, such as the "s" of a possessive "Rose Tattoo's", are not content)."""
    return {t for t in set(tokenize(gold)) - set(tokenize(question)) if not (len(t) == 1 and t.isascii())}


def has_splice(pred: str, question: str, gold: str, n: int = 2) -> bool:
    """True when `pred` repeats an n-gram of units that neither the question nor the gold rewrite repeats."""
    def repeated(text: str) -> set[tuple[str, ...]]:
        u = units(text)
        grams = Counter(tuple(u[i:i + n]) for i in range(len(u) - n + 1))
        return {g for g, c in grams.items() if c > 1}

    extra = repeated(pred) - repeated(question) - repeated(gold)
    return any(not all(_CJK.match(t) for t in g) or len(g) > 2 for g in extra) if extra else False


def score(items: list[RewriteItem], outputs: list[str], hints: list[list[str]] | None = None) -> dict[str, Any]:
    """Metrics of one system's outputs (aligned with `items`), with the retrieval `hints` of each."""
    exact = f1s = 0.0
    recall_sum, recall_n, kept, keep_n, splices, changed = 0.0, 0, 0, 0, 0, 0
    search_sum, hint_terms = 0.0, 0
    hints = hints or [[] for _ in items]
    for item, out, extra in zip(items, outputs, hints, strict=True):
        exact += fold(out) == fold(item.rewrite)
        f1s += f1(out, item.rewrite)
        changed += fold(out) != fold(item.question)
        added = added_terms(item.question, item.rewrite)
        got = set(tokenize(out))
        hinted = set(tokenize(" ".join(extra))) - got
        hint_terms += len(hinted)
        if item.needs_rewrite and added:
            recall_sum += len(added & got) / len(added)
            search_sum += len(added & (got | hinted)) / len(added)
            recall_n += 1
        if not item.needs_rewrite:
            keep_n += 1
            kept += fold(out) == fold(item.question)
        splices += has_splice(out, item.question, item.rewrite)
    n = max(1, len(items))
    return {"n": len(items), "exact": round(exact / n, 4), "f1": round(f1s / n, 4),
            "entity_recall": round(recall_sum / recall_n, 4) if recall_n else None,
            "search_recall": round(search_sum / recall_n, 4) if recall_n else None,
            "hint_terms": round(hint_terms / n, 2),
            "kept": round(kept / keep_n, 4) if keep_n else None, "changed": round(changed / n, 4),
            "splices": splices}


def rules_rewriter() -> Rewriter:
    """The rule layer of the `resolve` node (no model)."""
    from queryweave.tools.understanding.coref import resolve_followup

    def rewrite(question: str, history: list[tuple[str, str]]) -> tuple[str, list[str]]:
        res = resolve_followup(question, history)
        return res.query, res.hints

    return rewrite


def llm_rewriter(ctx: Any) -> Rewriter:
    """The `resolve` node's LLM rewrite with the run's model (the rules when the model fails)."""
    from queryweave.nodes.resolve import _llm_rewrite
    from queryweave.tools.understanding.coref import resolve_followup

    def rewrite(question: str, history: list[tuple[str, str]]) -> str:
        text, _error = _llm_rewrite(ctx, question, history)
        return text or resolve_followup(question, history).query

    return rewrite


def graph_rewriter(ctx: Any) -> Rewriter:
    """What the `resolve` node does with a model: the rules, and the LLM's rewrite (checked) when the
    rules are unsure; the rules' hints searched beside it (no knowledge base consulted here)."""
    from queryweave.nodes.resolve import checked_llm_rewrite
    from queryweave.tools.understanding.coref import resolve_followup

    def rewrite(question: str, history: list[tuple[str, str]]) -> tuple[str, list[str]]:
        res = resolve_followup(question, history)
        text, _error = checked_llm_rewrite(ctx, question, history, res)
        return text or res.query, res.hints

    return rewrite


def evaluate(items: list[RewriteItem], systems: dict[str, Rewriter],
             on_output: Callable[[str, RewriteItem, str, list[str]], None] | None = None) -> dict[str, Any]:
    """Every system on every item, one run; rows by language and overall."""
    rows: dict[str, Any] = {}
    for name, system in systems.items():
        outputs, hints = [], []
        for item in items:
            extra: list[str] = []
            try:
                out = system(item.question, item.history)
                if isinstance(out, tuple):
                    out, extra = out
            except Exception as exc:  # noqa: BLE001 - a failing system scores its question unchanged
                out = item.question
                if on_output:
                    on_output(name, item, f"<error {type(exc).__name__}>", [])
            outputs.append(out)
            hints.append(list(extra))
            if on_output:
                on_output(name, item, out, list(extra))
        rows[name] = {"all": score(items, outputs, hints)}
        for lang in sorted({it.lang for it in items}):
            idx = [i for i, it in enumerate(items) if it.lang == lang]
            if len(idx) < len(items):
                rows[name][lang] = score([items[i] for i in idx], [outputs[i] for i in idx], [hints[i] for i in idx])
    return {"n": len(items), "rows": rows}


def iter_languages(items: Iterable[RewriteItem]) -> list[str]:
    """Languages present, sorted."""
    return sorted({it.lang for it in items})
