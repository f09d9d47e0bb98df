"""What kind of thing a question asks for (a value, a name in code, a command) and whether a unit states it.

`extractive` scores a unit that writes the kind asked for a little higher (`states_asked`), and shows a chosen
unit that states none of it with the neighbour that does (`completed`, where a name or code the question already
holds does not count). Counting only values and names the question does not already hold in the scoring too was
tried and left out: it did not transfer (`bench/results_answers.md`, "Seventeenth session"). A chosen unit under a
heading that is a name in code ("### ignoreDeadLinks") is shown after that name when a name is asked for, and one
that answers a question for a default (or another attribute) without giving it is shown with its section's field
line ("- **Default:** `4096`") ("Eighteenth session").
"""

from __future__ import annotations

import re

from queryweave.tools.common.text import tokenize
from queryweave.tools.grounding.attributes import unstated_attributes
from queryweave.tools.grounding.fields import ASKS_DEFAULT_OTHERWISE, asked_field, row_name
from queryweave.tools.grounding.units import CODE_PREFIX, TICKS

# Questions whose answer is a number or a value ("默认是多少", "how many", "what is the default").
ASKS_VALUE = re.compile(ASKS_DEFAULT_OTHERWISE + r"|多少|几个|几秒|多大|多长|默认|上限|哪个版本|什么版本|哪一版|"
                        r"how (?:many|much|long|large)|\bdefault\b|"
                        r"\bmaximum\b|\bminimum\b|\blimit\b|\bsize\b|\bvalue\b|\bwhich (?:version|release)\b", re.I)
# Questions that ask for a command or code, where a code block is an answer and not noise.
ASKS_CODE = re.compile(r"命令|代码|示例|怎么查|如何查|\bcommand\b|\bcode\b|\bexample\b|\bsnippet\b|"
                       r"\bhow (?:do|can) (?:i|you) (?:check|see|run|list|show)\b", re.I)
# Questions that ask for a name in code: a class, function, parameter, option, command ("which argument of
# FastAPI() …", "用哪个函数"). A unit that holds an identifier or a code span states one.
ASKS_IDENTIFIER = re.compile(
    r"\b(?:which|what)\b(?:\s+\S+){0,3}?\s+(?:class|function|method|parameter|param|argument|option|flag|"
    r"setting|field|type|exception|error|decorator|command|header|keyword|attribute|module|package|view|plugin|"
    r"variable|property|hook|endpoint|object|library|tool|prefix|suffix|component|event|directive|helper|"
    r"algorithm|key|tag)s?\b|\bwhat(?:'s| is) (?:it|this|that|the \w+) called\b|\bwhat is the name of\b|"
    r"(?:哪个|哪一个|哪些|什么|哪种)(?:\S{0,6}?)(?:函数|类|参数|字段|选项|方法|异常|命令|属性|配置项?|装饰器|模块|类型|"
    r"设置|标志|变量|对象|库|工具|接口|字段名|选项名|算法|钩子|组件|插件|前缀|后缀|事件|标签|指令|辅助函数)|"
    r"叫什么|什么名字|名称是什么|名字是什么", re.I)
IDENTIFIER = re.compile(r"`[^`]+`|\b\w+_\w+\b|\b[a-z]+[A-Z]\w*|\b[A-Z][a-z0-9]+[A-Z]\w*|\b[A-Z]{2,}[a-z]\w*|"
                        r"(?<![\w-])--?[a-z][\w-]+|\b\w+\(\)")
DIGIT = re.compile(r"\d")
WHICH = re.compile(r"\bwhich\b|哪个|哪一个|哪种|哪一种|哪条|哪项", re.I)  # a question that asks for a name
_NAME_HEADING = re.compile(r"[A-Za-z_$@.-][\w$@./:-]*")  # a heading that is a name: "readonly", "output.distPath"
_QUOTED = re.compile(r"[“「『\"]([^”」』\"\n]{2,40})[”」』\"]")


def states_asked(unit: str, kind: str) -> bool:
    """Whether `unit` writes the "value" (a number) or the "name" (an identifier, a code span) asked for."""
    return bool((DIGIT if kind == "value" else IDENTIFIER).search(unit))


def asked_kind(question: str) -> str | None:
    """"code", "value" or "name": what the question asks for, None when none of them."""
    return ("code" if ASKS_CODE.search(question) else "value" if ASKS_VALUE.search(question)
            else "name" if ASKS_IDENTIFIER.search(question) or WHICH.search(question) else None)


def states(unit: str, kind: str, asked: set[str]) -> bool:
    """Whether a unit holds the kind of thing asked for: code (a code block, or a code span not all among
    `asked`), a value (a number),
    or a name (an identifier, code span, quoted term, or a table row's first cell that is one word of code:
    "checked-value | 类型: …" names its prop, whose tokens are not all among `asked`, the question's)."""
    if kind == "code":  # a code span that only repeats the question's own code ("`db.json`") shows no new code
        return unit.startswith(CODE_PREFIX) or any(not set(tokenize(m.group(1))) <= asked for m in TICKS.finditer(unit))
    if kind == "value":
        return bool(DIGIT.search(unit))
    names = [m.group(0).strip("`") for m in IDENTIFIER.finditer(unit)] + [m.group(1) for m in _QUOTED.finditer(unit)]
    row = row_name(unit)  # a table row names its subject in its first cell ("checked-value | 类型: …")
    if row and _NAME_HEADING.fullmatch(row):
        names.append(row)
    return any((toks := set(tokenize(n))) and not toks <= asked and n.strip().lower() not in _LITERALS for n in names)


# Literal values and type keywords of code: "Set to `true` to exit …" names no option, "`boolean`" no setting.
_LITERALS = frozenset("true false null undefined none nil boolean bool string str number int integer float "
                      "object array any void".split())


_DOTTED = re.compile(r"[A-Za-z_$]\.[A-Za-z_$]")  # "server.fs.allow"
def attribute_field(question: str, units: dict[tuple[int, int], str], d: int, u: int, pieces: tuple,
                    taken: set, headings: dict[tuple[int, int], str] | None) -> int | None:
    """The index of the nearest unit under the chosen unit's heading (three either side) that is a field line
    stating an attribute the question asks for (`fields.asked_field`: "**Default:** `4096`" for a default,
    "默认值：`Appearance`"); None when there is none."""
    if headings is None:
        return None
    for near in (u - 1, u + 1, u - 2, u + 2, u - 3, u + 3):
        text = units.get((d, near))
        if text is None or (d, near) in taken or text in pieces or headings.get((d, near)) != headings.get((d, u)):
            continue
        if asked_field(question, text):
            return near
    return None


def code_name(heading: str) -> bool:
    """Whether a heading is a name in code ("ignoreDeadLinks", "server.fs.allow", "TRUSTED_HOSTS"), or a name and its
    aliases ("--latest, -L"), not a word ("Usage"), a phrase or a list of words ("Usage, notes")."""
    parts = re.split(r",\s*", heading)  # a name and its aliases: "--latest, -L"
    return all(_NAME_HEADING.fullmatch(p) for p in parts) and any(
        IDENTIFIER.search(p) or _DOTTED.search(p) for p in parts)


def completed(chosen: list, units: dict[tuple[int, int], str], kind: str, question: str,
               headings: dict[tuple[int, int], str] | None = None) -> list:
    """A chosen unit that does not hold the kind of thing asked for ("Which parameter …" answered by a
    sentence that names none) is shown with the nearest unit of its passage that does: one of the two
    after it, else the one before ("FastAPI 为每个路径操作使用一个唯一 ID…" then "…通过
    `generate_unique_id_function` 参数传给 FastAPI"). When no neighbour holds a name asked for and the
    unit stands under a heading that is one ("### readonly": "When enabled, the cache will only be read
    …"), the heading is shown before it, as a field line's is. Else nothing is added. A neighbour counts only
    under the unit's own heading, and a literal (`true`, `boolean`) is no name.

    Before that: a name asked for, and the unit stands under a heading that is a name in code (`code_name`) the
    question does not hold — the heading is shown before the first chosen unit under it, whatever other names the
    unit writes ("When set to `true`, VitePress will not fail builds…" under "### ignoreDeadLinks"); an attribute asked
    for (a default, a version, a type) that the unit does not state (`attributes.unstated_attributes`) — the field
    line giving it under its heading is shown with it (`attribute_field`). A table row names its own subject and gets no heading."""
    taken = {(c[2], c[3]) for c in chosen}
    asked = set(tokenize(question))
    out = []
    first: dict[tuple[int, str], int] = {}  # the first chosen unit under each heading of a passage
    for c in chosen:
        key = (c[2], (headings or {}).get((c[2], c[3]), ""))
        first[key] = min(first.get(key, c[3]), c[3])
    # (passage, heading) already shown before a unit: a field line is read with its heading ("replaceState —")
    shown = {(c[2], p[:-2]) for c in chosen for p in c[4] if p.endswith(" —")}
    for item in chosen:
        d, u, pieces = item[2], item[3], item[4]
        heading = (headings or {}).get((d, u), "")
        named = (kind == "name" and code_name(heading) and not set(tokenize(heading)) <= asked
                 and not any(heading in p for p in pieces) and first.get((d, heading)) == u and (d, heading) not in shown
                 and row_name(pieces[0]) is None)  # a table row names its own subject
        if named:
            pieces = (f"{heading} —", *pieces)
            shown.add((d, heading))
        elif not any(asked_field(question, p) for p in pieces) and unstated_attributes(question, " ".join(pieces)) \
                and (field := attribute_field(question, units, d, u, pieces, taken, headings)) is not None:
            pieces = (*pieces, units[d, field]) if field > u else (units[d, field], *pieces)
            taken.add((d, field))
        elif not any(states(p, kind, asked) or asked_field(question, p) for p in pieces):
            for near in (u + 1, u + 2, u - 1):
                text = units.get((d, near))
                if text is None or (d, near) in taken or text in pieces or not states(text, kind, asked):
                    continue
                if headings is not None and headings.get((d, near)) != headings.get((d, u)):
                    continue  # a neighbour under another heading is about another thing (the next option)
                pieces = (*pieces, text) if near > u else (text, *pieces)
                taken.add((d, near))
                after = units.get((d, near + 1))
                if near > u and after and text.endswith((":", "：")) and after not in pieces:
                    pieces = (*pieces, after)  # "… try the following in the Linux console:" and the command
                    taken.add((d, near + 1))
                break
            else:
                if kind == "name" and _NAME_HEADING.fullmatch(heading) and not set(tokenize(heading)) <= asked \
                        and not any(p.startswith(f"{heading} —") for p in pieces) and (d, heading) not in shown:
                    pieces = (f"{heading} —", *pieces)
                    shown.add((d, heading))
        out.append(item[:4] + (pieces,) + item[5:])
    return out
