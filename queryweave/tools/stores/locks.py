"""A writer lock for the data dir: one ingest at a time, a clear error for a second writer; and what a
reader needs to know about a write in progress (`write_in_progress`, `KnowledgeBaseBusyError`)."""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

WRITE_MARKER = ".write-incomplete"
"""File in the data dir holding the writer's pid while a write (ingest, delete, reconcile) runs; left
behind by a writer that crashed (the next write repairs the stores, see `tools.ingest.pipeline`)."""


class StoreLockedError(RuntimeError):
    """Another process is writing to this data dir."""


class KnowledgeBaseBusyError(RuntimeError):
    """A read met the stores half-way through another process's write: retry shortly."""


def write_in_progress(data_dir: Path) -> bool:
    """Whether a live process is writing to `data_dir` now (a crashed writer's marker does not count)."""
    try:
        pid = int((Path(data_dir) / WRITE_MARKER).read_text().strip() or 0)
    except (OSError, ValueError):
        return False
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def busy(data_dir: Path) -> KnowledgeBaseBusyError:
    """The error a reader raises when it met a write in progress."""
    return KnowledgeBaseBusyError(f"knowledge base busy: another process is updating {data_dir}; try again "
                                  "in a moment")


@contextmanager
def writer_lock(data_dir: Path) -> Iterator[None]:
    """Hold the data dir's writer lock, or raise `StoreLockedError` at once if another writer has it."""
    data_dir.mkdir(parents=True, exist_ok=True)
    fd = os.open(data_dir / ".writer.lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            raise StoreLockedError(
                f"store is locked: another process is ingesting into {data_dir}; try again when it finishes"
            ) from exc
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        yield
    finally:
        try:
            fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)
