"""A writer lock for the data dir: one ingest at a time, a clear error for a second writer."""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class StoreLockedError(RuntimeError):
    """Another process is writing to this data dir."""


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
