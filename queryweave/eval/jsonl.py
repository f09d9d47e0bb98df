"""JSON-lines evaluation files: one record a line, parsed by the caller, errors naming the line."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")


def read_records(path: str | Path, parse: Callable[[dict[str, Any], int], T], what: str,
                 limit: int | None = None) -> list[T]:
    """`parse(record, line_number)` for each non-blank line (the first `limit`); a line that does not
    parse is a `ValueError` "PATH:N: not WHAT (...)"."""
    items: list[T] = []
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                items.append(parse(json.loads(line), n))
            except (KeyError, TypeError, ValueError, AttributeError) as exc:
                raise ValueError(f"{path}:{n}: not {what} ({exc})") from exc
            if limit and len(items) >= limit:
                break
    return items
