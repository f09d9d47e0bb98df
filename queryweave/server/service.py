"""What the HTTP routes and the LangServe runnable call: ask, resume, stream, feedback, suggestions.

One `QueryService` per app and data dir. Plain calls go through `queryweave.graph.run.run_question` (the
same path as the CLI, with the SQLite/PostgreSQL checkpointer); streaming runs the service's own
compiled graph (built once, same checkpointer) through `queryweave.server.progress`. Uploaded images
(data: URLs or base64) are saved under `<data_dir>/uploads/` and the graph gets the file's path; so are
uploaded audio recordings (the `speech` node transcribes them; 501 when the voice extra is missing).
`options` (from LangServe's `configurable`) override `profile` and prepend `features` per request.
A data dir without a knowledge base answers 503 before anything runs (see
`queryweave.nodes.common.missing_knowledge_base`).
"""

from __future__ import annotations

import hashlib
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from langgraph.types import Command

from queryweave.config import Context
from queryweave.nodes.common import missing_knowledge_base
from queryweave.server.feedback import append_feedback, to_query_log
from queryweave.server.progress import pending_clarification, shape_output, stream_events
from queryweave.server.suggestions import Suggestions
from queryweave.tools.media.ocr import MAX_IMAGE_BYTES, decode_image_bytes, load_image


class ServiceError(ValueError):
    """A request the service cannot serve; `status` is the HTTP status to answer with."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def clean_text(text: str | None, allow_empty: bool = False) -> str:
    """A user's text cleaned by `queryweave.tools.common.validation` when present (else stripped);
    `ServiceError` (400, or 413 when too long) for an empty or over-long one."""
    try:
        from queryweave.tools.common.validation import InputError, clean_question
    except ImportError:
        text = (text or "").strip()
        if not text and not allow_empty:
            raise ServiceError("empty question") from None
        return text
    try:
        return clean_question(text, allow_empty=allow_empty)
    except InputError as exc:
        raise ServiceError(str(exc), exc.status) from exc


def new_thread_id() -> str:
    """A fresh conversation thread id."""
    return uuid.uuid4().hex[:12]


class QueryService:
    """The graph behind the server, for one `Context`."""

    def __init__(self, ctx: Context) -> None:
        from queryweave.tools.stores import catalogs

        self.ctx = ctx
        self._graph: Any = None
        self._lock = threading.Lock()
        catalogs.configure_from(ctx)  # the graph's nodes open the data dir's catalog where this context says
        self.suggestions = Suggestions(ctx.data_dir, ctx.catalog_database, ctx.kb_name)

    @property
    def graph(self) -> Any:
        """The compiled graph with the context's checkpointer (built on first use)."""
        with self._lock:
            if self._graph is None:
                from queryweave.graph.builder import build_graph
                from queryweave.graph.checkpoint import make_checkpointer

                self._graph = build_graph(checkpointer=make_checkpointer(self.ctx))
            return self._graph

    # -- inputs ------------------------------------------------------------------------------
    def _store_upload(self, data: bytes, suffix: str) -> str:
        """Write an upload under `<data_dir>/uploads/`, named by its content; returns its path."""
        folder = self.ctx.path / "uploads"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{hashlib.sha256(data).hexdigest()[:24]}{suffix}"
        if not path.exists():
            path.write_bytes(data)
        return str(path)

    @staticmethod
    def _decoded(source: str, decode: Any, what: str, limit: int) -> bytes:
        """An upload's bytes, or the `ServiceError` a client can act on (not base64, too large)."""
        try:
            data = decode(source)
        except ValueError as exc:
            raise ServiceError(str(exc)) from exc
        if data is None:
            raise ServiceError(f"send the {what} as a data: URL or base64 (server paths are not accepted)")
        if len(data) > limit:
            raise ServiceError(f"{what} too large (over {limit // (1024 * 1024)} MB)", 413)
        return data

    def save_image(self, image: str | None) -> str | None:
        """Store an uploaded image (data: URL or base64) under `<data_dir>/uploads/`; returns its path."""
        if not image:
            return None
        data = self._decoded(image, decode_image_bytes, "image", MAX_IMAGE_BYTES)
        try:
            load_image(data)
        except ValueError as exc:
            raise ServiceError(str(exc)) from exc
        return self._store_upload(data, ".img")

    def context_for(self, options: dict[str, Any] | None = None) -> Context:
        """The service's context with a request's `profile` and `features` applied."""
        options = options or {}
        ctx = self.ctx
        if options.get("profile"):
            if options["profile"] not in {"fast", "balanced", "accurate"}:
                raise ServiceError(f"unknown profile {options['profile']!r} (fast | balanced | accurate)")
            ctx = ctx.with_overrides(profile=options["profile"])
        if options.get("features"):
            ctx = ctx.with_overrides(features=",".join(f for f in (options["features"], ctx.features) if f))
        return ctx

    def require_knowledge_base(self, ctx: Context) -> None:
        """`ServiceError` 503 when the data dir holds no knowledge base (nothing is created there)."""
        problem = missing_knowledge_base(ctx)
        if problem:
            raise ServiceError(problem, 503)

    def save_audio(self, audio: str | None) -> str | None:
        """Store an uploaded audio (data: URL or base64, at most the image limit) under `<data_dir>/uploads/`."""
        if not audio:
            return None
        from queryweave.tools.media.speech import MAX_AUDIO_BYTES, decode_audio_bytes, speech_status

        data = self._decoded(audio, decode_audio_bytes, "audio", MAX_AUDIO_BYTES)
        if (missing := speech_status()) is not None:
            raise ServiceError(missing, 501)
        return self._store_upload(data, ".audio")

    def _clean(self, question: str | None, image: str | None, resume: str | None,
               thread_id: str | None) -> tuple[str, str | None]:
        """The cleaned (question, resume); `ServiceError` for what cannot be run."""
        if resume is not None:
            if not thread_id:
                raise ServiceError("resume needs the thread_id of the paused conversation")
            resume = clean_text(resume, allow_empty=True)
            if pending_clarification(self.graph, thread_id) is None:
                raise ServiceError(f"thread {thread_id!r} is not waiting for a clarification", 409)
            return "", resume
        return clean_text(question, allow_empty=bool(image)), None

    # -- runs ----------------------------------------------------------------------------------
    def ask(self, question: str | None, thread_id: str | None = None, image: str | None = None,
            resume: str | None = None, options: dict[str, Any] | None = None, audio: str | None = None,
            audio_language: str | None = None) -> dict[str, Any]:
        """Answer (or resume) on a thread; returns the API output (`clarification` when it asks)."""
        from queryweave.graph.run import run_question

        ctx = self.context_for(options)
        self.require_knowledge_base(ctx)
        question, resume = self._clean(question, image or audio, resume, thread_id)
        path = self.save_image(image) if resume is None else None
        sound = self.save_audio(audio) if resume is None else None
        result = run_question(ctx, question, thread_id or new_thread_id(), resume, path, sound, audio_language)
        return shape_output(result) | {"profile": ctx.profile}

    def resume(self, thread_id: str, choice: str) -> dict[str, Any]:
        """Continue a thread that asked for clarification with the user's choice."""
        return self.ask(None, thread_id, resume=choice)

    def stream(self, question: str | None, thread_id: str | None = None, image: str | None = None,
               resume: str | None = None, options: dict[str, Any] | None = None, audio: str | None = None,
               audio_language: str | None = None) -> Iterator[dict[str, Any]]:
        """Progress events of a run (see `queryweave.server.progress`); validation errors raise first."""
        ctx = self.context_for(options)
        self.require_knowledge_base(ctx)
        question, resume = self._clean(question, image or audio, resume, thread_id)
        thread_id = thread_id or new_thread_id()
        if resume is not None:
            payload: Any = Command(resume=resume)
        else:
            payload = {"question": question or ""}
            path = self.save_image(image)
            if path:
                payload["image"] = path
            sound = self.save_audio(audio)
            if sound:
                payload |= {"audio": sound, "audio_language": audio_language or ""}
        events = stream_events(self.graph, ctx, payload, thread_id)
        return ({**e, "profile": ctx.profile} if e.get("event") == "answer" else e for e in events)

    # -- feedback and state -------------------------------------------------------------------
    def state_values(self, thread_id: str) -> dict[str, Any]:
        """The latest state of a thread (empty for an unknown thread)."""
        return dict(self.graph.get_state({"configurable": {"thread_id": thread_id}}).values or {})

    def feedback(self, thread_id: str, rating: str, comment: str = "", question: str | None = None,
                 answer: str | None = None) -> dict[str, Any]:
        """Record a rating of the thread's last answer (JSONL, query log, popular queries on up)."""
        values = self.state_values(thread_id)
        if not values and not (question and answer):
            raise ServiceError(f"unknown thread {thread_id!r}", 404)
        question = question or values.get("question") or ""
        record = {"thread_id": thread_id, "rating": rating, "comment": comment, "question": question,
                  "resolved_query": values.get("resolved_query"), "answer": answer or values.get("answer", ""),
                  "route": values.get("route"), "intent": values.get("intent"), "strategy": values.get("strategy"),
                  "citations": [c.get("chunk_id") for c in values.get("citations") or []]}
        path = append_feedback(self.ctx.data_dir, record)
        query_log = to_query_log(self.ctx.data_dir, values, rating, self.ctx.database_url) if values else None
        liked = values.get("resolved_query") or question
        popular = self.suggestions.record(liked) if rating == "up" and liked else False
        return {"ok": True, "file": Path(path).name, "query_log": query_log, "popular": popular}
