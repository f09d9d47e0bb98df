"""`speech`: when the turn carries audio (a spoken question), transcribe it and merge it into the question.

Runs after `ocr` and before `resolve`, so coreference, intent and retrieval all see the merged
question, as for image text. The audio is consumed (cleared from the state) so the next turn of the
thread does not hear it again. `audio_language` ("zh"/"en") skips language detection. Without the
`voice` extra the question goes on unchanged and the run is flagged degraded with what to install.
The transcript is returned as `transcript`; the merged question is cleaned like a typed one.
"""

from __future__ import annotations

from typing import Any

from queryweave.nodes.common import timed
from queryweave.tools.common.validation import sanitize_question
from queryweave.tools.media.speech import SpeechUnavailable, merge_question, transcribe


@timed("speech")
def speech(state: dict[str, Any], runtime: Any = None) -> dict[str, Any]:
    """Merge the transcript of `state["audio"]` into `question` (a no-op without audio)."""
    audio = state.get("audio")
    if not audio:
        return {}
    question = state.get("question") or ""
    try:
        heard = transcribe(audio, language=state.get("audio_language") or None)
    except SpeechUnavailable as exc:
        return {"audio": "", "degraded": True, "degraded_reasons": [f"speech: {exc}"]}
    except ValueError as exc:
        return {"audio": "", "degraded": True, "degraded_reasons": [f"speech: could not read the audio ({exc})"]}
    if not heard.text:
        return {"audio": "", "transcript": "", "degraded_reasons": ["speech: no speech found in the audio"]}
    cleaned = sanitize_question(merge_question(question, heard.text))
    out: dict[str, Any] = {"audio": "", "question": cleaned.text, "transcript": heard.text}
    if cleaned.notes:
        out["input_notes"] = [*(state.get("input_notes") or []), *(f"transcript: {n}" for n in cleaned.notes)]
    if not question.strip():  # a spoken question alone: answer in its language
        out["language"] = heard.language
    return out
