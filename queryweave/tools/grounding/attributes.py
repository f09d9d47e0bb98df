"""Attributes a question asks for that a right answer must name: the default, the licence, the port.

"What is the default query_wait_timeout?" is answered by a sentence that says what happens by default
("Defaults to `600`", "默认 200 毫秒", "if it is not set, …"); a sentence about the same setting that
never speaks of a default does not answer it — the knowledge base describes the thing, not the attribute
asked about (the "close" unanswerable question). The same holds for a licence (a licence's name or the
word) and a port (the word or a `:8080`). A closed class of each language's words, nothing fitted;
questions asking for no such attribute are not judged.
"""

from __future__ import annotations

import re

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


def asked_attributes(question: str) -> list[str]:
    """The attributes of `ATTRIBUTES` the question asks for."""
    return [name for name, (asks, _) in ATTRIBUTES.items() if asks.search(question)]


_SYNTAX = re.compile(r"\bexport\s+default\b")  # JavaScript's default export: code, not a default value


def unstated_attributes(question: str, answer: str) -> list[str]:
    """The asked attributes the answer never names (an answer to "what is the default …" that speaks of
    no default). "Default" qualifies another attribute when the question asks for one ("默认监听哪个端口"):
    an answer that names that one ("listens on port 6432") states it."""
    asked = asked_attributes(question)
    answer = _SYNTAX.sub(" ", answer)  # a keyword of code (JavaScript's `export default`) states no default
    missing = [name for name in asked if not ATTRIBUTES[name][1].search(answer)]
    if "default" in missing and any(name not in missing for name in asked if name != "default"):
        missing.remove("default")
    return missing
