"""The verdict of a query guard (SQL or Cypher): allowed or not, why, and the statement judged."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class GuardResult:
    """Whether a generated query may run. `statement` is the (normalised) text that was judged."""

    allowed: bool
    reason: str
    statement: str

    def __bool__(self) -> bool:
        return self.allowed

    def line(self) -> str:
        """One line for the CLI: `allowed: reason` or `blocked: reason`."""
        return f"{'allowed' if self.allowed else 'blocked'}: {self.reason}"


def query_in_reply(text: str, fence: re.Pattern, start: re.Pattern) -> str:
    """The query in a model reply: the body of a fenced block if any, else the text from the first
    match of `start` up to a closing fence or a blank line (the explanation that often follows);
    trailing semicolons removed."""
    text = (text or "").strip()
    m = fence.search(text)
    if m:
        body = m.group(1)
    else:
        first = start.search(text)
        body = text[first.start():] if first else text
        body = re.split(r"\n\s*\n", body.split("```")[0])[0]
    return body.strip().rstrip(";").strip()
