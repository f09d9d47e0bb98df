"""The app's own routes: health, suggestions, ask (JSON and server-sent events), resume and feedback."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse, StreamingResponse

from queryweave.server.schemas import AskInput, FeedbackRequest, ResumeRequest, StreamRequest
from queryweave.server.service import QueryService, ServiceError

router = APIRouter()

RETRY_AFTER_S = 5
"""Seconds a client is told to wait (`Retry-After`) when a store is busy or an endpoint is cooling down."""
TRANSIENT_ERRORS = ("StoreBusyError", "KnowledgeBaseBusyError", "StoreLockedError", "EmbeddingError")


def service_of(request: Request) -> QueryService:
    """The app's `QueryService`."""
    return request.app.state.service


def service_error(request: Request, exc: Exception) -> JSONResponse:
    """Exception handler: a `ServiceError` as a JSON error with its status; a missing knowledge base,
    a busy store or an unusable embedding endpoint as 503, the transient ones (busy, locked, endpoint
    down) with `Retry-After: RETRY_AFTER_S` so clients know to come back."""
    status = exc.status if isinstance(exc, ServiceError) else 503
    transient = any(c.__name__ in TRANSIENT_ERRORS for c in type(exc).__mro__)
    headers = {"Retry-After": str(RETRY_AFTER_S)} if status == 503 and transient else None
    return JSONResponse({"detail": str(exc)}, status_code=status, headers=headers)


def validation_error(request: Request, exc: Exception) -> JSONResponse:
    """422 for a request that fails validation, with the echoed input made JSON-safe (a lone surrogate
    in the body would otherwise break the error response itself and turn a 422 into a 500)."""
    from fastapi.encoders import jsonable_encoder

    from queryweave.tools.validation import to_text

    def safe(value: Any) -> Any:
        if isinstance(value, str):
            return to_text(value)
        if isinstance(value, dict):
            return {safe(k): safe(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [safe(v) for v in value]
        return value

    errors = getattr(exc, "errors", lambda: [str(exc)])()
    return JSONResponse({"detail": safe(jsonable_encoder(errors, custom_encoder={bytes: lambda b: to_text(b)}))},
                        status_code=422)


@router.get("/health")
def health(request: Request) -> dict[str, Any]:
    """Liveness plus what is configured (cheap: opens no model)."""
    from queryweave.models import resolve_backend
    from queryweave.tools.ocr import ocr_status

    svc = service_of(request)
    ocr = ocr_status()
    return {"status": "ok", "data_dir": str(svc.ctx.data_dir),
            "knowledge_base": (svc.ctx.path / "catalog.sqlite").exists(),
            "llm": resolve_backend(svc.ctx), "embedding": svc.ctx.embedding,
            "ocr": ocr is None, "ocr_message": ocr} | _speech_health()


def _speech_health() -> dict[str, Any]:
    """Whether speech input works (the voice extra; cheap: loads no model)."""
    from queryweave.tools.media.speech import speech_status

    message = speech_status()
    return {"speech": message is None, "speech_message": message}


@router.get("/suggest")
def suggest(request: Request, q: str = Query("", max_length=200),
            limit: int = Query(8, ge=1, le=20)) -> dict[str, Any]:
    """Suggestions for a prefix (an empty list when the suggestions engine is unavailable)."""
    svc = service_of(request)
    items = svc.suggestions.suggest(q, limit)
    return {"prefix": q, "suggestions": items, "note": svc.suggestions.reason}


@router.post("/ask")
def ask(request: Request, body: AskInput) -> dict[str, Any]:
    """Answer a question (JSON); `clarification` is set when the graph asks first."""
    return service_of(request).ask(body.question, body.thread_id, body.image, body.resume, body.audio,
                                   body.audio_language)


@router.post("/resume")
def resume(request: Request, body: ResumeRequest) -> dict[str, Any]:
    """Answer a pending clarification of `thread_id` and get the answer."""
    return service_of(request).resume(body.thread_id, body.choice)


@router.post("/feedback")
def feedback(request: Request, body: FeedbackRequest) -> dict[str, Any]:
    """Thumbs up/down on the last answer of a thread."""
    return service_of(request).feedback(body.thread_id, body.rating, body.comment, body.question, body.answer)


def sse(events: Iterator[dict[str, Any]]) -> Iterator[str]:
    """Server-sent events: `event: <kind>` and one JSON `data:` line per event."""
    for event in events:
        yield f"event: {event.get('event', 'message')}\ndata: {json.dumps(event, ensure_ascii=False)}\n\n"


@router.post("/ask/stream")
def ask_stream(request: Request, body: StreamRequest) -> StreamingResponse:
    """Run a question (or a resume) and stream node progress, then the answer, as server-sent events."""
    events = service_of(request).stream(body.question, body.thread_id, body.image, body.resume, body.audio,
                                        body.audio_language)
    return StreamingResponse(sse(events), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
