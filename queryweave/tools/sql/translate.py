"""A Chinese question turned into English before Text-to-SQL, its quoted values left as written.

One short model call translates the question (`queryweave.prompts.sql.TRANSLATE_QUESTION`). What the
question puts in quotation marks is usually a value of the data (“美国”, “罗超的简历”), and a
translation of it ("American", "Lu Qiao's Resume") is a guess that no longer matches anything, while the
Chinese literal, written into the SQL as it stands, goes through the value mapping that compares it with
the stored values (`tools.sql.value_map`). So the quoted spans of the translation are put back, in order,
to the original's quoted text; a translation that does not quote as many spans as the original is not
used (the question is then answered in Chinese, as without translation).
"""

from __future__ import annotations

import re

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage

from queryweave.prompts import sql as P

# “…”, "…", 「…」, 『…』 in a Chinese question; in the English reply also '…' between non-letters
_ZH_QUOTED = re.compile(r"“([^”]+)”|\"([^\"]+)\"|「([^」]+)」|『([^』]+)』")
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


def english_question(llm: BaseChatModel, question: str) -> str:
    """`question` in English (one short model call) with its quoted values as written; "" when the
    reply is unusable: the call failed, the reply is not English outside the quoted values, it is
    shorter than 8 characters, or it quotes a different number of values than the question."""
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
        if kept and _ZH_QUOTED.sub("", kept).isascii() and len(kept) >= 8:
            return kept
    return ""
