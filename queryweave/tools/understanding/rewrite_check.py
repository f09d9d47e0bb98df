"""Whether a model's rewrite of a follow-up question can stand in for it.

Small chat models asked to make a follow-up self-contained often do something else: they echo an
earlier question of the conversation ("他是哪国人？" -> "Python 是谁发明的？"), copy a sentence of an
answer ("did she show interest in writing?" -> "Heyer was born in Wimbledon, London, in 1902."), join
the previous question to this one, or ask a different question of their own. A rewrite only resolves
what the question leaves open, so it is refused when:

- it repeats an earlier question of the conversation word for word (the follow-up asks something new);
- it has more sentences than the question (an answer copied in, or two questions joined);
- it keeps less than `MIN_KEPT` of the question's own content words (pronouns aside; English words
  compared by stem, Chinese by character) — the question asked was replaced by another;
- it brings in a content word found neither in the question nor in the conversation (the model added a
  fact or a constraint nobody stated).

Nothing here reads the gold rewrites of an evaluation set; `MIN_KEPT` was chosen on one part of the
follow-up sets and reported on the other (bench/results_answers.md, "Thirteenth session … follow-up rewriting with a model").
The `resolve` node keeps the rules' rewrite and search hints when a rewrite is refused.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from queryweave.tools.common.text import tokenize, words

MIN_KEPT = 0.67  # share of the question's content words a rewrite must keep

_PRONOUNS_EN = frozenset("""it its itself they them their theirs this that these those he him his she her hers
    one ones there here such same""".split())
_PRONOUN_CHARS_ZH = frozenset("它他她其该这那些个们此")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_POSSESSIVE = re.compile(r"(?<=\w)['’]s\b")
_ENDS = re.compile(r"[?？!！。；;]+|\.(?=\s+[A-Z\u3400-\u9fff]|\s*$)")


def content_units(text: str) -> set[str]:
    """Content words of `text`: stemmed English words and single Chinese characters, without stopwords,
    pronouns and demonstratives."""
    out: set[str] = set()
    for tok in tokenize(_POSSESSIVE.sub("", text)):
        if _CJK.search(tok):
            out.update(ch for ch in tok if _CJK.match(ch) and ch not in _PRONOUN_CHARS_ZH)
        elif tok not in _PRONOUNS_EN:
            out.add(tok)
    return out


def sentence_count(text: str) -> int:
    """Sentences of `text` (a question without an end mark counts as one)."""
    parts = [p for p in _ENDS.split(text) if p.strip(" \t\n\"'“”‘’()（）")]
    return max(1, len(parts))


def _folded(text: str) -> str:
    return "".join(ch for ch in text.casefold() if ch.isalnum())


def refuse_rewrite(question: str, rewrite: str, context: Iterable[str]) -> str | None:
    """Why `rewrite` cannot stand in for `question` (None when it can); `context` are the conversation's
    texts (earlier turns, a topic line) the rewrite may draw words from."""
    rewrite = (rewrite or "").strip()
    if not rewrite:
        return "empty rewrite"
    context = list(context)
    if _folded(rewrite) != _folded(question) and any(_folded(rewrite) == _folded(t) for t in context):
        return "repeats an earlier question"
    if sentence_count(rewrite) > sentence_count(question):
        return "more sentences than the question (an answer or another question joined in)"
    own = content_units(question)
    got = content_units(rewrite)
    if own and len(own & got) / len(own) < MIN_KEPT:
        return "drops most of the question's own words (a different question)"
    known = own.union(*(content_units(t) for t in context))
    new = got - known
    if new:
        shown = dict.fromkeys(w for w in words(rewrite) if content_units(w) & new)
        return f"adds words the conversation does not hold: {', '.join(list(shown)[:5])}"
    return None
