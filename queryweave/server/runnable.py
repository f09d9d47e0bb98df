"""The graph as a LangServe-friendly `Runnable`: `{"question", "thread_id"?, "image"?, "resume"?}` in,
`{"answer", "citations", "thread_id", ...}` out.

`invoke` (and so `batch`) answers through the service (checkpointed threads: pass the returned
`thread_id` back to continue a conversation, with `resume` to answer a clarification). `stream`
yields the progress events of `queryweave.server.progress` — `step` events while nodes run, then one
`answer` (or `clarify`) event carrying the full output.

Per-request configuration (LangServe's `config={"configurable": {...}}`, listed in `config_schema`):
`thread_id` (used when the input has none: `RemoteRunnable(...).invoke(x, config={"configurable":
{"thread_id": t}})` continues thread `t`), `profile` (fast | balanced | accurate) and `features`
(switches such as "clarify=off", applied before the server's own).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Any, Literal

from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.runnables.config import run_in_executor
from langchain_core.runnables.utils import ConfigurableFieldSpec
from pydantic import BaseModel

from queryweave.server.schemas import AskInput, AskOutput
from queryweave.server.service import QueryService, ServiceError

_DONE = object()


def _fields(value: Any) -> dict[str, Any]:
    if isinstance(value, BaseModel):
        value = value.model_dump()
    if isinstance(value, str):
        value = {"question": value}
    if not isinstance(value, dict):
        raise TypeError(f"expected {{'question': ...}}, got {type(value).__name__}")
    return {k: value.get(k) for k in ("question", "thread_id", "image", "resume", "audio", "audio_language")}


Profile = Literal["fast", "balanced", "accurate"]
CONFIG_KEYS = ("thread_id", "profile", "features")


def options_of(config: RunnableConfig | None) -> dict[str, Any]:
    """The per-request options in `config["configurable"]` (empty values left out)."""
    configurable = (config or {}).get("configurable") or {}
    return {k: configurable[k] for k in CONFIG_KEYS if isinstance(configurable.get(k), str) and configurable[k]}


def _with_options(fields: dict[str, Any], config: RunnableConfig | None) -> dict[str, Any]:
    options = options_of(config)
    thread_id = options.pop("thread_id", None)
    if not fields.get("thread_id") and thread_id:
        fields = {**fields, "thread_id": thread_id}
    return {**fields, "options": options}


class QueryWeaveRunnable(Runnable[dict, dict]):
    """QueryWeave's graph behind one `QueryService`, with typed input and output for LangServe."""

    name: str = "queryweave"

    def __init__(self, service: QueryService) -> None:
        self.service = service

    @property
    def InputType(self) -> type[AskInput]:  # noqa: N802 - LangChain's name
        """The input model."""
        return AskInput

    @property
    def OutputType(self) -> type[AskOutput]:  # noqa: N802 - LangChain's name
        """The output model."""
        return AskOutput

    @property
    def config_specs(self) -> list[ConfigurableFieldSpec]:
        """What `config["configurable"]` may carry (LangServe's `config_schema` and playground)."""
        ctx = self.service.ctx
        return [
            ConfigurableFieldSpec(id="thread_id", annotation=str, name="Thread id", default="",
                                  description="Conversation thread to continue when the input has no "
                                  "`thread_id` (empty: a new thread)."),
            ConfigurableFieldSpec(id="profile", annotation=Profile, name="Profile", default=ctx.profile,
                                  description="Speed/precision profile: fast | balanced | accurate."),
            ConfigurableFieldSpec(id="features", annotation=str, name="Features", default="",
                                  description="Feature switches for this request, e.g. 'clarify=off,hyde=on' "
                                  "(before the server's own)."),
        ]

    def get_input_schema(self, config: RunnableConfig | None = None) -> type[BaseModel]:
        """The input model (shown in the playground)."""
        return AskInput

    def get_output_schema(self, config: RunnableConfig | None = None) -> type[BaseModel]:
        """The output model."""
        return AskOutput

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> dict[str, Any]:
        """Answer one question (or resume a clarification)."""
        return self._call_with_config(lambda x: self.service.ask(**_with_options(_fields(x), config)),
                                      input, config)

    def stream(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Iterator[dict[str, Any]]:
        """Progress events, ending with the `answer` or `clarify` event (or an `error` event with the
        status a plain request would get, e.g. 400 for an empty question, instead of a 500)."""
        try:
            events = self.service.stream(**_with_options(_fields(input), config))
        except ServiceError as exc:
            yield {"event": "error", "status": exc.status, "message": str(exc)}
            return
        yield from events

    async def astream(self, input: Any, config: RunnableConfig | None = None,
                      **kwargs: Any) -> AsyncIterator[dict[str, Any]]:
        """`stream` on a worker thread, one event at a time."""
        events = await run_in_executor(config, lambda: self.stream(input, config))
        while True:
            event = await run_in_executor(config, next, events, _DONE)
            if event is _DONE:
                return
            yield event
            await asyncio.sleep(0)
