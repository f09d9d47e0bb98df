"""Two units that say the same in two languages, as a translated docs site does page for page.

An extractive answer over a bilingual knowledge base would otherwise show a sentence and its translation
side by side; `extractive.extract_answer` keeps the first of such a pair (`is_translation`).
"""

from __future__ import annotations

import re

from queryweave.tools.common.text import detect_language
from queryweave.tools.grounding.units import CODE_PREFIX

SAME_NAMES = 0.8  # share of names, code and numbers two units in two languages have when one translates the other
_LATIN_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_./:-]*[A-Za-z0-9]")
_NUMBER = re.compile(r"\d+(?:\.\d+)*")


def is_translation(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Whether two candidate units (their pieces) say the same in two languages, as a translated docs site
    does page for page: the Chinese one's names, code and numbers (its Latin-script tokens, two or more)
    are at least `SAME_NAMES` found in the English one, and so are all its numbers. Such a pair adds
    nothing to an answer but length ("`content_type`: A `str` with the content type…" and
    "`content_type`：内容类型…的字符串（`str`）")."""
    ta, tb = " ".join(a), " ".join(b)
    la, lb = detect_language(ta), detect_language(tb)
    if la == lb or ta.startswith(CODE_PREFIX) or tb.startswith(CODE_PREFIX):  # code translates no prose
        return False
    zh, en = (ta, tb) if la == "zh" else (tb, ta)
    names = {m.lower() for m in _LATIN_TOKEN.findall(zh)}
    words = {m.lower() for m in _LATIN_TOKEN.findall(en)}
    if len(names) < 2 or len(names & words) / len(names) < SAME_NAMES:
        return False
    return set(_NUMBER.findall(zh)) <= set(_NUMBER.findall(en))
