"""A table's rows as Markdown table lines, the form answers read row by row ("column: value")."""

from __future__ import annotations


def markdown_table(rows: list[list[str]]) -> list[str]:
    """Markdown lines of `rows` (the first row is the header; empty rows dropped, short rows padded, cell
    text on one line with its pipes escaped); [] when no row holds text."""
    rows = [[" ".join(c.split()).replace("|", "\\|") for c in r] for r in rows]
    rows = [r for r in rows if any(r)]
    if not rows:
        return []
    width = max(len(r) for r in rows)
    rows = [r + [""] * (width - len(r)) for r in rows]
    return ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * width] + ["| " + " | ".join(r) + " |" for r in rows[1:]]
