"""The sentence that goes on with the best answer sentence is shown with it, for questions that ask for
more than one fact.

A question that asks for a description, a reason or a definition ("什么是羊水栓塞？", "产妇症状是什么？",
"Why …", "How does … form?") is answered by a few sentences of a passage, not one: the sentence that matches
the question best opens the answer and the next one goes on with it ("羊水栓塞是一种罕见……的产科紧急症候。"
then "指在分娩过程中，……"). Alone, the first is half the answer, and the extractive answerer's second choice
is the next best match anywhere, often about something else. So the best unit of such a question is shown
with the unit after it in its passage, under the same heading, when that unit is prose (no code, no table
row) of at most `MAX_CHARS` characters and not shown already. Left as they are: a factoid question (a number,
a date, a name, a command, a setting's value: one unit states it), a how-to question ("How do I …",
"怎么在本地把应用跑起来？": a step or a command answers it, and the sentence after it is the next topic of a
docs page), and an answer read from a field line ("文件名: zh_HK"). The question classes are the usual
question taxonomies' (`confidence.asks_explanation` and definitions), not any evaluation set's sentences.
Measured in `bench/results_answers.md`, "Sixteenth session" (feature `elaboration`).
"""

from __future__ import annotations

import re

from queryweave.tools.grounding.confidence import asked_type, asks_explanation
from queryweave.tools.grounding.units import CODE_PREFIX, position

MAX_CHARS = 200  # the unit shown after the best one: about one or two sentences
MAX_UNITS_AHEAD = 12  # how far past its own unit a chosen item's last piece can be (a list it completes)
# definitions and descriptions, which `confidence.asks_explanation` (reason, manner, list, features) leaves out
_DEFINES = re.compile(r"^\s*(?:什么是|何谓|何为|\bwhat (?:is|are|was|were) (?:an? |the )?\w[\w\s-]{0,40}\?\s*$)|"
                      r"(?:是什么|指什么|是指什么|是怎样的|是什么样的?)[？?]?\s*$|有什么|有何", re.I)
_TABLE = re.compile(r"\s\|\s|^\|")
# a how-to question, which asks what the reader does ("How do I …", "怎么在本地把应用跑起来？") and is answered by
# a step or a command, not a passage; "X 是怎么形成的？", "How does X form?" ask how something is or came about
_PROCEDURE = re.compile(r"\bhow (?:do|can|could|should|would|might|must) (?:i|we|you|one)\b|\bhow to\b|"
                        r"\bwhat (?:do|should|can) (?:i|we|you) do\b", re.I)
_CN_MANNER = re.compile(r"怎么|怎样|如何|咋")
_CN_ABOUT = re.compile(r"(?:怎么|怎样|如何|咋)[^，,。？?；;]*的[？?。]?\s*$|怎么会|如何评价|怎样的")


def asks_procedure(question: str) -> bool:
    """Whether `question` asks how the reader does something (a step or a command answers it)."""
    return bool(_PROCEDURE.search(question) or (_CN_MANNER.search(question) and not _CN_ABOUT.search(question)))


def asks_more_than_a_fact(question: str) -> bool:
    """Whether `question` asks for a description, reason, manner or definition, and no number, date or name."""
    return asked_type(question) is None and bool(asks_explanation(question) or _DEFINES.search(question))


def goes_on(unit: str, nxt: str) -> bool:
    """Whether `nxt`, the unit after `unit` in its passage, can be shown as going on with it."""
    if not nxt or len(nxt) > MAX_CHARS or nxt.startswith(CODE_PREFIX) or _TABLE.search(nxt):
        return False
    if unit.startswith(CODE_PREFIX) or _TABLE.search(unit) or unit.endswith((":", "：")):
        return False  # code, a table row, or a unit whose colon brings its own next unit already
    return True


def with_elaboration(chosen: list, units: dict[tuple[int, int], str], headings: dict[tuple[int, int], str],
                     question: str, kind: str | None = None, field: bool = False) -> list:
    """`chosen` (extractive candidates in score order: score, coverage, passage, unit, pieces, …) with the
    unit after the best one's last piece shown with it, when the question asks for more than a fact (and no
    `kind` of thing: a command, a value, a name; nor how to do something) and the best unit is no `field` line."""
    if not chosen or kind or field or not asks_more_than_a_fact(question) or asks_procedure(question):
        return chosen
    shown = {p for item in chosen for p in item[4]}
    best = chosen[0]
    d, u, pieces = best[2], best[3], best[4]
    last = pieces[-1] if pieces else ""
    at = position(units, d, last, range(u, u + MAX_UNITS_AHEAD))
    if at is None:
        return chosen
    nxt = units.get((d, at + 1), "")
    if nxt in shown or headings.get((d, at + 1)) != headings.get((d, at)) or not goes_on(last, nxt):
        return chosen
    return [best[:4] + ((*pieces, nxt),) + best[5:], *chosen[1:]]

