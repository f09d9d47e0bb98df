"""The QueryWeave web app: LangServe routes for the graph, the JSON/SSE API, and the web page.

    /queryweave/{invoke,batch,stream,playground/}   LangServe (`RemoteRunnable("http://host/queryweave")`)
    /ask, /ask/stream, /resume, /feedback, /suggest, /health   the app's own API
    /                                              the search page (static files, no build step)
    /favicon.ico                                   the page's icon (an SVG)

`create_app(ctx)` builds it for a `Context` (`queryweave serve` passes the CLI's); `app` (module
attribute, built on first access from the environment's `QUERYWEAVE_*`) serves
`uvicorn queryweave.server.app:app`; `app_factory` builds one per worker process for
`queryweave serve --workers N` (`uvicorn --factory --workers N queryweave.server.app:app_factory`).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from queryweave.config import Context
from queryweave.server.openapi import document
from queryweave.server.request_guard import RequestGuard
from queryweave.server.routes import http_error, router, service_error, validation_error
from queryweave.server.runnable import QueryWeaveRunnable
from queryweave.server.schemas import AskInput
from queryweave.server.service import QueryService, ServiceError
from queryweave.tools.cypher.store import StoreBusyError
from queryweave.tools.stores.embeddings import EmbeddingError
from queryweave.tools.stores.locks import KnowledgeBaseBusyError

STATIC = Path(__file__).parent / "static"
CONTEXT_ENV = "QUERYWEAVE_SERVE_CONTEXT"
"""Environment variable with the JSON `Context` that `queryweave serve --workers N` hands its workers."""
LANGSERVE_ENDPOINTS = ["invoke", "batch", "stream", "playground", "input_schema", "output_schema",
                       "config_schema"]


def create_app(ctx: Context | None = None) -> FastAPI:
    """The FastAPI app for `ctx` (default: a `Context` from the environment)."""
    from langserve import add_routes

    ctx = ctx or Context()
    service = QueryService(ctx)
    app = FastAPI(title="QueryWeave", version="0.1.0",
                  description="Retrieval-augmented answers with checked citations (LangGraph).")
    app.state.service = service
    app.add_exception_handler(ServiceError, service_error)
    app.add_exception_handler(FileNotFoundError, service_error)
    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_exception_handler(StarletteHTTPException, http_error)  # LangServe's string 422s as lists
    app.add_exception_handler(EmbeddingError, service_error)  # embedding endpoint down: 503, not 500
    app.add_exception_handler(StoreBusyError, service_error)  # a graph store held by a writer: 503
    app.add_exception_handler(KnowledgeBaseBusyError, service_error)  # a read met a write in progress: 503
    # body size cap; LangServe envelope checks (no 500 on "config": null) and batch inputs validated (422)
    app.add_middleware(RequestGuard, batch_input=AskInput)
    add_routes(app, QueryWeaveRunnable(service), path="/queryweave", enabled_endpoints=LANGSERVE_ENDPOINTS)
    app.include_router(router)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(STATIC / "index.html", media_type="text/html")

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> FileResponse:
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")

    @app.get("/queryweave", include_in_schema=False)
    def playground_redirect() -> RedirectResponse:
        return RedirectResponse("/queryweave/playground/")

    document(app)
    return app


class CloseConnections:
    """ASGI middleware answering every HTTP request with `Connection: close` and the worker's pid
    (`X-QueryWeave-Worker`, as in `/health`'s `worker`). Several workers share one
    listening socket and a connection stays with the worker that accepted it: kept-alive clients pinned
    most of a load test to one worker while the other idled (0.7x the throughput of one worker). A new
    connection per request is accepted by whichever worker is free first (a few tenths of a millisecond
    on loopback against ~0.5 s per question)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        pid = str(os.getpid()).encode()

        async def send_closing(message: dict) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"connection"]
                message = {**message, "headers": [*headers, (b"connection", b"close"), (b"x-queryweave-worker", pid)]}
            await send(message)

        await self.app(scope, receive, send_closing)


def app_factory() -> FastAPI:
    """The app of one worker process: for the `Context` in `QUERYWEAVE_SERVE_CONTEXT` (set by
    `queryweave serve --workers N`), else from the environment's `QUERYWEAVE_*`; it closes each
    connection after its response (`CloseConnections`), so requests spread over the workers."""
    raw = os.environ.get(CONTEXT_ENV)
    app = create_app(Context().with_overrides(**json.loads(raw)) if raw else Context())
    app.add_middleware(CloseConnections)
    return app


_APP: FastAPI | None = None


def __getattr__(name: str) -> Any:
    """`app`: the app for the environment's configuration, built on first access."""
    global _APP
    if name == "app":
        if _APP is None:
            _APP = create_app()
        return _APP
    raise AttributeError(name)
