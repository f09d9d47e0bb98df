"""Field lines of reference pages: the answer to "what is the default of X" when the page says so in a field.

API and configuration references state a setting's attributes as short labelled lines under the
setting's heading — "- **Default:** `'Rsbuild App'`" under "# html.title", "- Default: `true`",
"- **版本：** `>= 2.2.0`" — the format of Rspress, VitePress and many generated references. Such a line
names nothing of the question but its label, so word overlap ranks it below any sentence that repeats the
question's words (a sentence about an empty title outranked "Default: 'Rsbuild App'"). `field_answer`
recognises a field line whose label is the attribute the question asks for (the default, the version
that added it, its type) and whose section names what the question asks about; the extractor then puts
it first and shows it with its heading ("html.title — Default: 'Rsbuild App'"). Closed classes of
labels, nothing fitted.
"""

from __future__ import annotations

import re

from queryweave.tools.common.text import detect_language, tokenize
from queryweave.tools.retrieval.self_query_words import split_words
from queryweave.tools.understanding.glossary import cross_terms

# "**Default:** x", "**Default**: x", "Default: x", "**默认值：** x"; the label at most 24 characters
_FIELD = re.compile(r"^(?:\*\*|__)?([^\s:：*`_][^:：*`\n]{0,23}?)\s*(?:(?:\*\*|__)\s*[:：]|[:：]\s*(?:\*\*|__)?)\s*(\S.*)$")
FIELD_CHARS = 160  # a longer line is prose that starts with a label ("Note: …"), not a field
# How users ask for a default without the word: "if I don't configure anything", "out of the box", "with no
# port flag", "didn't set build.lib.formats", "什么都不配", "不指定" (written from the language, no set's questions).
ASKS_DEFAULT_OTHERWISE = (
    r"\bif (?:i|we|you) (?:do not|don['’]t|didn['’]t|did not|never|haven['’]t|have not) (?:configure|set|change|touch|"
    r"specify|pass|override|customi[sz]e|provide)\b|\bout of the box\b|\bwithout (?:any |a )?(?:config(?:uration)?|"
    r"configuring|setting|changing|touching|specifying|passing|flags?|options?)\b|\b(?:didn['’]t|did not|haven['’]t|"
    r"have not|never) (?:set|configured|configure|changed|change|specified|specify|passed|pass)\b|"
    r"\bleft (?:unset|untouched|alone)\b|\bno (?:\w+ ){0,2}(?:flags?|config(?:uration)?)\b|"
    r"\b(?:is|are|was|were)(?:n['’]t| not) (?:passed|set|specified|given|configured|provided)\b|"
    r"不改|不指定|不传|没设置|没有设置|不设|什么都不|开箱|不做(?:任何)?配置|没改|没有改|未设置|未配置|未指定")
# attribute: (the question asks for it, a label that states it)
LABELS: dict[str, tuple[re.Pattern[str], re.Pattern[str]]] = {
    "default": (re.compile(r"\bdefaults?\b|\bby default\b|\bunless\b|默认|缺省|不设置|不配置|没有配置|没配置|"
                           + ASKS_DEFAULT_OTHERWISE, re.I),
                re.compile(r"^(?:default(?: value)?|defaults|默认值?|缺省值?)$", re.I)),
    "version": (re.compile(r"\b(?:which|what|minimum|least)\b[^?？]{0,40}\bversions?\b|\bsince (?:which|what)\b|"
                           r"哪个版本|什么版本|哪一版|至少.{0,12}版本|版本.{0,6}(?:要求|开始)", re.I),
                re.compile(r"^(?:version|added in|since|available since|版本|引入版本|添加版本|起始版本)$", re.I)),
    "type": (re.compile(r"\bwhat(?:'s| is) the type\b|\bwhat type (?:is|does)\b|什么类型|类型是", re.I),
             re.compile(r"^(?:type|类型)$", re.I)),
}
SUBJECT_SHARE = 0.5  # at least this share of the heading's words in the question: the section is its subject
# "I set cacheKey but didn't configure cacheTime", "没配 cacheTime", "without passing `wait`": the setting left
# unset is the one whose default is asked (the verbs of ASKS_DEFAULT_OTHERWISE followed by a name)
_NAME = r"`?([A-Za-z_$@][\w.$@/-]*[\w$])`?"
_UNSET = re.compile(r"\b(?:didn['’]t|did not|don['’]t|do not|never|haven['’]t|have not|without)\s+(?:set(?:ting)?|"
                    r"configur(?:e|ed|ing)|pass(?:ed|ing)?|specif(?:y|ied|ying)|chang(?:e|ed|ing)|overrid(?:e|ing)|"
                    r"provid(?:e|ed|ing))?\s*(?:the |any |a |an )?(?:option |prop |setting |parameter )?" + _NAME + "|"
                    r"(?:没有?(?:配置?|设置?|指定|传|改)|未(?:配置|设置|指定)|不(?:配置?|设置?|指定|传))\s*了?\s*" + _NAME, re.I)


def label_only(unit: str) -> bool:
    """A field line without its value ("- **Default:**"): the value follows as a code block or nested items."""
    match = _FIELD.match(unit.strip() + " \0")  # the label read as a field line with a stand-in value
    return bool(match) and not match.group(2).strip("*_ \0")


def field_label(unit: str) -> str | None:
    """The label of a field line ("Default" of "**Default:** `600`"), None for any other unit."""
    if len(re.sub(r"\]\([^)\s]*\)", "]", unit)) > FIELD_CHARS:  # a link's target is no length of the line
        return None
    match = _FIELD.match(unit.strip())
    return match.group(1).strip() if match else None


def asked_field(question: str, unit: str) -> bool:
    """Whether `unit` is a field line stating an attribute the question asks for."""
    label = field_label(unit)
    return bool(label) and any(asks.search(question) and states.match(label) for asks, states in LABELS.values())


def _parts(text: str) -> set[str]:
    """Words of a text with its names taken apart: "output.distPath" -> output, dist, path."""
    return set(tokenize(" ".join(split_words(text))))


def names_subject(question: str, section: str) -> float:
    """Share of the heading's words (names taken apart) among the question's. A heading that is a name
    counts by its last part, the setting itself, and all of it: "server.port" is named by "port" (not by
    "server"), "server.strictPort" only by "strict" and "port" both."""
    name = section.strip()
    identifier = bool(name) and " " not in name
    if identifier:
        name = re.split(r"[.:/#]+", name.strip(".:/#"))[-1]
    words = _parts(name)
    asked = _parts(question)
    asked |= cross_terms(asked)  # a Chinese question names "port" as 端口
    share = len(words & asked) / len(words) if words else 0.0
    return share if not identifier or share == 1.0 else 0.0


def field_answer(question: str, unit: str, section: str) -> bool:
    """A field line that answers the question: the asked attribute, under a heading the question names."""
    return asked_field(question, unit) and names_subject(question, section) >= SUBJECT_SHARE


_IDENTIFIER = re.compile(r"[a-z0-9][A-Z]|_|\.|^[A-Z]{2,}$")  # camelCase, snake_case, dotted or upper-case names


def unset_names(question: str) -> set[str]:
    """The names the question says are left unset ("didn't set cacheTime", "没配 cacheTime", "without
    `wait`"), lower-cased: a name in backticks or one written as code (a plain word is no setting's name)."""
    out = set()
    for m in _UNSET.finditer(question):
        name = m.group(1) or m.group(2)
        if name and (_IDENTIFIER.search(name) or f"`{name}`" in m.group(0)):
            out.add(name.lower())
    return out


def row_name(unit: str) -> str | None:
    """The first cell of a table row unit ("cacheTime | 说明: … | 默认值: `300000`"), None for other units (a
    code span's "`string | number`" makes no row)."""
    if " | " not in re.sub(r"`[^`]*`", "", unit):
        return None
    name = unit.split(" | ", 1)[0].strip().strip("`*_ ")
    return name or None


def row_field(question: str, unit: str) -> bool:
    """A table row that answers the question as a field line does: its first cell is a setting the question
    names, and one of its cells is labelled with the attribute asked for and states it ("默认值: `300000`";
    "Default: -" states none)."""
    name = row_name(unit)  # the question writes the row's name whole ("retryInterval" names no row "interval")
    if not name or not re.search(rf"(?<![\w$.-]){re.escape(name)}(?![\w$-])", question, re.I):
        return False
    quantity = bool(_ASKS_QUANTITY.search(question))
    return any(asked_field(question, cell) and _stated(cell, quantity) for cell in unit.split(" | ")[1:])


# "how long", "多久", "几秒": the value asked is a quantity, so a cell without a digit does not state it
_ASKS_QUANTITY = re.compile(r"\bhow (?:many|much|long|large|big|often)\b|多久|多少|多长|多大|几[个秒分天次条]", re.I)


def _stated(cell: str, quantity: bool = False) -> bool:
    """Whether a labelled cell states a value: "默认值: `300000`", not "Default: -" (the table has none), nor
    "Default: same as maximumPoolSize" when a quantity is asked (`quantity`)."""
    match = _FIELD.match(cell.strip())
    value = match.group(2).strip("`*_ ") if match else ""
    return value not in {"", "-", "–", "—", "/"} and (not quantity or any(c.isdigit() for c in value))


def fields_first(scored: list[tuple], fields: list[bool], at: dict[tuple[int, int], int], question: str,
                  headings: dict[tuple[int, int], str], q_lang: str) -> list[tuple]:
    """Field lines that state the asked attribute of the asked setting put above every other unit, in the
    question's language first (`fields` per candidate unit, `at` each unit's index among them)."""
    top = max((x[0] for x in scored), default=0.0)
    unset = unset_names(question)  # "didn't set cacheTime": cacheTime's row before cacheKey's
    return [(top + 0.01 + 0.01 * x[1] + 0.02 * (detect_language(x[4][-1]) == q_lang)
             + 0.05 * ((row_name(x[4][-1]) or headings.get((x[2], x[3]), "")).lower() in unset),) + x[1:]
            if fields[at[(x[2], x[3])]] else x for x in scored]
