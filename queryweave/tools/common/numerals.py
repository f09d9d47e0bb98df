"""Numbers as written in English and Chinese: digits, number words ("four", "dozen") and Chinese
numerals ("两", "三十", "3万"), for the layers that compare or read them (facts, self-query counts)."""

from __future__ import annotations

import re

EN_NUMWORDS = {
    w: i
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
        "sixteen seventeen eighteen nineteen twenty".split()
    )
}
EN_NUMWORDS.update({"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
                    "ninety": 90, "hundred": 100, "dozen": 12, "half": 0.5, "once": 1, "twice": 2,
                    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6,
                    "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10, "single": 1, "both": 2,
                    "double": 2, "triple": 3, "pair": 2, "couple": 2})
SCALE = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12, "k": 1e3, "m": 1e6,
         "bn": 1e9, "万": 1e4, "亿": 1e8, "千": 1e3, "百": 1e2, "百万": 1e6, "千万": 1e7}
ZH_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7,
             "八": 8, "九": 9, "十": 10, "百": 100, "千": 1000}
ZH_NUM = re.compile(r"[零〇一二两三四五六七八九十百千]+(?:[万亿][零〇一二两三四五六七八九十百千]*)?")


def zh_value(s: str) -> float | None:
    """The value of Chinese numerals ("三十" 30, "两万" 20000; a digit right after 百/千/万 at the end
    counts in the next lower unit, as said: "三百五" 350, "一万五" 15000); None if a character is none."""
    total, section, cur = 0.0, 0.0, 0.0
    if len(s) > 2 and s[-2] in "百千万" and s[-1] in ZH_DIGITS and ZH_DIGITS[s[-1]] < 10:
        head = zh_value(s[:-1])
        return None if head is None else head + ZH_DIGITS[s[-1]] * SCALE[s[-2]] / 10
    for ch in s:
        if ch in "万亿":
            total += (section + cur) * SCALE[ch]
            section = cur = 0.0
        elif ch in "十百千":
            section += (cur or 1) * ZH_DIGITS[ch]
            cur = 0.0
        elif ch in ZH_DIGITS:
            cur = cur * 10 + ZH_DIGITS[ch] if cur else ZH_DIGITS[ch]
        else:
            return None
    return total + section + cur


def number_value(text: str) -> float | None:
    """The value of one number as written: digits ("3", "1.5"), an English number word ("four") or
    Chinese numerals ("两", "三十"); None for anything else."""
    t = text.strip().lower()
    if re.fullmatch(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?", t):  # "1,000"
        t = t.replace(",", "")
    if re.fullmatch(r"\d+(?:\.\d+)?", t):
        return float(t)
    scaled = re.fullmatch(r"(\d+(?:\.\d+)?)\s*(k|万|千|百)", t)  # "3k", "2万", "1.5万"
    if scaled:
        return float(scaled.group(1)) * SCALE[scaled.group(2)]
    spoken = re.fullmatch(r"(?:(a|an|\w+)\s+)?(hundred|thousand)", t)  # "a hundred", "two thousand"
    if spoken and (spoken.group(1) in (None, "a", "an") or spoken.group(1) in EN_NUMWORDS):
        head = 1 if spoken.group(1) in (None, "a", "an") else EN_NUMWORDS[spoken.group(1)]
        return float(head) * (100 if spoken.group(2) == "hundred" else 1000)
    if t == "半":  # 半岁 "half a year"
        return 0.5
    if t in EN_NUMWORDS:
        return float(EN_NUMWORDS[t])
    return zh_value(t) if ZH_NUM.fullmatch(t) else None
