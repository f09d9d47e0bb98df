"""Language-aware chunking: Markdown heading sections first, then paragraphs, then sentences.

Sections are cut at Markdown ATX headings (outside fenced code) by a small scanner of our own,
because LangChain's `MarkdownHeaderTextSplitter` drops the blank lines that the paragraph split needs.
Inside a section, LangChain's `RecursiveCharacterTextSplitter` does the rest with separators for
paragraphs, lines, Chinese sentence punctuation (。！？；) and English (. ! ? ;). Lengths are counted in
characters, so a Chinese character counts as one, like an English letter.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from langchain_text_splitters import RecursiveCharacterTextSplitter

from queryweave.tools.common.fences import fence_states
from queryweave.tools.common.text import detect_language

_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$")
# MkDocs / Docusaurus "## Title { #anchor }", and the "%{#anchor}%" of the Vue docs' Chinese translations
_ANCHOR = re.compile(r"\s*%?\{\s*#[^{}]*\}%?\s*$")


def heading_title(raw: str) -> str:
    """A heading's title without a trailing `{ #anchor }` attribute."""
    return _ANCHOR.sub("", raw).strip()

_ZH_SEPARATORS = ["。", "！", "？", "；", "…"]
_EN_SEPARATORS = [". ", "! ", "? ", "; "]
_TAIL_SEPARATORS = ["，", ", ", "、", " ", ""]


@dataclass(frozen=True)
class Chunk:
    """One piece of a document: its text, the Markdown heading path it sits under, its position."""

    text: str
    heading: str | None
    index: int


def _sections(text: str) -> list[tuple[str | None, str, str]]:
    """(heading path, heading lines, body) per section; a section runs from its heading to the next.

    A heading with no body of its own is folded into the following section's heading lines.
    """
    sections: list[tuple[str | None, list[str], list[str]]] = [(None, [], [])]
    path: list[tuple[int, str]] = []
    lines = text.splitlines()
    for line, (fence, open_) in zip(lines, fence_states(lines), strict=True):
        match = None if fence or open_ else _HEADING.match(line)
        if match:
            level, title = len(match.group(1)), heading_title(match.group(2))
            path = [(lvl, t) for lvl, t in path if lvl < level] + [(level, title)]
            last_heading, last_head, last_body = sections[-1]
            carried = last_head if last_head and not "\n".join(last_body).strip() else []
            if carried:
                sections.pop()
            sections.append((" > ".join(t for _, t in path), [*carried, line], []))
        else:
            sections[-1][2].append(line)
    out = [(h, "\n\n".join(head), "\n".join(body).strip()) for h, head, body in sections]
    return [(h, head, body) for h, head, body in out if head or body]


def headings(text: str) -> list[str]:
    """The Markdown headings of `text` in order (titles only, code blocks ignored)."""
    found: list[str] = []
    lines = text.splitlines()
    for line, (fence, open_) in zip(lines, fence_states(lines), strict=True):
        if not fence and not open_ and (match := _HEADING.match(line)):
            found.append(heading_title(match.group(2)))
    return found


def _splitter(max_chars: int, overlap: int, lang: str) -> RecursiveCharacterTextSplitter:
    sentence = _ZH_SEPARATORS + _EN_SEPARATORS if lang == "zh" else _EN_SEPARATORS + _ZH_SEPARATORS
    return RecursiveCharacterTextSplitter(
        separators=["\n\n", "\n", *sentence, *_TAIL_SEPARATORS],
        keep_separator="end",
        chunk_size=max_chars,
        chunk_overlap=min(overlap, max_chars // 2),
        length_function=len,
        strip_whitespace=True,
    )


_ROW = re.compile(r"^\s*\|.*\|\s*$")
_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$")


def _table_heads(body: str, pieces: list[str]) -> list[str]:
    """For each piece of `body`, the header and rule lines of the Markdown table it starts inside ("" when it
    starts outside one, or at the table's own header): a long table cut into several chunks keeps its
    columns in each, so a row reads "order_by — Description: Posts order; Default: -date", not under the
    previous chunk's last row taken for a header."""
    lines = body.splitlines()
    starts, offset = [], 0
    for line in lines:
        starts.append(offset)
        offset += len(line) + 1
    out, start = [], -1
    for piece in pieces:
        found = body.find(piece, start + 1)
        start = found if found >= 0 else start + 1
        first = piece.lstrip().splitlines()[0] if piece.strip() else ""
        k = max((i for i, s in enumerate(starts) if s <= start), default=0)
        head = ""
        if _ROW.match(first) and not _RULE.match(first) and k > 0 and _ROW.match(lines[k - 1]):
            top = k
            while top > 0 and _ROW.match(lines[top - 1]):
                top -= 1
            if top + 1 < len(lines) and _RULE.match(lines[top + 1]) and first.strip() != lines[top].strip():
                head = f"{lines[top].strip()}\n{lines[top + 1].strip()}\n"
        out.append(head)
    return out


def _fenced(body: str, pieces: list[str]) -> list[str]:
    """Pieces of `body` with their code fences balanced: a piece cut inside a fenced block reopens it with
    the block's own opening line ("```js") and one that ends inside it closes it, so every chunk reads as
    prose and code apart (a code block's second half is not prose to answer from: "// 这将在运行时更新路由
    … if (import.meta.hot) {"). Such a chunk is longer than the limit by its fence lines."""
    lines = body.splitlines(keepends=True)
    states = fence_states([line.rstrip("\n") for line in lines])
    if not any(fence for fence, _ in states):
        return pieces
    marks, offset, opening = [], 0, ""  # (where a line starts, the block's marker after it, its opening line)
    for line, (fence, open_) in zip(lines, states, strict=True):
        opening = line.strip() if fence and open_ else opening
        marks.append((offset + len(line) - len(line.lstrip()), open_, opening))
        offset += len(line)
    out, start = [], -1
    for piece in pieces:
        found = body.find(piece, start + 1)
        start = found if found >= 0 else start + 1
        before = [m for m in marks if m[0] < start]
        text = f"{before[-1][2]}\n{piece}" if before and before[-1][1] else piece
        upto = [m for m in marks if m[0] < start + len(piece)]
        if upto and upto[-1][1]:  # ends inside a block
            text += "\n" + upto[-1][1]
        out.append(text)
    return out


def chunk_text(
    text: str, *, max_chars: int = 800, overlap: int = 100, lang: str | None = None
) -> list[Chunk]:
    """Split `text` into chunks of at most `max_chars` characters, `overlap` characters shared.

    A text of at most `max_chars` stays one chunk (its heading is the first heading in it).
    Longer text is cut at Markdown headings, then paragraphs, then sentences (Chinese punctuation
    first when `lang` is "zh"; `lang` is detected when None). Each chunk carries its heading path,
    e.g. "Install > Linux". A section holding only a heading is folded into the next one.
    """
    text = text.strip()
    if not text:
        return []
    lang = lang or detect_language(text[:2000])
    if len(text) <= max_chars:
        return [Chunk(text=text, heading=next(iter(headings(text)), None), index=0)]
    sections = _sections(text)
    chunks: list[Chunk] = []
    for heading, head, body in sections:
        whole = f"{head}\n\n{body}".strip()
        if len(whole) <= max_chars:
            pieces = [whole]
        else:
            room = max(max_chars - len(head) - 2, max_chars // 2)
            raw = _splitter(room, overlap, lang).split_text(body) if body else []
            pieces = [head_rows + piece for head_rows, piece in zip(_table_heads(body, raw), _fenced(body, raw),
                                                                     strict=True)]
            if head:
                pieces = [f"{head}\n\n{pieces[0]}" if pieces else head, *pieces[1:]]
        for piece in pieces:
            if piece.strip():
                chunks.append(Chunk(text=piece.strip(), heading=heading, index=len(chunks)))
    return chunks
