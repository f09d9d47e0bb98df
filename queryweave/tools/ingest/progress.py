"""What an ingest shows while it works: one line per stage (parse → index → embed → enrich), counted
in the stage's own unit (documents, chunks, texts), with its rate and an ETA, on stderr.

`Stages(enabled)` hands out `Stage`s; a disabled one (`--quiet`, `--json`, library calls) records the
figures without printing. Every stage's figures (count, seconds) end up in `Stages.summary()`, which
the ingest report carries, so a run shows afterwards where its time went.
"""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO


def _clock(seconds: float) -> str:
    s = int(max(0.0, seconds) + 0.5)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


class Stage:
    """One stage's counter; `update(n)` after each step, `close()` at the end."""

    def __init__(self, owner: Stages, name: str, total: int | None, unit: str) -> None:
        self.owner, self.name, self.total, self.unit = owner, name, total, unit
        self.done = 0
        self.started = time.perf_counter()
        self.seconds = 0.0
        self._shown = 0.0
        self.note = ""
        self._show(force=True)

    def set_total(self, total: int) -> None:
        """The stage's size, once known."""
        self.total = total

    def update(self, n: int = 1, note: str = "") -> None:
        """`n` more units done."""
        self.done += n
        self.note = note or self.note
        self._show()

    def line(self) -> str:
        """The progress line as shown."""
        elapsed = time.perf_counter() - self.started
        rate = self.done / elapsed if elapsed > 0 else 0.0
        total = f"/{self.total}" if self.total is not None else ""
        out = f"ingest [{self.name}] {self.done}{total} {self.unit}s  {rate:.1f}/s  {_clock(elapsed)}"
        if self.total and 0 < self.done < self.total and rate > 0:
            out += f"  ETA {_clock((self.total - self.done) / rate)}"
        return out + (f"  {self.note}" if self.note else "")

    def _show(self, force: bool = False) -> None:
        if not self.owner.enabled:
            return
        now = time.perf_counter()
        if force or now - self._shown >= self.owner.every_s:
            self._shown = now
            self.owner.write(self.line(), final=False)

    def close(self) -> None:
        """Finish the stage (its last line stays on screen)."""
        self.seconds = time.perf_counter() - self.started
        self.owner.finished.append(self)
        if self.owner.enabled:
            self.owner.write(self.line(), final=True)


class Stages:
    """The stages of one ingest run."""

    def __init__(self, enabled: bool = False, stream: TextIO | None = None, every_s: float | None = None) -> None:
        self.enabled = enabled
        self.stream = stream or sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.every_s = every_s if every_s is not None else (0.5 if self.tty else 10.0)
        self.finished: list[Stage] = []
        self.started = time.perf_counter()

    def stage(self, name: str, total: int | None = None, unit: str = "chunk") -> Stage:
        """Start a stage."""
        return Stage(self, name, total, unit)

    def callback(self, name: str, unit: str = "text"):
        """A `(done, total, seconds)` progress callback (for an enricher) that drives a stage."""
        state: dict[str, Any] = {}

        def report(done: int, total: int, seconds: float) -> None:
            stage = state.get("stage")
            if stage is None:
                stage = state["stage"] = self.stage(name, total, unit)
            stage.total = total
            stage.update(done - stage.done)
            if done >= total:
                stage.close()

        return report

    def write(self, line: str, final: bool) -> None:
        """Print a progress line: rewritten in place on a terminal; elsewhere (a log) a line every 10 s."""
        if self.tty:
            self.stream.write("\r\x1b[K" + line + ("\n" if final else ""))
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def summary(self) -> dict[str, dict[str, float]]:
        """{stage: {"count": units done, "seconds": wall time}} of the finished stages."""
        out: dict[str, dict[str, float]] = {}
        for s in self.finished:
            row = out.setdefault(s.name, {"count": 0, "seconds": 0.0})
            row["count"] += s.done
            row["seconds"] = round(row["seconds"] + s.seconds, 3)
        return out
