"""What a model's answer cites, and whether it may be shown (`vet_answer`, used by `generate`).

Small models often answer from the numbered passages without writing the `[n]` marks the prompt asks
for (Qwen2.5-Coder-1.5B left them out of 6 of 23 answers on the sample set, all Chinese). Such an answer
is not a refusal, and it must not be shown uncited either: each of its sentences is matched to the
passage holding the largest share of the sentence's content tokens (`overlap.content_tokens`:
stemmed, Chinese by words), and the passages that carry at least `MIN_SHARE` of some sentence are cited.
When none does, the answer came from somewhere else than the passages (the model's memory) and the
caller answers otherwise. The threshold is a plain majority, chosen before looking at any answer.

`invented_numbers` catches the other way a model answers from memory while citing: a number written in
digits ("4096 bytes", "port 27017") that neither the question nor any retrieved passage holds (values
compared, `facts.number_values`: "1,000" = "1000" = "one thousand"; a number in a passage the answer
forgot to cite is not invented). Replayed on the stored model answers of the sample
set (pipeline and naive chain, in-sample and held-out questions) it flagged six answers, five to
questions the corpus cannot answer and one stating another number than the corpus, and nothing else.
"""

from __future__ import annotations

import re

from queryweave.tools.grounding.claims import sentences
from queryweave.tools.grounding.facts import number_values, unsupported_numbers
from queryweave.tools.grounding.overlap import content_tokens

MIN_SHARE = 0.5
_MARK = re.compile(r"\[(\d{1,2})\]")
_WORD = re.compile(r"[^\W_]")


def attribute(answer: str, passages: list[str], min_share: float = MIN_SHARE) -> list[int]:
    """1-based numbers of the `passages` that carry some sentence of `answer` (sorted; empty: none)."""
    held = [set(content_tokens(p)) for p in passages]
    cited: set[int] = set()
    for sentence in sentences(answer) or [answer]:
        words = set(content_tokens(sentence))
        if not words or not held:
            continue
        share, best = max((len(words & h) / len(words), i) for i, h in enumerate(held))
        if share >= min_share and share > 0:
            cited.add(best + 1)
    return sorted(cited)


def invented_numbers(answer: str, question: str, passages: list[str]) -> list[str]:
    """Numbers written in digits in `answer` whose value neither `question` nor `passages` hold."""
    held = number_values("\n".join([question, *passages]))
    return [n for n in unsupported_numbers(answer, held) if re.search(r"\d", n)]


def vet_answer(answer: str, question: str, passages: list[str],
               check_numbers: bool = True) -> tuple[list[int], str | None]:
    """The 1-based passages a model `answer` cites (its `[n]` marks, else `attribute`), and why it must not
    be shown (None when it may): marks only ("[2][3]"), no mark and no passage carrying it, or (with
    `check_numbers`) numbers no passage or the question holds."""
    text = _MARK.sub("", answer)
    if not _WORD.search(text):
        return [], "the answer held citation marks only"
    cited = sorted({int(n) for n in _MARK.findall(answer) if 1 <= int(n) <= len(passages)})
    if not cited:  # no marks written: cite the passages that carry the answer's sentences, if any
        cited = attribute(text, passages)
        if not cited:
            return [], "the answer cites no passage and none carries it"
    if check_numbers and (made_up := invented_numbers(text, question, passages)):
        return cited, f"the answer states numbers its passages do not hold ({', '.join(made_up[:3])})"
    return cited, None
