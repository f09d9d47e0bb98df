"""The app's own routes: health, suggestions, ask (JSON and server-sent events), resume and feedback."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel

from queryweave.server.request_guard import error_list
from queryweave.server.schemas import AskInput, FeedbackRequest, ResumeRequest, StreamRequest
from queryweave.server.service import QueryService, ServiceError

router = APIRouter()

RETRY_AFTER_S = 5
"""Seconds a client is told to wait (`Retry-After`) when a store is busy or an endpoint is cooling down."""
TRANSIENT_ERRORS = ("StoreBusyError", "KnowledgeBaseBusyError", "StoreLockedError", "EmbeddingError")


class ErrorResponse(BaseModel):
    """An error the app answers with (400, 404, 409, 413, 503): `detail` says what went wrong."""

    detail: str


def error(description: str) -> dict[str, Any]:
    """An OpenAPI response entry with the `ErrorResponse` body."""
    return {"model": ErrorResponse, "description": description}


BAD_REQUEST = {400: error("Empty question, unreadable image, or a resume without a thread")}
TOO_LARGE = {413: error("Request body (or image) too large")}
UNAVAILABLE = {503: error("No knowledge base in the data dir, or a store busy / an embedding endpoint "
                          "down (with Retry-After)")}
NOT_WAITING = {409: error("The thread is not waiting for a clarification")}
ASK_EVENT = {
    "type": "object", "required": ["event", "data"], "description": "One server-sent event of a run.",
    "properties": {
        "event": {"type": "string", "enum": ["start", "step", "token", "note", "clarify", "answer", "error"]},
        "data": {"type": "string", "contentMediaType": "application/json",
                 "contentSchema": {"type": "object", "required": ["event"], "properties": {"event": {"type": "string"}}}},
        "id": {"type": "string"}, "retry": {"type": "integer"}}}
"""One event of `POST /ask/stream` (OpenAPI 3.2 `itemSchema`; `schema` says the whole body is text)."""


def sse_response(description: str, item_schema: dict[str, Any]) -> dict[str, Any]:
    """An OpenAPI 200 entry for a `text/event-stream` body whose events match `item_schema`."""
    return {"description": description,
            "content": {"text/event-stream": {"schema": {"type": "string"}, "itemSchema": item_schema}}}


SSE = {200: sse_response("Server-sent events: `event: <kind>` and one JSON `data:` line per event "
                         "(start, step, token, note, then clarify, answer or error)", ASK_EVENT)}
ASK_ERRORS = BAD_REQUEST | NOT_WAITING | TOO_LARGE | UNAVAILABLE


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

    from queryweave.tools.common.validation import to_text

    def safe(value: Any) -> Any:
        if isinstance(value, str):
            return to_text(value)
        if isinstance(value, dict):
            return {safe(k): safe(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [safe(v) for v in value]
        return value

    errors = getattr(exc, "errors", lambda: [str(exc)])()
    errors = error_list(safe(jsonable_encoder(errors, custom_encoder={bytes: lambda b: to_text(b)})))
    return JSONResponse({"detail": errors}, status_code=422)


async def http_error(request: Request, exc: Exception) -> Any:
    """FastAPI's HTTPException handler, except that a 422 (LangServe raises some with a string) gets the
    documented list-of-errors `detail`."""
    from fastapi.exception_handlers import http_exception_handler

    if getattr(exc, "status_code", None) == 422:
        return JSONResponse({"detail": error_list(exc.detail)}, status_code=422)
    return await http_exception_handler(request, exc)


@router.get("/health")
def health(request: Request) -> dict[str, Any]:
    """Liveness plus what is configured (cheap: opens no model)."""
    from queryweave.models import resolve_backend
    from queryweave.tools.media.ocr import ocr_status
    from queryweave.tools.stores.catalogs import has_catalog

    svc = service_of(request)
    ocr = ocr_status()
    return {"status": "ok", "worker": os.getpid(), "data_dir": str(svc.ctx.data_dir),
            "knowledge_base": has_catalog(svc.ctx.data_dir, svc.ctx.catalog_database, svc.ctx.kb_name),
            "llm": resolve_backend(svc.ctx.model_settings()), "embedding": svc.ctx.embedding,
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


@router.post("/ask", responses=ASK_ERRORS)
def ask(request: Request, body: AskInput) -> dict[str, Any]:
    """Answer a question (JSON); `clarification` is set when the graph asks first."""
    return service_of(request).ask(body.question, body.thread_id, body.image, body.resume, audio=body.audio,
                                   audio_language=body.audio_language)


@router.post("/resume", responses=BAD_REQUEST | NOT_WAITING | TOO_LARGE | UNAVAILABLE)
def resume(request: Request, body: ResumeRequest) -> dict[str, Any]:
    """Answer a pending clarification of `thread_id` and get the answer."""
    return service_of(request).resume(body.thread_id, body.choice)


@router.post("/feedback", responses={404: error("Unknown thread")} | TOO_LARGE)
def feedback(request: Request, body: FeedbackRequest) -> dict[str, Any]:
    """Thumbs up/down on the last answer of a thread."""
    return service_of(request).feedback(body.thread_id, body.rating, body.comment, body.question, body.answer)


def sse(events: Iterator[dict[str, Any]]) -> Iterator[str]:
    """Server-sent events: `event: <kind>` and one JSON `data:` line per event."""
    for event in events:
        yield f"event: {event.get('event', 'message')}\ndata: {json.dumps(event, ensure_ascii=False)}\n\n"


@router.post("/ask/stream", response_class=StreamingResponse, responses=SSE | ASK_ERRORS)
def ask_stream(request: Request, body: StreamRequest) -> StreamingResponse:
    """Run a question (or a resume) and stream node progress, then the answer, as server-sent events."""
    events = service_of(request).stream(body.question, body.thread_id, body.image, body.resume,
                                        audio=body.audio, audio_language=body.audio_language)
    return StreamingResponse(sse(events), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
