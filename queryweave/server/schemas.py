"""Request and response models of the HTTP API (pydantic; LangServe shows them in its playground)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from queryweave.tools.common.validation import MAX_QUESTION_CHARS, clean_question, strip_controls, to_text


def _clean_text(value: Any) -> Any:
    """Request text made safe: invalid UTF-8 (lone surrogates) -> U+FFFD, NULs and controls removed."""
    return strip_controls(to_text(value)) if isinstance(value, str) else value


class CleanText(BaseModel):
    """Cleans every string field before validation (length limits then apply to the clean text), and
    questions after it (`clean_question`: spaces normalised; empty is left to the service's 400)."""

    @field_validator("*", mode="before")
    @classmethod
    def _clean_raw(cls, value: Any) -> Any:
        return _clean_text(value)

    @field_validator("question", "resume", "choice", mode="after", check_fields=False)
    @classmethod
    def _clean_question(cls, value: Any) -> Any:
        return clean_question(value, MAX_QUESTION_CHARS, allow_empty=True) if isinstance(value, str) else value


def without_null_branches(schema: dict[str, Any]) -> None:
    """JSON schema hook: `X | None` fields are shown as plain `X` (optional, no default).

    LangServe's playground builds its form with JSON Forms, which throws `Unknown type: {"type":"null"}`
    on an `anyOf` with a null branch and renders a blank page. The fields still accept `null`
    (omitting them is the documented way)."""
    for prop in (schema.get("properties") or {}).values():
        branches = prop.get("anyOf")
        if not branches or not any(b == {"type": "null"} for b in branches):
            continue
        rest = [b for b in branches if b != {"type": "null"}]
        if len(rest) != 1:
            continue
        del prop["anyOf"]
        prop.update(rest[0])
        if prop.get("default", ...) is None:
            del prop["default"]


class AskInput(CleanText):
    """A question for the graph; `thread_id` continues a conversation (a new one is made when empty).
    Unknown fields are rejected (422), so a misspelt `query` is not silently dropped."""

    model_config = ConfigDict(extra="forbid", json_schema_extra=without_null_branches)

    question: str = Field("", max_length=MAX_QUESTION_CHARS, description="The question (zh or en).")
    thread_id: str | None = Field(None, max_length=128, description="Conversation thread; created when empty.")
    image: str | None = Field(None, description="An image as a data: URL or base64 (its text joins the question).")
    audio: str | None = Field(None, description="A spoken question (wav/mp3/ogg/webm) as a data: URL or base64, "
                              "at most 10 MB like images (its transcript joins the question; voice extra).")
    audio_language: Literal["zh", "en"] | None = Field(None, description="The audio's language (else detected).")
    resume: str | None = Field(None, max_length=MAX_QUESTION_CHARS,
                               description="The answer to a pending clarification of `thread_id`.")


class Citation(BaseModel):
    """One cited passage."""

    n: int | None = None
    chunk_id: str | None = None
    source: str | None = None
    title: str = ""
    text: str = ""


class Clarification(BaseModel):
    """The graph paused: a question for the user and the options it offers."""

    question: str = ""
    options: list[str] = Field(default_factory=list)


class AskOutput(BaseModel):
    """The answer, its citations and how it was found; `clarification` when the graph asks first."""

    answer: str = ""
    citations: list[Citation] = Field(default_factory=list)
    thread_id: str | None = None
    intent: str | None = None
    route: str | None = None
    strategy: str | None = None
    k: int | None = None
    confidence: float | None = None
    resolved_query: str | None = None
    backend: str | None = None
    profile: str | None = Field(None, description="The speed/precision profile the answer was found with.")
    degraded: bool = False
    degraded_reasons: list[str] = Field(default_factory=list)
    transcript: str | None = Field(None, description="What was heard in `audio`.")
    timings: dict[str, float] = Field(default_factory=dict)
    clarification: Clarification | None = None
    event: str | None = Field(None, description="In a stream: start | step | token | clarify | answer.")


class ResumeRequest(CleanText):
    """The user's answer to a clarification question."""

    thread_id: str = Field(..., min_length=1, max_length=128)
    choice: str = Field(..., max_length=MAX_QUESTION_CHARS)


class FeedbackRequest(CleanText):
    """Thumbs up or down on the last answer of a thread."""

    thread_id: str = Field(..., min_length=1, max_length=128)
    rating: Literal["up", "down"]
    comment: str = Field("", max_length=2000)
    question: str | None = Field(None, max_length=MAX_QUESTION_CHARS)
    answer: str | None = Field(None, max_length=20000)


class StreamRequest(AskInput):
    """Same as `AskInput`; the answer comes back as server-sent events."""


def jsonable(value: Any) -> Any:
    """A JSON-safe copy of a state value (messages and other objects become strings)."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)
