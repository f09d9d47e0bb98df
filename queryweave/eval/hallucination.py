"""Hallucination-detection evaluation on HaluEval-style and UHGEval-style JSONL.

Every record gives one source and two texts, a right one (label 0) and a hallucinated one
(label 1); both are judged alone by the detector. Formats, recognised line by line from the keys:

- HaluEval QA: `knowledge`, `question`, `right_answer`, `hallucinated_answer`
- HaluEval summarization: `document`, `right_summary`, `hallucinated_summary`
- HaluEval dialogue: `knowledge`, `dialogue_history`, `right_response`, `hallucinated_response`
- UHGEval: `headLine`, `newsBeginning`, `realContinuation`, `hallucinatedContinuation` (the source
  is the headline and news beginning; `newsRemainder` is never shown, it contains the answer)

Metrics treat "hallucinated" as the positive class: accuracy, precision, recall over all texts.

Strictness (`detector(strict=None)`, the default) follows the kind of text: answers (`qa`,
`dialogue`) are judged strictly — a number, name or negation that no source carries makes the
answer hallucinated, as in the reflect node's grading of generated answers —, summaries and
continuations (`summarization`, `uhgeval`) by the support score alone, because a right reference
summary of a truncated article carries names and numbers from the rest of the article
(docs/grounding.md measures both choices on both kinds).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# (kind, source keys, right key, hallucinated key)
FORMATS = [
    ("summarization", ("document",), "right_summary", "hallucinated_summary"),
    ("dialogue", ("knowledge", "dialogue_history"), "right_response", "hallucinated_response"),
    ("qa", ("knowledge",), "right_answer", "hallucinated_answer"),
    ("uhgeval", ("headLine", "newsBeginning"), "realContinuation", "hallucinatedContinuation"),
]


@dataclass
class HaluItem:
    """One text to judge: its sources, the text, and whether it is hallucinated (label 1)."""

    sources: list[str]
    text: str
    label: int
    kind: str
    record: int
    question: str = ""
    meta: dict = field(default_factory=dict)


def _as_text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return "\n".join(_as_text(v) for v in value)
    return str(value).strip()


def record_items(obj: dict, record: int = 0) -> list[HaluItem]:
    """The right and the hallucinated item of one JSON record (empty for an unknown format)."""
    for kind, source_keys, right_key, hallu_key in FORMATS:
        if right_key in obj and hallu_key in obj and all(k in obj for k in source_keys[:1]):
            sources = [_as_text(obj.get(k)) for k in source_keys]
            if kind == "uhgeval":
                sources = ["\n".join(s for s in sources if s)]
            sources = [s for s in sources if s]
            question = _as_text(obj.get("question", ""))
            return [
                HaluItem(sources, _as_text(obj[right_key]), 0, kind, record, question),
                HaluItem(sources, _as_text(obj[hallu_key]), 1, kind, record, question),
            ]
    return []


def read_hallucination(path: str | Path, limit: int | None = None) -> list[HaluItem]:
    """Items of a HaluEval/UHGEval-style JSONL file (two per record; `limit` counts records).

    Raises ValueError when no line has a known format, FileNotFoundError when the file is missing.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no such file: {path}")
    items: list[HaluItem] = []
    records = 0
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            if limit is not None and records >= limit:
                break
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{lineno}: not JSON ({exc.msg})") from None
            pair = record_items(obj, records) if isinstance(obj, dict) else []
            if pair and all(it.text for it in pair):
                items.extend(pair)
                records += 1
    if not items:
        raise ValueError(f"{path}: no HaluEval/UHGEval-style records (see `queryweave eval hallucination -h`)")
    return items


def metrics(labels: Iterable[int], predictions: Iterable[int]) -> dict[str, float]:
    """Accuracy, precision and recall with hallucinated (1) as the positive class, and n."""
    pairs = list(zip(labels, predictions, strict=True))
    tp = sum(1 for y, p in pairs if y and p)
    fp = sum(1 for y, p in pairs if not y and p)
    fn = sum(1 for y, p in pairs if y and not p)
    n = len(pairs)
    correct = sum(1 for y, p in pairs if bool(y) == bool(p))
    return {
        "accuracy": round(correct / n, 4) if n else 0.0,
        "precision": round(tp / (tp + fp), 4) if tp + fp else 0.0,
        "recall": round(tp / (tp + fn), 4) if tp + fn else 0.0,
        "n": n,
    }


# kinds judged strictly when `strict` is None: answers, which must stay within their knowledge
STRICT_KINDS = frozenset({"qa", "dialogue"})


def strict_for(kind: str, strict: bool | None = None) -> bool:
    """Whether a text of `kind` is judged strictly: `strict` when given, else by kind (`STRICT_KINDS`)."""
    return kind in STRICT_KINDS if strict is None else bool(strict)


def detector(
    embeddings=None, llm=None, strict: bool | None = None, llm_when: str = "always",
    on_report: Callable[[HaluItem, Any], None] | None = None,
) -> Callable[[HaluItem], bool]:
    """The groundedness detector as a predicate: True when the item's text is judged hallucinated
    (`strict`: a claim with a number/entity/negation the sources lack or contradict suffices;
    None: strict for answers, score alone for summaries — see `strict_for`; `llm_when`: see
    `groundedness`). `on_report(item, report)` sees every `GroundednessReport`."""
    from queryweave.tools.grounding.detector import groundedness

    def judge(item: HaluItem) -> bool:
        report = groundedness(item.text, item.sources, embeddings=embeddings, llm=llm,
                              strict=strict_for(item.kind, strict), llm_when=llm_when)
        if on_report is not None:
            on_report(item, report)
        return report.hallucinated

    return judge


def evaluate(
    items: list[HaluItem], judge: Callable[[HaluItem], bool], progress: bool = False
) -> dict[str, float]:
    """Run `judge` over every item and score it (`metrics`)."""
    preds = []
    for i, item in enumerate(items, 1):
        preds.append(int(bool(judge(item))))
        if progress and i % 50 == 0:
            import sys

            print(f"  {i}/{len(items)}", file=sys.stderr)
    return metrics([it.label for it in items], preds)
