"""Word documents (`.docx`) as Markdown text, read with python-docx.

The body is read in document order, paragraphs and tables interleaved as written: a heading style
("Heading 2", "标题 2", "Title") becomes a Markdown heading of its level, a list style ("List Bullet",
"List Number", "列表") a list item, a table a Markdown table whose first row is the header (so answers
read its rows as "column: value"), and a paragraph in a monospace font or a code style a fenced line
of code. Title, author and year come from the document's properties, else the title is the first
heading. Embedded images, comments and tracked changes are not text and are left out.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from queryweave.tools.ingest.tables import markdown_table

_HEADING = re.compile(r"^(?:heading|标题)\s*(\d)$", re.I)
_LIST = re.compile(r"list|列表", re.I)
_CODE_STYLE = re.compile(r"code|source|代码|preformatted|html", re.I)
_MONO = re.compile(r"consolas|courier|mono|menlo|source code", re.I)


def _table(table: Any) -> list[str]:
    return markdown_table([[c.text for c in row.cells] for row in table.rows])


def _paragraph(par: Any) -> tuple[str, str]:
    """(kind, Markdown) of a paragraph: kind is "heading", "item", "code" or "text"."""
    text = par.text.strip()
    style = par.style.name if par.style is not None else ""
    if not text:
        return "text", ""
    if style.lower() == "title":
        return "heading", f"# {text}"
    level = _HEADING.match(style)
    if level:
        return "heading", "#" * min(6, int(level.group(1)) + 1) + f" {text}"
    if _LIST.search(style):
        return "item", f"- {text}"
    fonts = {r.font.name or "" for r in par.runs if r.text.strip()}
    if _CODE_STYLE.search(style) or (fonts and all(_MONO.search(f) for f in fonts)):
        return "code", par.text.rstrip()
    return "text", text


def parse_docx(path: Path) -> tuple[str, dict]:
    """(Markdown text, metadata) of a Word document. Raises on a file that is not one."""
    from docx import Document
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    document = Document(str(path))
    blocks: list[str] = []
    code: list[str] = []
    first_heading = ""

    def flush_code() -> None:
        if code:
            blocks.append("```\n" + "\n".join(code) + "\n```")
            code.clear()

    for item in document.iter_inner_content():
        if isinstance(item, Table):
            flush_code()
            rows = _table(item)
            if rows:
                blocks.append("\n".join(rows))
            continue
        if not isinstance(item, Paragraph):
            continue
        kind, text = _paragraph(item)
        if kind == "code":
            code.append(text)
            continue
        flush_code()
        if not text:
            continue
        if kind == "heading" and not first_heading:
            first_heading = text.lstrip("# ").strip()
        if kind == "item" and blocks and blocks[-1].startswith("- "):
            blocks[-1] += "\n" + text  # one list, not one paragraph per item
        else:
            blocks.append(text)
    flush_code()
    props = document.core_properties
    meta: dict = {}
    title = (props.title or "").strip() or first_heading
    if title:
        meta["title"] = title[:200]
    if (props.author or "").strip():
        meta["author"] = props.author.strip()
    when = props.created or props.modified
    if when is not None:
        meta["year"] = when.year
    return "\n\n".join(blocks), meta
