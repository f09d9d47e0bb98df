"""Fenced code blocks of Markdown, read as CommonMark does: a fence is three or more backticks or tildes
(up to three spaces of indent); it closes only with a fence of the same character, at least as long, with
no info string. So a page that shows a fenced block inside a "````md" block (docs about Markdown) stays
one code block, where toggling on every "```" line would turn its inside out."""

from __future__ import annotations

import re

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")


def fence_opening(line: str) -> str | None:
    """The fence marker ("```", "````", "~~~") when `line` opens a fenced block, else None."""
    m = _FENCE.match(line)
    if not m or (m.group(1)[0] == "`" and "`" in m.group(2)):
        return None
    return m.group(1)


def fence_closes(line: str, opener: str) -> bool:
    """Whether `line` closes the block opened with `opener`."""
    m = _FENCE.match(line)
    return bool(m) and m.group(1)[0] == opener[0] and len(m.group(1)) >= len(opener) and not m.group(2).strip()


def fence_states(lines: list[str]) -> list[tuple[bool, str | None]]:
    """Per line: (is a fence line, the marker of the block open after it, None outside code)."""
    out, open_ = [], None
    for line in lines:
        if open_ is None:
            marker = fence_opening(line)
            if marker:
                open_ = marker
            out.append((marker is not None, open_))
        elif fence_closes(line, open_):
            open_ = None
            out.append((True, None))
        else:
            out.append((False, open_))
    return out
