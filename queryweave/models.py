"""The three model back-ends behind one interface: `openai`, `llamacpp` and `rules`.

- `openai`: `langchain_openai.ChatOpenAI` against any OpenAI-compatible URL (OpenAI, vLLM, Ollama,
  llama.cpp server). Structured output goes through function calling.
- `llamacpp`: a local GGUF file through llama-cpp-python (`ChatLlamaCpp`, grammar-constrained
  tool calls). Install the `llamacpp` extra.
- `rules`: no LLM at all. `get_chat_model` returns None and every node uses its rule layer.
- `auto`: the first one that is configured (an endpoint URL or API key, then a GGUF path, then rules).

`structured(...)` never raises: on any failure (endpoint down, timeout, HTTP 500, JSON that violates
the schema) it returns None after bounded retries, and the caller falls back to its rule layer;
`call_structured(...)` also says why, so nodes can report `degraded: true` with the reason.
An endpoint that is unreachable (connection refused, timeout, HTTP 5xx, a body that is not JSON)
after the retries is skipped for `QUERYWEAVE_LLM_COOLDOWN` seconds (30): later steps of the same
run, and other runs, degrade at once instead of each waiting through their own retries.

Slow local models: the latency of successful calls is tracked per endpoint; the request timeout of
an OpenAI-compatible model becomes max(configured, `QUERYWEAVE_LLM_TIMEOUT_FACTOR` (3) x the p90 of
the recent latencies) within `QUERYWEAVE_LLM_TIMEOUT_CAP` (600 s). A timeout on an endpoint whose
recent calls succeeded (slow but alive) counts as a latency of at least that timeout, is retried once
with the longer timeout and starts no cool-down; an endpoint with no recent success, or two
timeouts in a row, cools down as before.
"""

from __future__ import annotations

import logging
import os
import time
from collections import deque
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

from langchain_core.language_models import BaseChatModel
from pydantic import BaseModel

log = logging.getLogger(__name__)
T = TypeVar("T", bound=BaseModel)


@dataclass(frozen=True)
class ModelSettings:
    """What the model layer needs to know: the back-end and its endpoint, model and timeout.

    `Context.model_settings()` builds one; the model layer never sees the run's whole configuration."""

    llm: str = "auto"
    openai_base_url: str = ""
    openai_model: str = "gpt-4o-mini"
    llamacpp_model_path: str = ""
    llm_timeout_s: float = 60.0


def model_settings(settings: Any) -> ModelSettings:
    """`settings` as `ModelSettings`: itself, what its `model_settings()` builds (a `Context`), or
    the same-named attributes of any other object."""
    if isinstance(settings, ModelSettings):
        return settings
    if callable(getattr(settings, "model_settings", None)):
        return settings.model_settings()
    default = ModelSettings()
    return ModelSettings(**{name: getattr(settings, name, getattr(default, name))
                            for name in ModelSettings.__dataclass_fields__})


def resolve_backend(settings: ModelSettings | Any) -> str:
    """The back-end `settings.llm` names, with `auto` resolved to the first configured one."""
    s = model_settings(settings)
    choice = (s.llm or "auto").lower()
    if choice != "auto":
        return choice
    if s.openai_base_url or os.environ.get("OPENAI_API_KEY"):
        return "openai"
    if s.llamacpp_model_path and Path(s.llamacpp_model_path).exists():
        return "llamacpp"
    return "rules"


@lru_cache(maxsize=4)
def _openai(base_url: str, model: str, timeout: float) -> BaseChatModel:
    from langchain_openai import ChatOpenAI

    return ChatOpenAI(
        model=model,
        base_url=base_url or None,
        api_key=os.environ.get("OPENAI_API_KEY") or "not-needed",
        timeout=timeout,
        max_retries=1,
        temperature=0,
        # llama.cpp's server ignores `max_completion_tokens`; send max_tokens in the body itself.
        extra_body={"max_tokens": int(os.environ.get("QUERYWEAVE_MAX_TOKENS", "512"))},
    )


@lru_cache(maxsize=2)
def _llamacpp(path: str) -> BaseChatModel:
    try:
        from langchain_community.chat_models import ChatLlamaCpp
    except ImportError as exc:  # pragma: no cover
        raise ValueError("the llamacpp back-end needs `pip install 'queryweave[llamacpp]'`") from exc
    if not Path(path).exists():
        raise ValueError(f"GGUF model not found: {path}")
    return ChatLlamaCpp(
        model_path=path,
        temperature=0,
        n_ctx=int(os.environ.get("QUERYWEAVE_LLAMACPP_CTX", "4096")),
        max_tokens=int(os.environ.get("QUERYWEAVE_MAX_TOKENS", "512")),
        n_threads=os.cpu_count() or 2,
        verbose=False,
    )


def get_chat_model(settings: ModelSettings | Any) -> BaseChatModel | None:
    """The configured chat model, or None for the `rules` back-end (`settings`: see `model_settings`)."""
    s = model_settings(settings)
    backend = resolve_backend(s)
    if backend == "rules":
        return None
    if backend == "openai":
        return _openai(s.openai_base_url, s.openai_model, float(s.llm_timeout_s))
    if backend == "llamacpp":
        return _llamacpp(s.llamacpp_model_path)
    raise ValueError(f"unknown LLM back-end {backend!r}: use auto, openai, llamacpp or rules")


_COOLDOWN: dict[int, tuple[float, str]] = {}
_TRANSPORT_NAMES = {"APIConnectionError", "APITimeoutError", "InternalServerError", "TransportError",
                    "TimeoutException", "ConnectionError", "TimeoutError", "JSONDecodeError"}


def endpoint_fault(exc: BaseException) -> bool:
    """Whether `exc` says the endpoint itself is unusable (down, slow, 5xx, non-JSON body), as
    opposed to one bad answer (a reply that violates the schema) that a retry may fix."""
    names = {c.__name__ for c in type(exc).__mro__}
    status = getattr(exc, "status_code", None)
    return bool(names & _TRANSPORT_NAMES) or (isinstance(status, int) and status >= 500)


def _cooling(llm: Any) -> str | None:
    until, reason = _COOLDOWN.get(id(llm), (0.0, ""))
    if time.monotonic() < until:
        return f"LLM endpoint unavailable, not retried for {until - time.monotonic():.0f}s more (last error: {reason})"
    return None


def _cool_down(llm: Any, exc: BaseException, error: str) -> None:
    if endpoint_fault(exc):
        _COOLDOWN[id(llm)] = (time.monotonic() + float(os.environ.get("QUERYWEAVE_LLM_COOLDOWN", "30")), error)


def _is_timeout(exc: BaseException) -> bool:
    return any("Timeout" in c.__name__ for c in type(exc).__mro__)


_LATENCY: dict[int, deque[float]] = {}  # per endpoint: recent latencies (timeouts as lower bounds)
_ALIVE: dict[int, tuple[int, int]] = {}  # per endpoint: (successes in the window, timeouts in a row)


def _configured_timeout(llm: Any) -> float | None:
    value = getattr(llm, "request_timeout", None)
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _timeout_for(llm: Any) -> float | None:
    """The request timeout for the next call: max(configured, k x p90 of recent latencies), capped."""
    base = _configured_timeout(llm)
    seen = sorted(_LATENCY.get(id(llm), ()))
    if base is None or not seen:
        return None
    p90 = seen[min(len(seen) - 1, int(0.9 * len(seen)))]
    factor = float(os.environ.get("QUERYWEAVE_LLM_TIMEOUT_FACTOR", "3"))
    return min(max(base, float(os.environ.get("QUERYWEAVE_LLM_TIMEOUT_CAP", "600"))), max(base, factor * p90))


def _observe(llm: Any, seconds: float, ok: bool) -> bool:
    """Record one call's outcome; returns True when a timeout hit an endpoint that is slow but alive
    (recent successes, not two timeouts in a row): retry it with the longer timeout, no cool-down."""
    if _configured_timeout(llm) is None:
        return False
    _LATENCY.setdefault(id(llm), deque(maxlen=20)).append(seconds)
    wins, in_a_row = _ALIVE.get(id(llm), (0, 0))
    _ALIVE[id(llm)] = (min(wins + 1, 20), 0) if ok else (wins, in_a_row + 1)
    return not ok and wins > 0 and in_a_row == 0


def _invoke(llm: Any, run: Any) -> Any:
    """`run(timeout)` with the endpoint's current timeout, recording its latency."""
    timeout = _timeout_for(llm)
    start = time.monotonic()
    try:
        out = run(timeout)
    except Exception as exc:
        if _is_timeout(exc):
            exc.slow_but_alive = _observe(llm, timeout or _configured_timeout(llm) or 0.0, ok=False)  # type: ignore[attr-defined]
        raise
    _observe(llm, time.monotonic() - start, ok=True)
    return out


def _timeout_kwargs(timeout: float | None) -> dict[str, float]:
    return {} if timeout is None else {"timeout": timeout}


@dataclass
class StructuredResult:
    """What a structured call produced: the parsed value, or None with the error that stopped it."""

    value: Any
    error: str | None = None


def _structured_runnable(llm: BaseChatModel, schema: type[T], timeout: float | None = None) -> Any:
    """Structured output by function calling; ChatLlamaCpp takes no `method` (its tool calls are
    grammar-constrained JSON already). `timeout` overrides the request timeout of this call."""
    if type(llm).__name__ == "ChatLlamaCpp":
        return llm.with_structured_output(schema)
    return llm.with_structured_output(schema, method="function_calling", **_timeout_kwargs(timeout))


def call_structured(
    llm: BaseChatModel | None, schema: type[T], messages: Any, retries: int = 2, backoff_s: float = 0.5
) -> StructuredResult:
    """Ask `llm` for an instance of `schema` via function calling, with retries and backoff."""
    if llm is None:
        return StructuredResult(None, "no LLM configured")
    if (cooling := _cooling(llm)) is not None:
        return StructuredResult(None, cooling)
    error = "unknown error"
    fault: BaseException | None = None
    for attempt in range(retries + 1):
        try:
            out = _invoke(llm, lambda t: _structured_runnable(llm, schema, t).invoke(messages))
            if isinstance(out, schema):
                return StructuredResult(out)
            if isinstance(out, dict):
                return StructuredResult(schema.model_validate(out))
            error = f"model returned {type(out).__name__}, not {schema.__name__}"
        except Exception as exc:  # endpoint down, timeout, 500, schema violation...
            error, fault = f"{type(exc).__name__}: {str(exc)[:200]}", exc
            if getattr(exc, "slow_but_alive", False) and attempt < retries:
                fault = None  # slow but alive: try again at once with the longer timeout
                continue
            if _is_timeout(exc):  # it already waited the whole timeout: do not wait it again
                break
        if attempt < retries:
            time.sleep(backoff_s * (2**attempt))
    if fault is not None:
        _cool_down(llm, fault, error)
    log.warning("structured call failed after %d tries: %s", attempt + 1, error)
    return StructuredResult(None, error)


def structured(llm: BaseChatModel | None, schema: type[T], messages: Any, retries: int = 2) -> T | None:
    """`call_structured(...).value`: the parsed object, or None when anything failed."""
    return call_structured(llm, schema, messages, retries=retries).value


def call_text(llm: BaseChatModel | None, messages: Any, retries: int = 2, backoff_s: float = 0.5) -> StructuredResult:
    """Plain text completion with retries; `.value` is the text or None, `.error` says why."""
    if llm is None:
        return StructuredResult(None, "no LLM configured")
    if (cooling := _cooling(llm)) is not None:
        return StructuredResult(None, cooling)
    error = "unknown error"
    for attempt in range(retries + 1):
        try:
            return StructuredResult(str(_invoke(llm, lambda t: llm.invoke(messages, **_timeout_kwargs(t))).content))
        except Exception as exc:
            error = f"{type(exc).__name__}: {str(exc)[:200]}"
            if getattr(exc, "slow_but_alive", False) and attempt < retries:
                continue  # slow but alive: try again at once with the longer timeout
            if _is_timeout(exc) or attempt == retries:
                _cool_down(llm, exc, error)
                break
        time.sleep(backoff_s * (2**attempt))
    return StructuredResult(None, error)
