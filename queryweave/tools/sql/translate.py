"""A Chinese question turned into English before Text-to-SQL, its quoted values left as written.

One short model call translates the question (`queryweave.prompts.sql.TRANSLATE_QUESTION`). What the
question puts in quotation marks is usually a value of the data (“美国”, “罗超的简历”), and a
translation of it ("American", "Lu Qiao's Resume") is a guess that no longer matches anything, while the
Chinese literal, written into the SQL as it stands, goes through the value mapping that compares it with
the stored values (`tools.sql.value_map`). So the quoted spans of the translation are put back, in order,
to the original's quoted text; a translation that does not quote as many spans as the original is not
used (the question is then answered in Chinese, as without translation).
A small model also guesses at names: 0.5B Qwen turned 得克萨斯州 into "Georgia" and 爱达荷州 into "Adelah
County" in half the GeoQuery questions that name a place. Given `names` (a word of the question and the stored
value it reads to, `schema_select.reading_hints`), the question it translates carries the English names in
place of those words ("有多少人住在 Texas 的 Austin"), which it copies (35th session). Shown names it knows, it
also answers instead of translating ("Sacramento is the capital city of California."); with `asked_only` a
reply that neither ends with "?" nor opens as a question or a request does ("What", "List", "In which") is
not used (`asks`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage

from queryweave.prompts import sql as P
from queryweave.tools.sql.database import SqlDatabase
from queryweave.tools.sql.join_fix import Terms
from queryweave.tools.sql.schema_select import reading_hints, select_tables
from queryweave.tools.sql.value_map import Readings

# “…”, "…", 「…」, 『…』 in a Chinese question; in the English reply also '…' between non-letters
_ZH_QUOTED = re.compile(r"“([^”]+)”|\"([^\"]+)\"|「([^」]+)」|『([^』]+)』")
_ASKS = re.compile(
    r"^(?:what|which|who|whom|whose|where|when|why|how|is|are|was|were|do|does|did|can|could|will|would|should|"
    r"has|have|had|list|give|show|name|find|tell|count|return|display|provide|get|identify|describe|compute|"
    r"calculate|sort|order|select|please|in|on|at|for|from|of|to|by|with|among|between|during|within|except)\b",
    re.I)
_EN_QUOTED = re.compile(r"“([^”]+)”|\"([^\"]+)\"|「([^」]+)」|『([^』]+)』|(?<![A-Za-z])'([^']+)'(?![A-Za-z])")


def quoted(text: str, pattern: re.Pattern[str] = _ZH_QUOTED) -> list[re.Match[str]]:
    """The quoted spans of `text`, in order."""
    return list(pattern.finditer(text))


def keep_quoted(original: str, english: str) -> str:
    """`english` with its quoted spans replaced, in order, by the quoted text of `original`, each in
    double quotes; `english` as it is when `original` quotes nothing; "" when the counts differ."""
    mine = quoted(original)
    if not mine:
        return english
    theirs = quoted(english, _EN_QUOTED)
    if len(theirs) != len(mine):
        return ""
    out, end = [], 0
    for m, t in zip(mine, theirs, strict=True):
        inner = next(g for g in m.groups() if g is not None)
        out += [english[end:t.start()], f'"{inner}"']
        end = t.end()
    return "".join(out) + english[end:]


def asks(english: str) -> bool:
    """Whether `english` reads as a question or a request: it ends with "?" or opens the way one does."""
    text = english.strip()
    return text.endswith("?") or _ASKS.match(text.lstrip("\"“'")) is not None


def shown_name(value: str) -> str:
    """A stored name as a translation writes it: as stored when it has capitals, else capitalised ('usa' -> 'USA',
    'south dakota' -> 'South Dakota')."""
    if value != value.lower():
        return value
    return value.upper() if len(value) <= 3 else " ".join(w[:1].upper() + w[1:] for w in value.split(" "))


def with_names(question: str, names: Sequence[tuple[str, str]]) -> str:
    """`question` with each (word, name) pair's word replaced by the name (longer words first), spaced from the
    Chinese around it; quoted spans are left as they are."""
    spans = [m.span() for m in quoted(question)]
    first: dict[str, str] = {}
    for word, name in names:
        first.setdefault(word, name)
    for word, name in sorted(first.items(), key=lambda wn: -len(wn[0])):
        out, start = [], 0
        for m in re.finditer(re.escape(word), question):
            if any(a <= m.start() < b for a, b in spans):
                continue
            out += [question[start:m.start()], f" {shown_name(name)} "]
            start = m.end()
        question = "".join(out) + question[start:]
        spans = [m.span() for m in quoted(question)]
    return re.sub(r" +", " ", re.sub(r" ([，。？！、：；,.?!]|$)", r"\1", question)).strip()


def stored_names(db: SqlDatabase, question: str, readings: Readings | None, max_tables: int = 5,
                 reader: Terms | None = None) -> list[tuple[str, str]]:
    """(word, stored value) for the words of `question` that `readings` reads to a value of the tables
    `select_tables` shows for it (`schema_select.reading_hints`); none without `readings`."""
    if readings is None:
        return []
    tables = select_tables(db, question, max_tables, reader=reader)
    return list(dict.fromkeys((w, str(v)) for _, _, v, w in reading_hints(db, question, tables, readings)))


def english_question(llm: BaseChatModel, question: str, names: Sequence[tuple[str, str]] = (),
                     asked_only: bool = False) -> str:
    """`question` in English (one short model call) with its quoted values as written; "" when the
    reply is unusable: the call failed, the reply is not English outside the quoted values, it is
    shorter than 8 characters, or it quotes a different number of values than the question. `names`:
    (word, stored name) pairs shown in place of their words (`with_names`); `asked_only`: "" also for a reply
    that does not read as a question or a request (`asks`)."""
    question = with_names(question, names) if names else question
    try:
        reply = str(llm.invoke([HumanMessage(P.TRANSLATE_QUESTION.format(question=question))]).content)
    except Exception:
        return ""
    lines = [x.strip().strip("`").strip() for x in reply.splitlines() if x.strip().strip("`")]
    english = lines[0] if lines else ""
    tries = [english]
    if len(english) > 1 and english[0] in "\"'“" and english[-1] in "\"'”":  # the whole reply in quotes?
        whole = _EN_QUOTED.fullmatch(english) is not None
        tries.insert(0 if whole else 1, english[1:-1].strip())  # values quoted inside: only if as-is fails
    for text in tries:
        kept = keep_quoted(question, text)
        if kept and _ZH_QUOTED.sub("", kept).isascii() and len(kept) >= 8 and (asks(kept) or not asked_only):
            return kept
    return ""
