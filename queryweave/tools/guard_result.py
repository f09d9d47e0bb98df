"""The verdict of a query guard (SQL or Cypher): allowed or not, why, and the statement judged."""

from __future__ import annotations

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
