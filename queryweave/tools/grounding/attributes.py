"""Attributes a question asks for that a right answer must name: the default, the licence, the port, a quantity.

"What is the default query_wait_timeout?" is answered by a sentence that says what happens by default
("Defaults to `600`", "默认 200 毫秒", "if it is not set, …"); a sentence about the same setting that
never speaks of a default does not answer it — the knowledge base describes the thing, not the attribute
asked about (the "close" unanswerable question). The same holds for a licence (a licence's name or the
word) and a port (the word or a `:8080`). A question that asks for a quantity ("how many", "how long",
多少, 几个, 多久) is answered only by an answer that states one (`states_quantity`): a number outside code,
links and version names ("Vue 2", "WCAG 2.1", "multilingual-E5"), not one the question already holds, a
number word ("five", "twice", "unlimited"), a number in code set on a key the question names
(`fuzzy: 0.2`), or a Chinese numeral — with the question's measure word when it
has one (多少条 needs "三条", not "两个"); an ordinal (第二) is no quantity. A closed class of each language's
words, nothing fitted; questions asking for no such attribute are not judged. A version or a date asked
for ("in which version was X added", "哪天发布的") needs, for a version, a number in the answer that the
question does not already hold, and for a date a year, a month or a day ("2024", "9月10日", "Sep 10"; "v2
requires Node.js 20.19+" states no date), or a Chinese numeral year; a weekday ("周一", "Monday") answers "哪天" or
"which day" of a week.
"""

from __future__ import annotations

import re

from queryweave.tools.common.text import tokenize

# attribute: (the question asks for it, an answer names it)
ATTRIBUTES: dict[str, tuple[re.Pattern[str], re.Pattern[str]]] = {
    "default": (re.compile(r"\bdefaults?\b|\bby default\b|默认|缺省", re.I),
                re.compile(r"default|默认|缺省|\bunless\b|\bif (?:not|no|none|unset|omitted)\b|\bnot set\b|"
                           r"\bomitted\b|\bout of the box\b|如果不|若不|不设置|未设置|不指定|未指定|省略", re.I)),
    "license": (re.compile(r"\blicen[cs](?:e|ed|es|ing)\b|许可证?|开源协议", re.I),
                re.compile(r"licen[cs]|许可|协议|\b(?:MIT|Apache|GPL|LGPL|AGPL|BSD|MPL|EPL)\b|"
                           r"Creative Commons|\bCC[ -]BY|public domain", re.I)),
    "port": (re.compile(r"\bports?\b|端口", re.I),
             re.compile(r"\bports?\b|端口|:\d{2,5}\b", re.I)),
}


_ASKS_QUANTITY = re.compile(r"\bhow (?:many|much|long|often|large|big)\b|(?<![某好哪第])几(?:[个次种条项位名倍天年月周秒]|"
                            r"分钟|小时)|多少|多久|多大|多长", re.I)  # 某几个 / 好几个 / 哪几个 / 第几: no count asked
_MEASURE = r"[个次种条项位名倍天年月周秒]|分钟|小时|毫秒|字节"
_ASKED_MEASURE = re.compile(rf"(?:多少|几)\s*({_MEASURE})")
_VERSION = re.compile(r"\b[A-Z][\w.+-]*\s?[<>=~^v]*\s?\d+(?:\.\d+)*\b")  # "Vue 2", "WCAG 2.1", "Vue <2.7", "E5"
_NOT_PROSE = re.compile(r"`[^`]*`|https?://\S+|\[\d{1,2}\]")  # code, links, citation markers
_DIGITS = re.compile(r"(?<![A-Za-z_\d./:#-])\d+(?:[.,/]\d+)*")
_NUMBER_WORDS = re.compile(r"\b(?:zero|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|"
                           r"fifty|hundred|thousand|million|once|twice|half|unlimited|infinite)\b|\bno (?:limit|maximum)\b|"
                           r"不限|无限|无上限|没有上限", re.I)
_ZH_NUMBER = re.compile(rf"(?<!第)([零两二三四五六七八九十百千万]+|一(?=[次倍半]))\s*({_MEASURE})?")


_KEYED = re.compile(r"([A-Za-z_][\w-]*)[\"']?\s*[:=]\s*(-?\d+(?:\.\d+)*)")  # "fuzzy: 0.2", "maxsize=128"


def states_quantity(question: str, answer: str) -> bool:
    """Whether `answer` states a quantity (see the module's docstring). In code, a number counts when
    the key it is set on is a word of the question ("fuzzy 的值是多少？" answered by `fuzzy: 0.2`)."""
    asked = set(tokenize(question))
    for span in re.findall(r"`[^`]*`", answer):
        if any(set(tokenize(m.group(1))) <= asked for m in _KEYED.finditer(span) if tokenize(m.group(1))):
            return True
    text = _VERSION.sub(" ", _NOT_PROSE.sub(" ", answer))
    held = set(re.findall(r"\d+(?:\.\d+)*", question))
    if any(m.group(0) not in held for m in _DIGITS.finditer(text)) or _NUMBER_WORDS.search(text):
        return True
    measure = _ASKED_MEASURE.search(question)
    return any(not measure or m.group(2) == measure.group(1) for m in _ZH_NUMBER.finditer(text))


# A version or a date asked for ("in which version was X added", "哪天发布的") is stated with a number
# (a version, a year, a date) or a Chinese numeral year; an answer without one names neither.
_ASKS_VERSION = re.compile(r"\b(?:which|what)(?:\s+[\w.-]+){0,2}?\s+(?:version|release)\b|\bsince (?:which|what)\b|哪个版本|什么版本|"
                           r"哪一个?版本?(?:开始|起|引入|加入|支持)|哪一版", re.I)
_ASKS_DATE = re.compile(r"\b(?:what|which) (?:year|date|day|month)\b|\bin what year\b|"
                        r"\bwhen (?:was|were|did)\b[^?？]{0,60}\b(?:released|introduced|added|published|launched|"
                        r"founded|created|deprecated|removed)\b|哪一?年|哪一?天|几月|几号|"
                        r"(?:什么时候|何时)(?:发布|推出|引入|上线|发行|废弃|移除)", re.I)


_DATE = re.compile(r"(?<![\d.])(?:1[5-9]|20)\d{2}(?![\d.])|\d{1,2}\s*[月日号]|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|"
                   r"sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2}\b|\b\d{1,2}\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|"
                   r"nov|dec)[a-z]*\b", re.I)
_WEEKDAY = re.compile(r"(?:周|星期|礼拜)[一二三四五六日天]|\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b", re.I)
_ZH_YEAR = re.compile(r"[〇零一二三四五六七八九十]{2,4}年")
_DIGIT_YEAR = re.compile(r"(?<![\d.])(\d{2,4})\s*年")  # "1231年": a year in digits, before 1500 too


def asked_attributes(question: str) -> list[str]:
    """The attributes of `ATTRIBUTES` the question asks for, "quantity" for a count or a measure,
    "version" and "date" for a version or a date."""
    asked = [name for name, (asks, _) in ATTRIBUTES.items() if asks.search(question)]
    asked += ["version"] if _ASKS_VERSION.search(question) else []
    asked += ["date"] if _ASKS_DATE.search(question) else []
    return asked + (["quantity"] if _ASKS_QUANTITY.search(question) else [])


def _states(name: str, question: str, answer: str) -> bool:
    if name == "quantity":
        return states_quantity(question, answer)
    if name in ("version", "date"):  # a number other than a citation marker or one the question holds
        held = set(re.findall(r"\d+(?:\.\d+)*", question))
        prose = re.sub(r"\[\d{1,2}\]", " ", answer)
        if name == "date":  # a date: a year, a month or a day, not any number ("Node.js 20.19+" is none)
            return (any(m.group(0) not in held for m in _DATE.finditer(prose)) or bool(_ZH_YEAR.search(prose))
                    or bool(_WEEKDAY.search(prose))  # "哪天" / "which day" of the week: "0 代表周一"
                    or any(m.group(1) not in held for m in _DIGIT_YEAR.finditer(prose)))
        return (any(n not in held for n in re.findall(r"\d+(?:\.\d+)*", prose))
                or bool(_ZH_YEAR.search(prose)))
    return bool(ATTRIBUTES[name][1].search(answer))


_SYNTAX = re.compile(r"\bexport\s+default\b")  # JavaScript's default export: code, not a default value


def unstated_attributes(question: str, answer: str) -> list[str]:
    """The asked attributes the answer never names (an answer to "what is the default …" that speaks of
    no default). "Default" qualifies another attribute when the question asks for one ("默认监听哪个端口"):
    an answer that names that one ("listens on port 6432") states it."""
    asked = asked_attributes(question)
    answer = _SYNTAX.sub(" ", answer)  # a keyword of code (JavaScript's `export default`) states no default
    missing = [name for name in asked if not _states(name, question, answer)]
    if "default" in missing and any(name not in missing for name in asked if name != "default"):
        missing.remove("default")
    return missing
