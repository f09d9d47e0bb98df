"""Speech-recognition error rates: word error rate (English) and character error rate (Chinese).

Both are Levenshtein distances over normalised units divided by the reference length: lower-cased,
punctuation dropped; English is compared word by word, Chinese character by character (any Latin
words inside Chinese text count as one unit each).
"""

from __future__ import annotations

import re
import unicodedata

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_UNIT = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]|[a-z0-9]+(?:'[a-z]+)?")


def units(text: str) -> list[str]:
    """The comparison units of a text: CJK characters and lower-cased Latin words / numbers."""
    text = unicodedata.normalize("NFKC", text).lower().replace("_", " ")
    return _UNIT.findall(text)


def edit_distance(ref: list[str], hyp: list[str]) -> int:
    """Levenshtein distance between two unit sequences."""
    prev = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, 1):
        cur = [i]
        for j, h in enumerate(hyp, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (r != h)))
        prev = cur
    return prev[-1]


def error_rate(reference: str, hypothesis: str) -> float:
    """WER for English text, CER for Chinese text (the reference decides): errors / reference units."""
    ref, hyp = units(reference), units(hypothesis)
    return edit_distance(ref, hyp) / max(1, len(ref))


def is_chinese(text: str) -> bool:
    """Whether most of the text's units are Chinese characters."""
    u = units(text)
    return bool(u) and sum(bool(_CJK.fullmatch(x)) for x in u) * 2 > len(u)
