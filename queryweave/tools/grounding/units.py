"""Answer units: the sentences, table rows, list items and code blocks of a passage, as clean text.

Headings are dropped from the units but kept as each unit's section (`sectioned_units`): a field line
under a heading ("- **Default:** `'Rsbuild App'`" under "# html.title") states an attribute of the
heading's subject. `render` turns a unit into the text an answer shows.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable

from queryweave.tools.common.fences import fence_closes, fence_opening
from queryweave.tools.common.site_markup import strip_site_markup
from queryweave.tools.common.text import split_sentences
from queryweave.tools.grounding.fields import FIELD_CHARS, label_only

_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_EMPHASIS = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
# *italics* (not `a * b`, not a list star, not inside a word: "2*3*4" stays), and _italics_ between word
# boundaries ("_subscriptions_ will trigger"; snake_case, "__init__" and "_private" stay)
_ITALIC = re.compile(r"(?<![A-Za-z0-9*\\])\*(?=[^\s*])([^*\n]+?)(?<=[^\s*])\*(?![A-Za-z0-9*])|"
                     r"(?<![\w\\])_(?=[^\s_])([^_\n]+?)(?<=[^\s_])_(?!\w)")
_COMMENT = re.compile(r"<!--.*?(?:-->|$)", re.S)
_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>")
_LINK = re.compile(r"!?\[([^\]]+)\]\(([^)\s]+)\)")
_IMAGE = re.compile(r"!\[[^\]]*\]\([^)\s]*\)|\[\]\([^)\s]*\)")  # an image (a badge), or a link left empty by one
_ONE_SPAN = re.compile(r"`[^`]+`")
# "**" with no pair, not an operator between spaces ("2 ** retryCount")
_STRAY_BOLD = re.compile(r"(?<!\s)\*\*(?!\*)|(?<![\s*])\*\*(?!\s)")
TICKS = re.compile(r"`([^`]+)`")
CLAUSE_CHARS = 120  # a sentence of clauses joined by semicolons is one unit up to this length
ITEM_CHARS = 300  # a list item this long or shorter is one answer unit (about three short sentences)
CODE_PREFIX = "code: "
_QUOTE = re.compile(r"^\s{0,3}(?:>\s?)+")
_ANCHOR = re.compile(r"\s*\{#[^}]*\}\s*$")
_HEADING_TEXT = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")


_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|<>~])")


def _unescape(text: str) -> str:
    """Markdown's backslash escapes as the characters they stand for ("node.\\_\\_filename" -> node.__filename)."""
    return _ESCAPE.sub(r"\1", text)


def _bare(cell: str) -> str:
    """A table cell that is one code span loses its backticks ("`minimumIdle`"); a cell with code in
    its text keeps them whole ("same as `maximumPoolSize`", rendered later), never half a pair."""
    return cell[1:-1] if _ONE_SPAN.fullmatch(cell) else cell


def answer_units(text: str) -> list[str]:
    """The units of `sectioned_units`, without their sections."""
    return [unit for unit, _section in sectioned_units(text)]


def _whole_clauses(pieces: list[str]) -> list[str]:
    """Clauses a semicolon ends stay with the rest of their sentence (up to `CLAUSE_CHARS`): "此树的用途广泛，
    包括……作为食物来源；木材可制成……" cut at its "；" answers with half a list."""
    out: list[str] = []
    for piece in pieces:
        if out and out[-1].endswith(("；", ";")) and len(out[-1]) + len(piece) <= CLAUSE_CHARS:
            out[-1] = f"{out[-1]}{'' if out[-1].endswith('；') else ' '}{piece}"
        else:
            out.append(piece)
    return out


def sectioned_units(text: str) -> list[tuple[str, str]]:
    """(unit, the heading it stands under, or "") for the sentences, table rows and list items of a
    passage (headings, table rules and docs-site directives dropped). A list item up to `ITEM_CHARS` long is one unit: its sentences describe one thing
    ("`max_age` - Sets a maximum time in seconds… Defaults to `600`."), and apart, the sentence that
    holds the value names nothing the question asks about."""
    units: list[tuple[str, str]] = []
    section = ""
    header: list[str] | None = None
    paragraph: list[str] = []
    item = False  # the paragraph is a list item

    into_field = False  # the paragraph is a field line whose value is its nested list items

    def flush() -> None:
        nonlocal item, into_field
        into_field = False
        if paragraph:
            joined = " ".join(paragraph)
            pieces = [joined] if item and len(joined) <= ITEM_CHARS else _whole_clauses(split_sentences(joined))
            units.extend((piece, section) for piece in pieces)
            paragraph.clear()
        item = False

    code: list[str] | None = None
    opener = ""
    for line in strip_site_markup(text).splitlines():  # (a KB ingested before markup was stripped)
        if code is None:
            line = _QUOTE.sub("", line)  # a quoted line ("> Note that …") is text; its ">" is not
        stripped = line.strip()
        marker = fence_opening(line.lstrip()) if code is None else None
        if marker or (code is not None and fence_closes(line.lstrip(), opener)):
            flush()
            if code is None:
                code, opener = [], marker or "```"
            else:  # a fenced block is one unit, marked as code (a "````md" block may show "```" fences inside)
                block = " ".join(code)
                if code and units and units[-1][1] == section and label_only(units[-1][0]) \
                        and len(units[-1][0]) + len(block) < FIELD_CHARS:
                    # "**Default:**" and its value, marked as code so that it is shown as written
                    shown = block if "`" in block else f"`{block}`"
                    units[-1] = (f"{units[-1][0]} {shown}", section)
                elif code:
                    units.append((CODE_PREFIX + block, section))
                code = None
            continue
        if code is not None:
            if stripped:
                code.append(stripped)
            continue
        if not stripped or _HEADING.match(line):
            flush()
            if stripped:
                heading = _ANCHOR.sub("", _HEADING_TEXT.match(line).group(1))  # "工具 {#tools}": its anchor goes
                section = _unescape(TICKS.sub(r"\1", heading))
            header = None if not stripped.startswith("|") else header
            continue
        if stripped.startswith("|"):
            flush()
            # a cell's escaped pipe ("`info` \\| `warn`") is text, not a cell border
            cells = [_bare(c.strip().replace("\\|", "|")) for c in re.split(r"(?<!\\)\|", stripped.strip("|"))]
            if _TABLE_RULE.match(stripped):
                continue
            if header is None:
                header = cells
                continue
            pairs = [f"{h}: {c}" if h and i else c for i, (h, c) in enumerate(zip(header, cells, strict=False))]
            units.append((" | ".join(p for p in pairs if p), section))
            continue
        if _BULLET.match(line):
            if line[:1].isspace() and item and (into_field or label_only(" ".join(paragraph))):
                into_field = True  # "- **默认值：**" and its nested items ("  - 当 target 不包含 node 时 …"): one field
                paragraph.append(_BULLET.sub("", line).strip())
                continue
            flush()
            item = True
            paragraph.append(_BULLET.sub("", line).strip())  # continuation lines join the item
            continue
        paragraph.append(stripped)
    flush()
    return [(u, where) for u, where in ((x.strip(), where) for x, where in units) if len(u) >= 6]


def render(unit: str) -> str:
    """A unit as clean text: emphasis, HTML tags, images, link syntax and inline code marks removed (URLs
    and code kept whole); a table row reads "first cell — column: value; column: value"."""
    if unit.startswith(CODE_PREFIX):
        return f"`{unit[len(CODE_PREFIX):]}`"
    if unit.count("**") % 2:  # a sentence cut out of a bold passage keeps half its marks: "**将 / 别名为 /home，…"
        unit = re.sub(r"^\*\*(?=\S)|(?<=\S)\*\*$", "", unit, count=1)
    # markup is stripped outside code spans only: "`<TransitionGroup>`" is a name, not a tag
    # an image is no text: a badge's "npm package (https://img.shields.io/…)" answers nothing
    # (code spans are set aside first: "`@[code{1-10}](../foo.js)`" is code, not a link to drop)
    spans: list[str] = []
    unit = TICKS.sub(lambda m: spans.append(m.group(0)) or f"\x01{len(spans) - 1}\x02", unit)
    text = _LINK.sub(lambda m: f"{m.group(1)} ({m.group(2)})" if m.group(2).startswith("http") else m.group(1),
                     _IMAGE.sub("", _IMAGE.sub("", _COMMENT.sub("", unit))))
    text = re.sub("\x01(\\d+)\x02", lambda m: spans[int(m.group(1))], text)
    pieces = re.split(r"(`[^`]+`)", text)
    row = any(" | " in piece for piece in pieces[::2])  # a table row's cells, not a code span's "a | b" type
    for i in range(0, len(pieces), 2):
        plain = _EMPHASIS.sub(r"\2", _TAG.sub("", pieces[i]))
        plain = _STRAY_BOLD.sub("", plain)  # a mark whose pair a cut left in the next unit: "…，**这样你可以…"
        # character references as the characters they stand for, after the tags are gone ("--edit-dir &lt;dir>" reads
        # "--edit-dir <dir>"); a code span keeps them as written, as Markdown does
        pieces[i] = html.unescape(_unescape(_ITALIC.sub(lambda m: m.group(1) or m.group(2), plain)))
    pieces[1::2] = [p.replace(" | ", "\0") for p in pieces[1::2]]  # a cell's "`a | b`" stays whole
    text = TICKS.sub(r"\1", "".join(pieces))
    if row:
        first, *rest = text.split(" | ")
        text = f"{first} — " + "; ".join(rest) if rest else first
    text = text.replace("\0", " | ")
    return re.sub(r"\s{2,}", " ", text).strip()


def position(units: dict[tuple[int, int], str], d: int, piece: str, near: Iterable[int]) -> int | None:
    """Where `piece` stands among passage `d`'s `units` (keyed by passage and unit index), looked for at the
    indexes `near` in turn: a chosen item is shown with units before or after its own."""
    return next((k for k in near if units.get((d, k)) == piece), None)
