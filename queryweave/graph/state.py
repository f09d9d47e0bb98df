"""Graph state: a `typing_extensions.TypedDict` (LangServe needs it on Python 3.11) with reducers.

`InputState` is what a caller sends, `OutputState` what comes back; `State` is everything the nodes
share. Lists that grow across the reflection loop (`attempts`, `degraded_reasons`) and the
per-node `timings` have reducers so each node returns only what it adds;
`resolve`, the first node of a turn, resets them by returning None.
"""

from __future__ import annotations

from typing import Annotated, Any

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages
from typing_extensions import TypedDict


def merge_dicts(left: dict | None, right: dict | None) -> dict:
    """Reducer: shallow-merge dictionaries (later values win); `None` resets (a new turn)."""
    if right is None:
        return {}
    return {**(left or {}), **right}


def extend_list(left: list | None, right: list | None) -> list:
    """Reducer: append items; `None` resets (a new turn)."""
    if right is None:
        return []
    return [*(left or []), *right]


def extend_unique(left: list | None, right: list | None) -> list:
    """Reducer: append the items not already there (a reason repeated by a re-query is said once);
    `None` resets (a new turn)."""
    if right is None:
        return []
    out = list(left or [])
    out += [x for x in dict.fromkeys(right) if x not in out]
    return out


class InputState(TypedDict, total=False):
    """What a caller sends: the question (and optionally an image's path for OCR, audio for speech-to-text)."""

    question: str
    image: str
    audio: str  # a path, data: URL or base64 of a spoken question (nodes/speech.py)
    audio_language: str  # "zh" / "en" to skip language detection


class OutputState(TypedDict, total=False):
    """What a caller gets back."""

    question: str
    answer: str
    citations: list[dict[str, Any]]
    confidence: float
    confidence_features: dict[str, float]  # what `confidence` was computed from (tools/grounding/confidence.py)
    low_confidence: bool
    abstained: bool
    missing_terms: list[str]
    nearest: list[dict[str, Any]]
    withheld: dict[str, Any]  # an answer declined for low confidence: answer, citations, confidence
    resolved_query: str
    needs_retrieval: bool
    intent: str
    strategy: str
    route: str
    route_reason: str
    k: int
    clarification: dict[str, Any] | None
    sql: str
    cypher: str
    rows: list[dict[str, Any]]
    verdicts: list[dict[str, Any]]
    attempts: Annotated[list[dict[str, Any]], extend_list]
    degraded: bool
    degraded_reasons: Annotated[list[str], extend_unique]
    timings: Annotated[dict[str, float], merge_dicts]
    backend: str
    input_notes: list[str]
    transcript: str  # what `speech` heard


class State(InputState, OutputState, total=False):
    """The full state the nodes share."""

    messages: Annotated[list[AnyMessage], add_messages]
    image_text: str  # text read from this turn's image (pasted logs and screenshots name many things)
    language: str
    constraints: dict[str, Any]
    complexity: dict[str, Any]
    ambiguity: dict[str, Any]
    filters: dict[str, Any] | None
    filter_notes: list[str]
    search_hints: list[str]  # conversation phrases retrieval searches beside a follow-up (resolve)
    answer_units: list[str]  # an extractive answer's rendered units, in order (their vectors are stored at ingest)
    queries: list[str]
    sub_questions: list[str]
    candidates: list[dict[str, Any]]
    documents: list[dict[str, Any]]
    grade: dict[str, Any]
    reflection: dict[str, Any]
    attempt: int
