"""A tiny fake OpenAI-compatible server on loopback for fault tests: `/v1/chat/completions` and
`/v1/embeddings`, switchable between healthy and broken modes while it runs.

Modes: `ok` (a valid reply: a tool call for requests with `tools`, else `text`), `500` (HTTP 500),
`slow` (sleeps `delay_s` before a valid reply), `malformed` (HTTP 200 with a body that is not JSON),
`schema` (a valid envelope whose tool-call arguments violate the schema, and an empty choice list for
plain text), `drop` (closes the connection without answering). Every request is counted per path.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class FakeOpenAI:
    """State shared with the handler: mode, replies and request counts."""

    def __init__(self, mode: str = "ok", text: str = "The default is 100 connections [1].",
                 tool_args: Callable[[str, dict], dict] | None = None, delay_s: float = 2.0) -> None:
        self.mode = mode
        self.text = text
        self.tool_args = tool_args or (lambda name, body: {})
        self.delay_s = delay_s
        self.hits: Counter[str] = Counter()
        self.bodies: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.url = ""

    # -- replies ----------------------------------------------------------------------------------
    def chat(self, body: dict[str, Any]) -> dict[str, Any]:
        """A chat completion for `body` in the current mode."""
        message: dict[str, Any] = {"role": "assistant", "content": self.text}
        if body.get("tools"):
            name = body["tools"][0]["function"]["name"]
            args = {"not_a_field": True} if self.mode == "schema" else self.tool_args(name, body)
            message = {"role": "assistant", "content": None, "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}]}
        choices = [] if self.mode == "schema" and not body.get("tools") else [
            {"index": 0, "message": message, "finish_reason": "stop"}]
        return {"id": "chatcmpl-fake", "object": "chat.completion", "created": int(time.time()),
                "model": body.get("model", "fake"), "choices": choices,
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}

    def embeddings(self, body: dict[str, Any]) -> dict[str, Any]:
        """Deterministic 8-d embeddings for each input."""
        inputs = body.get("input") or []
        inputs = [inputs] if isinstance(inputs, str | int) else inputs
        data = []
        for i, item in enumerate(inputs):
            seed = sum(map(ord, str(item))) or 1
            data.append({"object": "embedding", "index": i, "embedding": [((seed * (j + 3)) % 17) / 17 + 0.01
                                                                            for j in range(8)]})
        return {"object": "list", "data": data, "model": body.get("model", "fake"),
                "usage": {"prompt_tokens": 1, "total_tokens": 1}}


def _handler(state: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:  # quiet
            pass

        def _send(self, status: int, payload: bytes, ctype: str = "application/json") -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            path = self.path.split("?")[0]
            with state.lock:
                state.hits[path] += 1
                mode = state.mode
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = {}
            state.bodies.append(body)
            if mode == "drop":
                self.close_connection = True
                self.connection.close()
                return
            if mode == "500":
                return self._send(500, b'{"error": {"message": "internal error (fake)", "type": "server_error"}}')
            if mode == "slow":
                time.sleep(state.delay_s)
            if mode == "malformed":
                return self._send(200, b"{this is not json")
            if path.endswith("/chat/completions"):
                return self._send(200, json.dumps(state.chat(body)).encode())
            if path.endswith("/embeddings"):
                return self._send(200, json.dumps(state.embeddings(body)).encode())
            return self._send(404, b'{"error": {"message": "no such route"}}')

    return Handler


class _QuietServer(ThreadingHTTPServer):
    """A dropped connection (mode `drop`) is the point, not an error to print on stderr."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass


@contextlib.contextmanager
def fake_openai(**kwargs: Any) -> Iterator[FakeOpenAI]:
    """Run a `FakeOpenAI` on 127.0.0.1:<free port>; `.url` is its `/v1` base URL."""
    state = FakeOpenAI(**kwargs)
    server = _QuietServer(("127.0.0.1", 0), _handler(state))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
