"""A small ASGI middleware in front of the whole app: request bodies are capped (413 past the limit, so
one huge upload cannot exhaust memory), and LangServe's request envelope is normalised before LangServe
sees it — `"config": null` and `"kwargs": null` are dropped (LangServe raised a TypeError, a 500, on
them), a body must be JSON (bytes that are not raised inside LangServe's batch/stream: a 500) and a
batch's `inputs` must be a list (422 otherwise). Found by schemathesis on the OpenAPI schema.
Each input of a batch is validated here against the runnable's input model: LangServe validates them
outside its error translation, so one bad item (`{"question": 5}`, a bare string, a null question)
answered 500 where `/invoke` answers 422. Every 422 has FastAPI's shape: `detail` is a list of
`{loc, msg, type}`; a JSON body of bytes that are not text is a 422 on the app's own routes too.
"""

from __future__ import annotations

import json
from typing import Any

MAX_BODY_BYTES = 16 * 1024 * 1024
"""Largest request body accepted: a 10 MB image as base64 plus the JSON around it."""

Scope = dict[str, Any]


class RequestGuard:
    """ASGI middleware: body size cap for every POST, envelope checks under `langserve_prefix` (and each
    batch input validated by `batch_input`, a pydantic model, when given)."""

    def __init__(self, app: Any, langserve_prefix: str = "/queryweave/", max_body: int = MAX_BODY_BYTES,
                 batch_input: Any = None) -> None:
        self.app = app
        self.prefix = langserve_prefix
        self.max_body = max_body
        self.batch_input = batch_input

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope.get("type") != "http" or scope.get("method") != "POST":
            return await self.app(scope, receive, send)
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_body:
            return await _reply(send, 413, f"request body too large (over {self.max_body // (1024 * 1024)} MB)")
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if size > self.max_body:
                return await _reply(send, 413, f"request body too large (over {self.max_body // (1024 * 1024)} MB)")
            if not message.get("more_body"):
                break
        body = b"".join(chunks)
        if not scope.get("path", "").startswith(self.prefix) and body and _undecodable_json(body, scope):
            return await _reply(send, 422, "request body is not valid JSON (not UTF-8/16/32 text)")
        if scope.get("path", "").startswith(self.prefix):
            body, problem = normalise_envelope(body, scope["path"])
            if problem:
                return await _reply(send, 422, problem)
            errors = batch_errors(body, self.batch_input) if scope["path"].rstrip("/").endswith("/batch") else []
            if errors:
                return await _reply(send, 422, errors)
        sent = False

        async def replay() -> dict[str, Any]:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        headers = [(k, v) for k, v in scope.get("headers") or [] if k != b"content-length"]
        headers.append((b"content-length", str(len(body)).encode()))
        await self.app({**scope, "headers": headers}, replay, send)


def normalise_envelope(body: bytes, path: str) -> tuple[bytes, str | None]:
    """(body, problem): LangServe's envelope with null `config`/`kwargs` dropped; a problem for a body
    that is not JSON (LangServe's batch and stream raised on undecodable bytes: a 500) and for a batch
    whose `inputs` is not a list. JSON that is not an object passes unchanged (LangServe answers 422)."""
    try:
        data = json.loads(body or b"null")
    except ValueError:  # invalid JSON, or bytes that are not UTF-8/16/32 at all
        return body, "request body is not valid JSON"
    if not isinstance(data, dict):
        return body, None
    changed = False
    for key in ("config", "kwargs"):
        if key in data and data[key] is None:
            del data[key]
            changed = True
    if path.rstrip("/").endswith("/batch") and not isinstance(data.get("inputs"), list):
        return body, "`inputs` must be a list of inputs"
    return (json.dumps(data).encode() if changed else body), None


def _undecodable_json(body: bytes, scope: Scope) -> bool:
    """A JSON request whose bytes are not text at all (FastAPI answers those 400, undocumented; invalid
    JSON text it answers 422 itself)."""
    content_type = dict(scope.get("headers") or []).get(b"content-type", b"")
    if b"json" not in content_type.lower():
        return False
    try:
        json.loads(body)
    except UnicodeDecodeError:
        return True
    except ValueError:
        return False
    return False


def batch_errors(body: bytes, model: Any) -> list[dict[str, Any]]:
    """Validation errors of a batch's inputs against `model` (`loc` starts `["body", "inputs", i]`)."""
    if model is None:
        return []
    from pydantic import ValidationError

    try:
        inputs = json.loads(body or b"null").get("inputs")
    except (ValueError, AttributeError):
        return []
    errors: list[dict[str, Any]] = []
    for i, item in enumerate(inputs if isinstance(inputs, list) else []):
        try:
            model.model_validate(item)
        except ValidationError as exc:
            errors.extend({"loc": ["body", "inputs", i, *err["loc"]], "msg": err["msg"], "type": err["type"]}
                          for err in exc.errors(include_url=False))
    return errors


def error_list(detail: Any) -> list[dict[str, Any]]:
    """A 422 `detail` in FastAPI's shape: a list of `{loc, msg, type}` (a string becomes one item)."""
    if isinstance(detail, list):
        return [d if isinstance(d, dict) and "msg" in d else {"loc": ["body"], "msg": str(d), "type": "value_error"}
                for d in detail]
    return [{"loc": ["body"], "msg": str(detail), "type": "value_error"}]


async def _reply(send: Any, status: int, detail: Any) -> None:
    payload = json.dumps({"detail": error_list(detail) if status == 422 else detail}, default=str).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode())]})
    await send({"type": "http.response.body", "body": payload})
