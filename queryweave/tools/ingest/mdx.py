"""MDX pages (Docusaurus, Rspress, Starlight, Nextra) read as Markdown: the code around the text goes.

An `.mdx` file is Markdown with JavaScript in it. What a reader of the built site never sees as text
is removed before chunking, outside fenced code only:
- ESM statements: `import Tabs from '@theme/Tabs';`, multi-line `import { a, b } from 'x'` and
  `export const meta = {...}` blocks (to the end of the statement, by bracket depth);
- JSX comments `{/* ... */}`, one line or several;
- component tags (capitalised names, or dotted ones like `<Tabs.Item>`) that stand on lines of their
  own, opening, closing or self-closing, their attributes spread over lines or not. The text between
  an opening and a closing tag stays. A self-closing component shows the text-bearing string props it
  was given (`<Badge text="experimental" />` reads "experimental", `<Command code="npm i x" />`
  reads `` `npm i x` ``), as the site would render them.
Lower-case HTML tags are left to the HTML stripping that answers already do.
"""

from __future__ import annotations

import re

from queryweave.tools.common.fences import fence_states

_IMPORT = re.compile(r"^import\s*['\"]|^import\s+(?:\{|\*\s*as\s|[\w$]+\s*(?:,|from\s))")
_EXPORT = re.compile(r"^export\s+(?:const|let|var|default|function|async|class|\{)")
_TAG_START = re.compile(r"^\s*<(/?)([A-Z][\w]*(?:\.[\w]+)*)(?=[\s/>]|$)")
_JSX_COMMENT = re.compile(r"\{/\*.*?\*/\}", re.S)
_ATTR = re.compile(r"\s([A-Za-z][\w-]*)=(?:(\"[^\"]*\"|'[^']*')|(\{))")
_STRING = re.compile(r"\"[^\"]*\"|'[^']*'|`[^`$]*`")
_MEMBER = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+")
_FIELD = re.compile(r"([A-Za-z_$][\w$]*)\s*:\s*(['\"`])([^'\"`]*)\2")
_LINK = re.compile(r"^(?:[a-z]+:|/|\.{1,2}/|@|#)")
TEXT_PROPS = ("text", "title", "label", "description", "alt")  # shown as prose
CODE_PROPS = ("command", "code")  # shown as inline code
HIDDEN_PROPS = ("class", "className", "style", "id", "key", "color", "width", "height", "size", "variant",
                "groupId", "src", "href", "to", "from", "icon", "target", "rel", "lang")  # styling, links
_BRACKETS = {"{": 1, "(": 1, "[": 1, "}": -1, ")": -1, "]": -1}


def _depth(line: str) -> int:
    """Net bracket depth a line adds, ignoring brackets inside quoted strings."""
    depth, quote = 0, ""
    for char in line:
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"`":
            quote = char
        else:
            depth += _BRACKETS.get(char, 0)
    return depth


def _statement_end(lines: list[str], start: int) -> int:
    """Index after the ESM statement that starts at `start` (by bracket depth; an import ends at its
    `from '...'` or its bare module string)."""
    depth, i = 0, start
    while i < len(lines):
        depth += _depth(lines[i])
        i += 1
        if depth <= 0:
            text = lines[i - 1].rstrip()
            if not text.endswith((",", "=", "(", "{", "[", "+", "&&", "||", "?", ":")):
                return i
    return i


def _tag_end(lines: list[str], start: int) -> tuple[int, str, str]:
    """(index of the line after, tag text, text after the tag on its last line) of the JSX tag that
    opens line `start`; its attributes may spread over lines. A tag with no end within 40 lines is
    not one: (start, "", "")."""
    chunk = lines[start : start + 40]
    joined = "\n".join(chunk)
    depth, quote = 0, ""
    for pos, char in enumerate(joined):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"`":
            quote = char
        elif char in "{(":
            depth += 1
        elif char in "})":
            depth -= 1
        elif char == ">" and depth == 0:
            used = joined[: pos + 1].count("\n") + 1
            rest = joined[pos + 1 :].split("\n", 1)[0]
            return start + used, joined[: pos + 1], rest
    return start, "", ""


def _props(tag: str) -> list[tuple[str, str]]:
    """(name, string value) of a JSX tag's props: `a="x"`, `a={'x'}`, the string fields of an object
    or array literal (`list={[{ defaultValue: 'false' }]}` gives ("defaultValue", "false")) and the
    last name of a member expression (`stability={Stability.Experimental}`)."""
    found: list[tuple[str, str]] = []
    for match in _ATTR.finditer(tag):
        name, quoted, expression = match.group(1), match.group(2), match.group(3)
        if quoted is not None:
            found.append((name, quoted[1:-1]))
            continue
        inner = _balanced(tag, match.start(3)) if expression is not None else ""
        inner = inner.strip()
        if _STRING.fullmatch(inner):
            found.append((name, inner[1:-1]))
        elif _MEMBER.fullmatch(inner):
            found.append((name, inner.rsplit(".", 1)[-1]))
        else:
            found += [(key, value) for key, _quote, value in _FIELD.findall(inner)]
    return found


def _balanced(text: str, start: int) -> str:
    """The text inside the braces that open at `start`."""
    depth = 0
    for pos in range(start, len(text)):
        depth += {"{": 1, "}": -1}.get(text[pos], 0)
        if depth == 0:
            return text[start + 1 : pos]
    return text[start + 1 :]


def _words(name: str) -> str:
    """A prop name as words: `defaultValue` -> "default value", `added_version` -> "added version"."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|[_-]+", " ", name).lower().strip()


def _shown(tag: str) -> tuple[str, list[str]]:
    """What a self-closing component shows of its string props: (text, data lines). A component with
    a text prop (a badge, a label) shows that text; commands show as code; any other component shows
    its data props as "- name: `value`" lines. Links, paths and styling are not shown."""
    props = [(name, value.strip()) for name, value in _props(tag)]
    props = [(n, v) for n, v in props if v and n not in HIDDEN_PROPS and not _LINK.match(v)]
    text = [v for n, v in props if n in TEXT_PROPS] + [f"`{v}`" for n, v in props if n in CODE_PROPS]
    if text:
        return " ".join(text), []
    return "", [f"- {_words(n)}: `{v}`" for n, v in props]


def strip_mdx(text: str) -> str:
    """`text` (an MDX page's body) without its ESM statements, JSX comments and component tag lines."""
    text = _JSX_COMMENT.sub("", text)
    lines = text.splitlines()
    states = fence_states(lines)
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        fence, open_ = states[i]
        if fence or open_:
            out.append(line)
            i += 1
            continue
        if _IMPORT.match(line) or _EXPORT.match(line):
            end = _statement_end(lines, i)
            out.extend([""] * (end - i))
            i = end
            continue
        if _TAG_START.match(line):
            end, tag, rest = _tag_end(lines, i)
            if tag:
                shown, data = _shown(tag) if tag.endswith("/>") else ("", [])
                rest = rest.strip()
                if data:  # a list of the component's data, then the text that followed it
                    out.append("\n".join(data) + (f"\n\n{rest}" if rest else ""))
                else:
                    out.append(" ".join(part for part in (shown, rest) if part))
                out.extend([""] * (end - i - 1))
                i = end
                continue
        out.append(line)
        i += 1
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")
