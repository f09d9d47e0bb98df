"""The app's OpenAPI document made to say what the app sends.

FastAPI documents each route's 200 and 422 only; LangServe's routes the same, with its stream's 200
as JSON. `document(app)` adds what the app really answers: the error statuses (400, 404, 409, 413, 503,
each an `ErrorResponse`), `text/event-stream` for both streams (`POST /ask/stream` and LangServe's
`POST /queryweave/stream`), and the favicon. `tests/test_openapi_contract.py` checks the result with
schemathesis against the running app.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from queryweave.server.routes import ASK_ERRORS, SSE, TOO_LARGE, sse_response

LANGSERVE_ERRORS = {"invoke": ASK_ERRORS, "batch": ASK_ERRORS, "stream": TOO_LARGE}
"""Per LangServe endpoint, the statuses it answers besides 200 and 422 (the stream reports a run's
errors as an `error` event inside a 200)."""
LANGSERVE_EVENT = {
    "type": "object", "description": "One server-sent event of LangServe's stream: `metadata` (the run id), "
    "`data` (one chunk: a QueryWeave progress event as JSON), `error`, then `end`.",
    "properties": {"event": {"type": "string", "enum": ["metadata", "data", "error", "end"]},
                   "data": {"type": "string"}, "id": {"type": "string"}, "retry": {"type": "integer"}}}


def _error_entry(description: str) -> dict[str, Any]:
    return {"description": description,
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorResponse"}}}}


def document(app: FastAPI, prefix: str = "/queryweave") -> None:
    """Make `app.openapi()` return the schema with LangServe's routes documented like the app's own."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema:
            return app.openapi_schema
        schema = get_openapi(title=app.title, version=app.version, description=app.description,
                             routes=app.routes)
        schema.setdefault("components", {}).setdefault("schemas", {})["ErrorResponse"] = {
            "title": "ErrorResponse", "type": "object", "required": ["detail"],
            "description": "An error the app answers with: `detail` says what went wrong.",
            "properties": {"detail": {"title": "Detail", "type": "string"}}}
        for name, errors in LANGSERVE_ERRORS.items():
            op = schema["paths"].get(f"{prefix}/{name}", {}).get("post")
            if op is None:
                continue
            for status, entry in errors.items():
                op["responses"].setdefault(str(status), _error_entry(entry["description"]))
            if name == "stream":
                op["responses"]["200"] = sse_response("Server-sent events (LangServe's stream protocol)",
                                                      LANGSERVE_EVENT)
        stream = schema["paths"].get("/ask/stream", {}).get("post")
        if stream is not None:
            stream["responses"]["200"] = SSE[200]
        app.openapi_schema = schema
        return schema

    app.openapi = openapi  # type: ignore[method-assign]
