"""Salient mentions in Chinese and English text: the candidates a follow-up question can refer to.

`extract_mentions(text)` finds, in order of position:
- `code`: backticked spans and code-ish tokens (`max_connections`, `spring.datasource.url`, `getValue()`);
- `name`: capitalised terms and acronyms (`Spring Boot`, `PostgreSQL`, `JVM`);
- `noun`: Chinese noun compounds from jieba.posseg (`连接池`, `垃圾回收器`);
- `chain`: a Chinese possessive chain `A 的 B` where B is a topic noun (`Redis 的持久化机制`);
- `phrase`: English determiner-led noun phrases (`the connection pool` -> `connection pool`).
Attribute words (`默认值`, `timeout`) are kept with kind `attr`: they are weak antecedents.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from queryweave.tools.common.text import EN_STOPWORDS, ZH_STOPWORDS

_CJK_CHAR = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_BACKTICK = re.compile(r"`([^`\n]{1,60})`")
_CODE = re.compile(
    r"(?<![\w.])(?:--?[a-z][\w-]+|[A-Za-z_]\w*(?:\(\))|[A-Za-z_]\w*(?:[._:/]\w+)+(?:\(\))?|"
    r"[A-Za-z]*_\w*[A-Za-z0-9]|[a-z]+[A-Z]\w*)(?![\w])"
)
_NAME = re.compile(r"(?<![\w.])(?:[A-Z][\w+#.-]*[\w+#]|[A-Z])(?:[ \t]+(?:[A-Z][\w+#.-]*[\w+#]|[0-9][\w.]*))*")
_PHRASE = re.compile(r"\b(?:the|a|an|this|that|these|those|its|their|my|our|your)\s+((?:[a-z][\w-]*\s+){0,3}[a-z][\w-]*)")

# Capitalised words that open sentences or questions rather than name things.
LEAD_WORDS = frozenset(
    """what how why when where which who whom whose is are was were do does did can could should would will
    shall may might must please explain compare list show tell give describe configure set install use
    summarize summarise find get make help let i the a an and or but if in on at for to of with from by
    hi hello hey thanks thank ok okay yes no also then so now why's what's how's it's there here
    any some all each every other another more most this that these those it its they them their we you""".split()
)
# Nouns that name a class of thing ("该参数", "this option"): replaced together with their demonstrative.
CLASS_NOUNS_ZH = ("参数", "工具", "库", "框架", "函数", "方法", "配置项", "配置", "版本", "项目", "系统", "功能", "模块",
                  "命令", "文件", "选项", "插件", "组件", "接口", "服务", "产品", "技术", "方案", "算法", "模型",
                  "语言", "数据库", "问题", "错误", "特性", "机制", "协议", "类", "字段", "表", "东西")
CLASS_NOUNS_EN = ("parameter", "option", "setting", "tool", "library", "function", "method", "command", "feature",
                  "version", "module", "package", "framework", "error", "issue", "one", "approach", "plugin",
                  "service", "product", "language", "database", "field", "table", "class", "api", "flag",
                  "property", "config", "model", "algorithm", "protocol", "mechanism", "thing", "system")
ATTR_WORDS = frozenset(
    """默认值 默认 端口 版本号 大小 数量 作用 用法 区别 优点 缺点 优缺点 原理 原因 时间 价格 定义 含义 意思 超时 超时时间 上限
    下限 范围 类型 格式 单位 区别 好处 坏处 用途 位置 路径 名字 名称 值 长度 速度 性能 成本 步骤 例子 示例
    default value values port size number purpose usage difference differences advantage advantages
    disadvantage disadvantages pros cons cause reason time price definition meaning timeout limit limits
    range type format unit name path length speed performance cost steps example examples way ways""".split()
)
GENERIC_WORDS = frozenset(
    """问题 方法 办法 东西 时候 情况 方面 内容 时间 事情 地方 人 文档 资料 结果 答案 信息 部分 一些 东西 什么 怎么办
    thing things way ways lot kind sort question questions answer answers result results info information
    document documents doc docs one ones best same other""".split()
)
_NOUN_FLAGS = ("n", "nr", "ns", "nt", "nz", "nl", "ng", "vn", "an", "eng")
_GLUE_FLAGS = ("a", "b", "v", "vn", "l", "j", "d")
_NOT_NOUN_L = frozenset({"怎么办", "为什么", "怎么样", "是不是", "有没有", "能不能", "可不可以"})


@dataclass(frozen=True)
class Mention:
    """A salient span: its text, kind (code/name/noun/chain/phrase/attr) and start offset."""

    text: str
    kind: str
    start: int


@lru_cache(maxsize=1)
def _posseg():
    import logging

    import jieba
    import jieba.posseg as pseg

    jieba.setLogLevel(logging.WARNING)
    jieba.initialize()
    return pseg


def _strip_lead(words: list[str]) -> list[str]:
    while words and words[0].lower() in LEAD_WORDS:
        words = words[1:]
    return words


def _latin_mentions(text: str) -> list[Mention]:
    out: list[Mention] = []
    taken: list[tuple[int, int]] = []

    def free(a: int, b: int) -> bool:
        return all(b <= s or a >= e for s, e in taken)

    for m in _BACKTICK.finditer(text):
        out.append(Mention(m.group(1).strip(), "code", m.start(1)))
        taken.append((m.start(), m.end()))
    for m in _CODE.finditer(text):
        if free(m.start(), m.end()) and not m.group(0).isdigit():
            out.append(Mention(m.group(0), "code", m.start()))
            taken.append((m.start(), m.end()))
    for m in _NAME.finditer(text):
        if not free(m.start(), m.end()):
            continue
        words = _strip_lead(m.group(0).split())
        if not words or (len(words) == 1 and words[0].lower() in EN_STOPWORDS):
            continue
        phrase = " ".join(words).rstrip(".-")
        start = m.start() + m.group(0).find(words[0])
        kind = "attr" if phrase.lower() in ATTR_WORDS else "name"
        out.append(Mention(phrase, kind, start))
        taken.append((m.start(), m.end()))
    for m in _PHRASE.finditer(text):
        if not free(m.start(1), m.end(1)):
            continue
        kept: list[str] = []
        for w in m.group(1).split():
            if w in EN_STOPWORDS or w in LEAD_WORDS:
                break
            kept.append(w)
        if not kept or all(w in GENERIC_WORDS for w in kept):
            continue
        phrase = " ".join(kept)
        kind = "attr" if all(w in ATTR_WORDS for w in kept) else "phrase"
        out.append(Mention(phrase, kind, m.start(1)))
    return out


def _noun_follows(toks: list[tuple[str, str, int]], i: int) -> bool:
    return i + 1 < len(toks) and toks[i + 1][1].startswith("n") and toks[i + 1][1] != "vn"


def _cjk_mentions(text: str) -> list[Mention]:
    """Noun compounds and `A 的 B` chains from jieba.posseg (only when the text has CJK characters)."""
    if not re.search(f"[{_CJK_CHAR}]", text):
        return []
    toks: list[tuple[str, str, int]] = []
    pos = 0
    for pair in _posseg().cut(text):
        toks.append((pair.word, pair.flag, pos))
        pos += len(pair.word)
    out: list[Mention] = []
    i = 0
    while i < len(toks):
        word, flag, start = toks[i]
        is_cjk = bool(re.match(f"[{_CJK_CHAR}]", word))
        nounish = is_cjk and (flag.startswith("n") or flag in ("vn", "an") or (flag == "l" and word not in _NOT_NOUN_L))
        glue = is_cjk and flag in _GLUE_FLAGS and word not in ZH_STOPWORDS and len(word) <= 2
        prev = next((t for t in reversed(toks[:i]) if t[0].strip()), None)
        if is_cjk and flag in ("v", "vn") and prev is not None and prev[0] == "的":
            # after 的 a verb pair is nominal: "的构建缓存" (jieba tags both halves as verbs)
            run = [toks[i]]
            if i + 1 < len(toks) and toks[i + 1][1] in ("v", "vn") and re.match(f"[{_CJK_CHAR}]", toks[i + 1][0]):
                run.append(toks[i + 1])
            phrase = "".join(t[0] for t in run)
            if len(run) == 2 and phrase not in ATTR_WORDS and len(phrase) <= 6:
                out.append(Mention(phrase, "noun", start))
                i += 2
                continue
        if not (nounish or (glue and flag != "v")) or (flag == "vn" and not _noun_follows(toks, i)):
            i += 1
            continue
        j, last_noun = i, -1
        while j < len(toks):
            w, f, _ = toks[j]
            if not re.match(f"[{_CJK_CHAR}]", w) or w in ZH_STOPWORDS or w in _NOT_NOUN_L:
                break
            if (f.startswith("n") and f != "vn") or f in ("an", "l") or (f == "vn" and j > i):
                last_noun = j
            elif f == "v" and not (j > i and j + 1 < len(toks) and toks[j + 1][1].startswith("n")
                                   and len(toks[j + 1][0]) == 1):
                break
            elif not (f in _GLUE_FLAGS and len(w) <= 2):
                break
            j += 1
            if sum(len(t[0]) for t in toks[i:j]) > 8:
                break
        if last_noun < i:
            i += 1
            continue
        phrase = "".join(t[0] for t in toks[i : last_noun + 1])
        if phrase not in GENERIC_WORDS and phrase not in ZH_STOPWORDS:
            kind = "attr" if phrase in ATTR_WORDS else "noun"
            out.append(Mention(phrase, kind, start))
        i = last_noun + 1
    return out


def _chains(text: str, mentions: list[Mention]) -> list[Mention]:
    """`A 的 B` where A is a name/code/noun and B a topic noun (not an attribute) right after 的."""
    out = []
    by_start = {m.start: m for m in mentions}
    for a in mentions:
        if a.kind not in ("name", "code", "noun"):
            continue
        rest = text[a.start + len(a.text) :]
        m = re.match(r"\s*的\s*", rest)
        if not m:
            continue
        b = by_start.get(a.start + len(a.text) + m.end())
        if b is not None and b.kind == "noun" and b.text not in CLASS_NOUNS_ZH:
            out.append(Mention(f"{a.text} 的{b.text}" if a.kind != "noun" else f"{a.text}的{b.text}", "chain", a.start))
    return out


def extract_mentions(text: str) -> list[Mention]:
    """Salient mentions of `text` in order of position (see the module docstring for the kinds)."""
    return list(_extract(text))


@lru_cache(maxsize=2048)
def _extract(text: str) -> tuple[Mention, ...]:
    latin = _latin_mentions(text)
    cjk = _cjk_mentions(text)
    mentions = sorted(latin + cjk, key=lambda m: m.start)
    return tuple(sorted(mentions + _chains(text, mentions), key=lambda m: (m.start, m.kind != "chain")))


def key_terms(text: str, limit: int = 8) -> list[str]:
    """The distinct non-attribute mention texts of `text`, most specific kinds first, up to `limit`."""
    order = {"code": 0, "name": 1, "chain": 2, "noun": 3, "phrase": 4}
    seen: dict[str, str] = {}
    for m in sorted(extract_mentions(text), key=lambda m: (order.get(m.kind, 9), m.start)):
        if m.kind != "attr" and m.text.lower() not in seen:
            seen[m.text.lower()] = m.text
    return list(seen.values())[:limit]
