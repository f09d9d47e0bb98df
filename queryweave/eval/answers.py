"""Answer-level evaluation: does the answer state the fact, cite a chunk that holds it, abstain when it should?

Input: a BEIR-style folder whose `queries.jsonl` carries `answers` (the shared hotpotqa100 and
cmrc2018; the folder's corpus is ingested), or a JSONL file of questions (`question`, `answers`, `lang`;
`answers: []` marks a question the corpus cannot answer) asked against a corpus folder given apart
(`samples/eval/answers.jsonl` with `samples/corpus`).

Measures per system, in one run:
- `contains`: share of answerable questions whose answer contains a gold answer (folded case and
  width; a Latin/number gold must stand as a whole token: "10" is not found in "100", "6.3.5" is in "v6.3.5");
- `f1`: token F1 against the best gold (Latin words; Chinese by character), answerable questions;
- `citation_precision`: mean share of cited chunks that hold a gold answer (answerable, answered);
- `abstain_precision` / `abstain_recall` on unanswerable questions, and `wrong_abstain`: share of
  answerable questions the system declined;
- `auroc`: how well the confidence separates right answers from wrong ones (answers given only; an
  answer to an unanswerable question is wrong), `top_half`: accuracy of the more confident half, and
  accuracy per confidence bucket.
Systems: `baseline` (the best-overlapping sentence of the top BM25 passage, never abstains), `pipeline`
(the graph with the run's configuration; clarification off, since nobody answers it), and `naive` (a
one-prompt LangChain chain over the same hybrid retriever) when a model is configured.
"""

from __future__ import annotations

import re
import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from queryweave.eval.jsonl import read_records
from queryweave.eval.rewrite import f1

ABSTAIN_MARKERS = ("does not seem to contain", "没有找到", "i don't know", "i do not know", "不知道", "无法回答",
                   "cannot answer", "no answer")


@dataclass
class AnswerItem:
    """A question, its gold answers (empty: not answerable from the corpus) and language."""

    id: str
    question: str
    answers: list[str]
    lang: str

    @property
    def answerable(self) -> bool:
        return bool(self.answers)


@dataclass
class Outcome:
    """What one system did with one question."""

    answer: str
    cited: list[str]  # texts of the cited chunks
    confidence: float | None
    abstained: bool
    ms: float
    features: dict[str, float] | None = None  # the confidence model's inputs (pipeline only)


System = Callable[[AnswerItem], Outcome]


def _lang(text: str) -> str:
    return "zh" if re.search(r"[\u3400-\u9fff]", text) else "en"


def _answer_item(rec: dict[str, Any], n: int) -> AnswerItem:
    q = str(rec.get("question") or rec["text"])
    answers = [str(a) for a in rec.get("answers") or [] if str(a).strip()]
    return AnswerItem(str(rec.get("id") or rec.get("_id") or n), q, answers, str(rec.get("lang") or _lang(q)))


def read_items(path: str | Path, limit: int | None = None) -> list[AnswerItem]:
    """Questions of a JSONL file (`question` or `text`, `answers`, optional `lang`, `id`/`_id`)."""
    return read_records(path, _answer_item, "a question with answers", limit)


def load_set(path: str | Path, corpus: str | Path | None, limit: int | None) -> tuple[Path, list[AnswerItem]]:
    """(corpus to ingest, questions) of a BEIR folder, or of a JSONL file with its corpus folder."""
    p = Path(path)
    if p.is_dir():
        if not (p / "corpus.jsonl").exists() or not (p / "queries.jsonl").exists():
            raise FileNotFoundError(f"{p}: expected corpus.jsonl and queries.jsonl")
        items = read_items(p / "queries.jsonl", limit)
        if not any(it.answers for it in items):
            raise ValueError(f"{p}/queries.jsonl has no `answers`: nothing to score answers against")
        return Path(corpus) if corpus else p / "corpus.jsonl", items
    if not p.exists():
        raise FileNotFoundError(f"{p}: no such file")
    if corpus is None:
        raise ValueError("a JSONL question file needs --corpus DIR (the documents to answer from)")
    return Path(corpus), read_items(p, limit)


def _fold(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).casefold()
    return re.sub(r"\s+", " ", text.replace("`", "").replace("*", "")).strip()


# A citation marker ("[1]") after an answer's sentence: a pointer to a source, not words of the answer.
# Not a value written in brackets: "`[10]`", "ports = [80]", "(1, [2])".
_MARKER = re.compile(r"(?<=[^\s=:(,\[`])\s*\[\d{1,2}\](?!`)")


def contains_gold(answer: str, golds: list[str]) -> bool:
    """True when the answer states one of the gold answers (a Latin/number gold as a whole token; a version
    may be written with its "v": "v6.3.5" states 6.3.5, "dev6.3.5" does not). Citation markers are read as
    the space they stand in (as ALCE scores answers with their citations removed): two sentences of a gold
    shown one after the other, "…环口动物门。[1]这次事件…", state it; a gold that writes brackets itself
    (`[2, 3]`, `[1]`) is matched against the answer as written."""
    unmarked = _fold(_MARKER.sub(" ", answer))
    for gold in golds:
        text = _fold(answer) if "[" in gold else unmarked
        squeezed = text.replace(" ", "")
        g = _fold(gold)
        if not g:
            continue
        if re.search(r"[\u3400-\u9fff]", g):
            if g.replace(" ", "") in squeezed:
                return True
        elif re.search(rf"(?<![0-9a-z]){'v?' if g[0].isdigit() else ''}{re.escape(g)}(?![0-9a-z])", text):
            return True
    return False


def auroc(scores: list[float], labels: list[bool]) -> float | None:
    """Area under the ROC curve of `scores` for `labels` (ties count half); None without both classes."""
    pos = [s for s, y in zip(scores, labels, strict=True) if y]
    neg = [s for s, y in zip(scores, labels, strict=True) if not y]
    if not pos or not neg:
        return None
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def score(items: list[AnswerItem], outcomes: list[Outcome]) -> dict[str, Any]:
    """The metrics of one system (outcomes aligned with items)."""
    answerable = [(it, o) for it, o in zip(items, outcomes, strict=True) if it.answerable]
    unanswerable = [(it, o) for it, o in zip(items, outcomes, strict=True) if not it.answerable]
    right = {id(o): (it.answerable and not o.abstained and contains_gold(o.answer, it.answers))
             for it, o in zip(items, outcomes, strict=True)}
    row: dict[str, Any] = {"n": len(items), "answerable": len(answerable), "unanswerable": len(unanswerable)}
    if answerable:
        row["contains"] = round(sum(right[id(o)] for _, o in answerable) / len(answerable), 4)
        row["f1"] = round(sum(0.0 if o.abstained else max(f1(o.answer, g) for g in it.answers)
                              for it, o in answerable) / len(answerable), 4)
        cited = [(it, o) for it, o in answerable if o.cited and not o.abstained]
        row["citation_precision"] = round(sum(
            sum(contains_gold(t, it.answers) for t in o.cited) / len(o.cited) for it, o in cited
        ) / len(cited), 4) if cited else None
        row["wrong_abstain"] = round(sum(o.abstained for _, o in answerable) / len(answerable), 4)
    abstained = [o for o in outcomes if o.abstained]
    if unanswerable:
        row["abstain_recall"] = round(sum(o.abstained for _, o in unanswerable) / len(unanswerable), 4)
        row["abstain_precision"] = round(sum(o.abstained for _, o in unanswerable) / len(abstained), 4) \
            if abstained else None
    given = [o for o in outcomes if not o.abstained and o.confidence is not None]
    row["auroc"] = auroc([o.confidence for o in given], [right[id(o)] for o in given])
    row["auroc"] = None if row["auroc"] is None else round(row["auroc"], 4)
    if given:
        top = sorted(given, key=lambda o: -o.confidence)[: max(1, len(given) // 2)]
        row["top_half"] = round(sum(right[id(o)] for o in top) / len(top), 4)
        buckets = {}
        for lo in (0.0, 0.2, 0.4, 0.6, 0.8):
            inside = [o for o in given if lo <= o.confidence < lo + 0.2 or (lo == 0.8 and o.confidence >= 1.0)]
            if inside:
                buckets[f"{lo:.1f}-{lo + 0.2:.1f}"] = {"n": len(inside), "right": round(
                    sum(right[id(o)] for o in inside) / len(inside), 3)}
        row["buckets"] = buckets
    row["ms_per_question"] = round(sum(o.ms for o in outcomes) / max(1, len(outcomes)), 1)
    return row


def looks_abstained(answer: str) -> bool:
    """An answer that declines ("not in the knowledge base", "I don't know")."""
    low = answer.casefold()
    return not low.strip() or any(m in low for m in ABSTAIN_MARKERS)


def evaluate(items: list[AnswerItem], systems: dict[str, System], progress: bool = False,
             on_outcome: Callable[[str, AnswerItem, Outcome], None] | None = None) -> dict[str, Any]:
    """Every system on every question; rows overall and per language."""
    rows: dict[str, Any] = {}
    for name, system in systems.items():
        outcomes = []
        for i, item in enumerate(items, 1):
            outcome = system(item)
            outcomes.append(outcome)
            if on_outcome:
                on_outcome(name, item, outcome)
            if progress and i % 25 == 0:
                print(f"  {name}: {i}/{len(items)}", flush=True)
        rows[name] = {"all": score(items, outcomes)}
        langs = sorted({it.lang for it in items})
        if len(langs) > 1:
            for lang in langs:
                idx = [i for i, it in enumerate(items) if it.lang == lang]
                rows[name][lang] = score([items[i] for i in idx], [outcomes[i] for i in idx])
    return {"n": len(items), "rows": rows}


def timed(fn: Callable[[AnswerItem], Outcome]) -> System:
    """Wrap a system so that its outcome carries its wall time."""
    def run(item: AnswerItem) -> Outcome:
        t = time.perf_counter()
        out = fn(item)
        out.ms = (time.perf_counter() - t) * 1000
        return out

    return run
