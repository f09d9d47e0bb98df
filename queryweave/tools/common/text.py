"""Language-aware text helpers shared by every tool: language detection, tokens, sentences.

Chinese is segmented with jieba; Latin-script text is lower-cased, stop-word filtered and
Snowball-stemmed (PyStemmer) so BM25 and lexical overlap treat "flows"/"flow" alike.
"""

from __future__ import annotations

import re
from functools import lru_cache

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LATIN = re.compile(r"[A-Za-z]")
_WORD = re.compile(r"[A-Za-z0-9]+(?:[._+#-][A-Za-z0-9]+)*|[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_NO_END = re.compile(r"(?:^|[\s(])(?:[A-Z]|e\.g|i\.e|etc|vs|cf|Dr|Mr|Mrs|Ms|St|No|Fig|approx|ca)\.$")
# an ASCII "?", "!" or ";" ends a sentence before a space, a line's end or Chinese text, not inside a word
# or a value ("?url", "a;b"); and nothing inside an inline code span ends one ("添加 `?url` query 参数")
_SENT = re.compile(r"(?<=[。！？；])\s*|(?<=[!?;])(?:\s+|$|(?=[\u4e00-\u9fff]))|(?<=[!?][\"”’'])\s+|"
                   r"(?<=[.])\s+(?=[A-Z0-9\"'“(\[\u4e00-\u9fff])|\n{2,}|\n(?=[-*#\d])")
_CODE_SPAN = re.compile(r"`[^`\n]+`")

EN_STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being below
    between both but by can could did do does doing down during each few for from further had has have
    having he her here hers herself him himself his how i if in into is it its itself just me more most my
    myself no nor not now of off on once only or other our ours ourselves out over own same she should so
    some such than that the their theirs them themselves then there these they this those through to too
    under until up very was we were what when where which while who whom why will with would you your
    yours yourself yourselves also may might must shall us""".split()
)
ZH_STOPWORDS = frozenset(
    "的 了 和 是 就 都 而 及 与 着 或 一个 没有 我们 你们 他们 它们 这个 那个 之 在 也 有 为 对 以 于 上 下 中 吗 呢 吧 啊 什么 怎么 如何 哪些 哪个 请 一下 么".split()
)


def cjk_ratio(text: str) -> float:
    """Share of CJK characters among the letters of `text` (0.0 for empty text)."""
    letters = [c for c in text if c.isalnum()]
    if not letters:
        return 0.0
    return sum(1 for c in letters if _CJK.match(c)) / len(letters)


def unit_language(unit: str, passage_language: str) -> str:
    """The language of a sentence or table row read in a passage of `passage_language`: a unit that mixes
    Chinese characters with Latin letters ("spin-props | 类型: { strokeWidth?: number, … } | 说明: 加载图标的属性",
    "Vite 使用 esbuild 预构建依赖") is in its passage's language, however long its code or names run; a unit in
    one script only is in that script's language (an English error message quoted on a Chinese page)."""
    if _CJK.search(unit) and _LATIN.search(unit):
        return passage_language
    return detect_language(unit)


_CODE = re.compile(r"```.*?(?:```|$)|`[^`\n]*`|https?://\S+", re.S)


def prose_language(text: str, default: str | None = None) -> str:
    """The language of a text's prose: fenced and inline code and URLs are left out first (a Chinese page
    whose first screen is a code block is Chinese). `default` when too little prose is left to tell."""
    prose = _CODE.sub(" ", text)
    if default is not None and sum(ch.isalpha() for ch in prose) < 20:
        return default
    return detect_language(prose[:8000])


def detect_language(text: str) -> str:
    """'zh' when the text is mostly Chinese characters, else 'en'."""
    return "zh" if cjk_ratio(text) >= 0.2 else "en"


@lru_cache(maxsize=1)
def _stemmer():
    try:
        import Stemmer

        return Stemmer.Stemmer("english")
    except Exception:  # pragma: no cover - PyStemmer missing
        return None


@lru_cache(maxsize=1)
def _jieba():
    import logging

    import jieba

    jieba.setLogLevel(logging.WARNING)
    jieba.initialize()
    return jieba


def words(text: str) -> list[str]:
    """Raw word pieces: Latin words and runs of CJK characters, original case."""
    return _WORD.findall(text)


def tokenize(text: str, stem: bool = True, stopwords: bool = True) -> list[str]:
    """Tokens for BM25 and lexical matching: jieba words for Chinese, stemmed lower-case words otherwise."""
    out: list[str] = []
    stemmer = _stemmer() if stem else None
    for piece in _WORD.findall(text):
        if _CJK.match(piece):
            for w in _jieba().lcut_for_search(piece):
                w = w.strip()
                if w and not (stopwords and w in ZH_STOPWORDS):
                    out.append(w)
        else:
            w = piece.lower()
            if stopwords and w in EN_STOPWORDS:
                continue
            out.append(stemmer.stemWord(w) if stemmer else w)
    return out


def zh_word_frequency(word: str) -> int:
    """How common a Chinese word is: jieba's dictionary count (0 when unknown)."""
    return int(_jieba().dt.FREQ.get(word, 0) or 0)


def zh_word_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each jieba word of a Chinese text (offsets into `text`)."""
    return [(start, end) for _, start, end in _jieba().tokenize(text)]


# Paired marks a sentence does not end inside: a title 《卡拉OK.LIVE！‧台北‧我》, a short quote or aside
# “……。” （……。）; the end mark right before a closing one ends the sentence after it (“……。”).
_PAIRED = re.compile(r"《[^《》\n]{1,80}》|「[^「」\n]{1,60}」|『[^『』\n]{1,60}』|“[^“”\n]{1,60}”|（[^（）\n]{1,60}）")
_CLOSING = re.compile(r"[”’」』》）)]+")


def split_sentences(text: str) -> list[str]:
    """Sentences of mixed Chinese/English text (Chinese and Latin end punctuation, blank lines); none ends
    inside a code span, a book title 《…》 or a short quote or aside (`_PAIRED`), and closing marks stay
    with the sentence they close."""
    code = [m.span() for m in _CODE_SPAN.finditer(text)]
    paired = [(m.start(), m.end() - 1) for m in _PAIRED.finditer(text)]  # (opening, closing) offsets
    parts, start = [], 0
    for m in _SENT.finditer(text):
        cut, resume = m.start(), m.end()
        if any(a < cut < b for a, b in code):
            continue
        inside = next(((a, b) for a, b in paired if a < cut <= b), None)
        if inside and (text[inside[0]] == "《" or cut < inside[1]):
            continue  # inside a title, or before the end of a quote or aside
        closing = _CLOSING.match(text, cut)
        if closing:  # "……。”这句话": the closing marks end the sentence with it
            cut = resume = closing.end()
            while resume < len(text) and text[resume].isspace():
                resume += 1
        if cut > start:
            parts.append(text[start:cut])
            start = resume
    parts = [p.strip() for p in [*parts, text[start:]] if p and p.strip()]
    out: list[str] = []
    for part in parts:  # "written by D. Richard Hipp", "e.g. The": an initial or abbreviation ends no sentence
        if out and _NO_END.search(out[-1]):
            out[-1] = f"{out[-1]} {part}"
        else:
            out.append(part)
    return out
