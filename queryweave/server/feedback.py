"""Thumbs up/down on an answer: appended to `feedback.jsonl` and fed to the query log.

`append_feedback` always writes one JSON line per rating to `<data_dir>/feedback.jsonl` (the record
this module owns). The rating is also attached to the turn's logged retrieval in the retrieval log
(`queryweave.tools.stores.querylog.RetrievalLog`): by `query_id` in the thread's state, else by the
question's text, else logged as a new entry carrying the feedback, so `queryweave tune` sees it. A thumbs-up also counts the question
in the popular-queries log behind suggestions (see `queryweave.server.suggestions`).
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

_LOCK = threading.Lock()
QUERY_ID_KEYS = ("query_id", "querylog_id", "log_id")


def append_feedback(data_dir: str | Path, record: dict[str, Any]) -> Path:
    """Append one feedback record (with a timestamp) to `<data_dir>/feedback.jsonl`; returns the file."""
    path = Path(data_dir).expanduser() / "feedback.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    line = json.dumps({"ts": round(time.time(), 3), **record}, ensure_ascii=False, default=str)
    with _LOCK, path.open("a", encoding="utf-8") as fh:
        fh.write(line + "\n")
    return path


def read_feedback(data_dir: str | Path) -> list[dict[str, Any]]:
    """Every feedback record of a data dir, oldest first."""
    path = Path(data_dir).expanduser() / "feedback.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def to_query_log(data_dir: str | Path, values: dict[str, Any], rating: str, url: str = "") -> str:
    """Feed the rating to the retrieval log (in the data dir, or the PostgreSQL database at `url`);
    returns how: "attached" (to the turn's logged retrieval) or "logged" (a new entry)."""
    from queryweave.tools.stores.querylog import LogEntry, RetrievalLog

    value = 1 if rating == "up" else -1
    relevant = [c.get("chunk_id") for c in values.get("citations") or [] if c.get("chunk_id")]
    keep = relevant if value > 0 else None
    query = values.get("resolved_query") or values.get("question") or ""
    log = RetrievalLog(data_dir, url)
    try:
        for key in QUERY_ID_KEYS:
            if values.get(key) and log.feedback(str(values[key]), value, keep):
                return "attached"
        if query and log.feedback_for_query(query, value, keep):
            return "attached"
        timings = values.get("timings") or {}
        log.log(LogEntry(query=query,
                         strategy=values.get("strategy") or values.get("route") or "unknown",
                         k=int(values.get("k") or 0), latency_ms=float(sum(timings.values())),
                         result_ids=[d.get("chunk_id") for d in values.get("documents") or [] if d.get("chunk_id")],
                         intent=values.get("intent"), feedback=value,
                         relevant_ids=relevant if value > 0 else []))
        return "logged"
    finally:
        log.close()
