"""Input limits and cleaning for every place a user's text enters (CLI, HTTP API, graph).

- `sanitize_question(text, max_chars)` never raises: bytes and lone surrogates (invalid UTF-8 that
  Python smuggled in with `surrogateescape`, or a JSON `"\\udcff"` escape) become U+FFFD, NULs and
  control characters are removed (tab and newline kept), invisible direction overrides and
  zero-width spaces are dropped, the text is NFC-normalised, whitespace runs collapse, and an
  over-long text is cut at `max_chars` with a note saying so. The graph's `begin` node uses it, so
  `graph.invoke({"question": anything})` cannot crash on its input.
- `clean_question(text, max_chars)` is the strict form for the edges (CLI, API): the same cleaning,
  then `InputError` (a `ValueError` with an HTTP `status`) for an empty or over-long question.
- `fence(text, tag)` and `fence_passages(docs)` wrap untrusted text (retrieved passages, database
  values) in tags the text itself cannot close, for prompts that must keep data apart from
  instructions. Prompt-injection text is never "detected and blocked" here: it is data, kept in its
  delimited place, and the tools behind the model are read-only by construction.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

MAX_QUESTION_CHARS = 4000
"""Longest question accepted (characters, after cleaning); the HTTP schemas use the same limit."""

_KEEP_CONTROLS = {"\t", "\n"}
# Bidi embeddings/overrides/isolates ("Trojan Source"), zero-width space, word joiner, BOM, soft hyphen.
# ZWJ/ZWNJ (U+200C/U+200D) stay: emoji sequences and several scripts need them.
_INVISIBLE = set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200b\u2060\ufeff\u00ad\u200e\u200f")
_SPACES = re.compile(r"[^\S\n]+")
_BLANK_LINES = re.compile(r"\n\s*\n(\s*\n)+")


class InputError(ValueError):
    """A question that cannot be accepted; `status` is the HTTP status to answer with (400 or 413)."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class Cleaned:
    """A cleaned text and what cleaning changed (human-readable notes, empty when nothing did)."""

    text: str
    notes: list[str] = field(default_factory=list)
    original_chars: int = 0


def to_text(value: Any) -> str:
    """Any input as a `str` of valid Unicode: bytes decoded as UTF-8 (bad bytes -> U+FFFD), lone
    surrogates -> U+FFFD (a valid surrogate pair becomes its character), None -> ''."""
    if value is None:
        return ""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).decode("utf-8", errors="replace")
    text = value if isinstance(value, str) else str(value)
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def strip_controls(text: str) -> str:
    """Remove NULs, control characters (tab and newline kept; CR and other line breaks become newlines)
    and invisible direction/zero-width characters."""
    text = text.replace("\r\n", "\n")
    out = []
    for ch in text:
        if ch in _KEEP_CONTROLS:
            out.append(ch)
        elif ch in "\r\x0b\x0c\x85\u2028\u2029":
            out.append("\n")
        elif ch in _INVISIBLE:
            continue
        elif unicodedata.category(ch) in {"Cc", "Cs"} or ch in "\ufffe\uffff":
            continue
        else:
            out.append(ch)
    return "".join(out)


def normalize_space(text: str) -> str:
    """Collapse runs of spaces/tabs to one space and of blank lines to one blank line; strip the ends."""
    text = _SPACES.sub(" ", text)
    text = _BLANK_LINES.sub("\n\n", text)
    return "\n".join(line.strip() for line in text.split("\n")).strip()


def truncate(text: str, max_chars: int) -> str:
    """`text` cut to at most `max_chars`, at a space when one is near the end."""
    if len(text) <= max_chars:
        return text
    cut = text[:max_chars]
    space = cut.rfind(" ", max(0, max_chars - 80))
    return (cut[:space] if space > 0 else cut).rstrip()


def _invalid_unicode(value: Any) -> bool:
    if isinstance(value, str):
        return to_text(value) != value
    if isinstance(value, (bytes, bytearray, memoryview)):
        try:
            bytes(value).decode("utf-8")
        except UnicodeDecodeError:
            return True
    return False


def sanitize_question(text: Any, max_chars: int = MAX_QUESTION_CHARS) -> Cleaned:
    """Clean a question without ever raising (see the module docstring); notes say what changed."""
    raw = to_text(text)
    notes: list[str] = []
    if _invalid_unicode(text):
        notes.append("invalid UTF-8 replaced with U+FFFD")
    stripped = strip_controls(raw)
    if len(stripped) != len(raw.replace("\r\n", "\n")):
        notes.append("control or invisible characters removed")
    cleaned = normalize_space(unicodedata.normalize("NFC", stripped))
    if len(cleaned) > max_chars:
        notes.append(f"question cut from {len(cleaned)} to {max_chars} characters (the limit)")
        cleaned = truncate(cleaned, max_chars)
    return Cleaned(cleaned, notes, len(raw))


def clean_question(text: Any, max_chars: int = MAX_QUESTION_CHARS, allow_empty: bool = False) -> str:
    """The cleaned question, or `InputError` when it is empty (400) or longer than `max_chars` (413)."""
    raw = to_text(text)
    cleaned = normalize_space(unicodedata.normalize("NFC", strip_controls(raw)))
    if not cleaned and not allow_empty:
        what = "only whitespace or control characters" if raw else "nothing"
        raise InputError(f"empty question: it contains {what}")
    if len(cleaned) > max_chars:
        raise InputError(f"question too long: {len(cleaned)} characters; the limit is {max_chars}", 413)
    return cleaned


def _neutralize(text: str, tag: str) -> str:
    # The passage cannot open or close our fence: any <tag ...> or </tag> inside is defused.
    return re.sub(rf"<(/?)\s*{re.escape(tag)}\b", r"‹\1" + tag, text, flags=re.I)


def fence(text: Any, tag: str = "data", **attrs: Any) -> str:
    """Untrusted text inside `<tag attr="...">…</tag>`, with any copy of the tag in the text defused."""
    body = _neutralize(strip_controls(to_text(text)), tag)
    attr = "".join(f' {k}="{_neutralize(strip_controls(to_text(v)), tag).replace(chr(34), "")}"'
                   for k, v in attrs.items() if v not in (None, ""))
    return f"<{tag}{attr}>\n{body}\n</{tag}>"


def fence_passages(docs: list[dict[str, Any]], tag: str = "passage") -> str:
    """Numbered passages, each fenced: `<passage n="1" title="…">text</passage>`, for a prompt that says
    passages are quoted data, never instructions."""
    return "\n".join(fence(d.get("text", ""), tag, n=i, title=d.get("title") or d.get("source") or "")
                     for i, d in enumerate(docs, 1))
