"""Retrieval hints for a follow-up: what the conversation says its question is about.

A rule rewrite can only substitute what it is sure of; a follow-up such as "Did she go on tour?",
"那有什么替代办法？" or "Are there any other interesting aspects?" depends on more than one antecedent.
Instead of splicing guesses into the question, the rules keep the question and carry the context as
hints that retrieval searches beside it (a second query fused with the first, see `nodes/rewrite.py`):
history query expansion, as in conversational search (Lin et al. 2020, "HQE"), without a model:
1. the conversation's topic line (a "system" entry: a document title/section, or a summary of older turns);
2. the previous user question, itself resolved;
3. the first sentence of the last answer (what "the second one", "that" and "the album" point at);
4. the most salient mentions of the recent turns (`rank_candidates`) not yet covered, up to `max_mentions`.
Nothing here is fitted to data; `max_mentions` is the only constant.

`depends_on_history` says whether a question visibly needs this: a reference word, an ellipsis, no name
of its own, or a short form of a name said before. The hints are computed for every follow-up; for one
that looks self-contained ("Where was Mary Chapin Carpenter born?") the graph uses them only when the
knowledge base cannot answer the question alone (`nodes/resolve.py`).
"""

from __future__ import annotations

import re

from queryweave.tools.common.text import split_sentences, tokenize
from queryweave.tools.understanding.coref_rules import find_ellipsis, is_vague_followup, rank_candidates
from queryweave.tools.understanding.mentions import extract_mentions

_EN_REF = re.compile(
    r"\b(?:he|she|it|its|they|them|their|his|her|him|hers|this|that|these|those|there|then|the same|"
    r"the (?:\w+ )?(?:album|song|book|film|movie|show|team|band|group|company|war|game|season|tour|"
    r"event|paper|project|tool|library|option|setting|feature|one|other|former|latter|first|second|last))\b"
    r"|\b(?:else|other|another|also|too|again|afterwards?|later|after that|before that)\b", re.I)
_ZH_REF = re.compile(r"它|他|她|其|该|这|那|此|前者|后者|第[一二三四五六七八九十\d]+[个种条项]|上面|上述|刚才|还有|另外|另一|其他|其余|别的|呢[？?]?$")
_ANSWER_CHARS = 200


def has_reference_word(question: str) -> bool:
    """A word that points into the conversation: a pronoun, "the other", "第二个", "后者", "还有"..."""
    return bool(_EN_REF.search(question) or _ZH_REF.search(question))


def depends_on_history(question: str, turns: list[tuple[str, str]] | None = None) -> bool:
    """Whether `question` leans on the conversation: a reference word, an ellipsis, a bare follow-up,
    no name, code or noun phrase of its own, or a name that is part of a longer name in `turns`
    ("Dawkins" after "Richard Dawkins")."""
    q = question.strip()
    if not q:
        return False
    if has_reference_word(q) or is_vague_followup(q) or find_ellipsis(q) is not None:
        return True
    names = [m.text for m in extract_mentions(q) if m.kind in ("name", "code", "chain")]
    if not names:
        return True
    longer = {m.text.lower() for _, text in turns or [] for m in extract_mentions(text) if m.kind == "name"}
    return any(n.lower() != t and re.search(rf"\b{re.escape(n.lower())}\b", t) for n in names for t in longer)


def _first_sentence(text: str) -> str:
    sents = split_sentences(text)
    first = sents[0] if sents else text
    return first[:_ANSWER_CHARS].strip()


def history_hints(question: str, turns: list[tuple[str, str]], previous: str | None,
                  max_mentions: int = 4) -> list[str]:
    """Hint phrases for `question` from `turns` ((role, text), oldest first; user turns resolved) and the
    resolved `previous` user question, most telling first; each adds terms the question lacks."""
    covered = set(tokenize(question))
    hints: list[str] = []

    def add(text: str) -> bool:
        text = " ".join(str(text).split())
        if not text or text.lower().startswith("i don't know"):
            return False
        new = set(tokenize(text)) - covered
        if not new:
            return False
        covered.update(new)
        hints.append(text)
        return True

    for role, text in turns:
        if role == "system":
            add(text)
    if previous:
        add(previous)
    if turns and turns[-1][0] == "assistant":
        add(_first_sentence(turns[-1][1]))
    taken = 0
    for cand in rank_candidates(turns):
        if taken >= max_mentions:
            break
        taken += add(cand.text)
    return hints
