"""`ocr`: when the turn carries an image (a screenshot, a photo), read its text and merge it into the question.

Runs before `resolve`, so coreference, intent and retrieval all see the merged question. The image is
consumed (cleared from the state) so the next turn of the thread does not read it again. Without
tesseract the question goes on unchanged and the run is flagged degraded with a clear reason.
The merged question is cleaned like a typed one (`tools.common.validation.sanitize_question`: control and
invisible characters removed, the length capped at `MAX_QUESTION_CHARS`, the question's own text kept
first); what cleaning changed is added to `input_notes`.
"""

from __future__ import annotations

from typing import Any

from queryweave.nodes.common import timed
from queryweave.tools.common.text import detect_language
from queryweave.tools.common.validation import sanitize_question
from queryweave.tools.media.ocr import OcrUnavailable, merge_question, ocr_image


@timed("ocr")
def ocr(state: dict[str, Any], runtime: Any = None) -> dict[str, Any]:
    """Merge the text of `state["image"]` into `question` (a no-op without an image)."""
    image = state.get("image")
    if not image:
        return {}
    question = state.get("question") or ""
    try:
        text = ocr_image(image)
    except OcrUnavailable as exc:
        return {"image": "", "degraded": True, "degraded_reasons": [f"ocr: {exc}"]}
    except ValueError as exc:
        return {"image": "", "degraded": True, "degraded_reasons": [f"ocr: could not read the image ({exc})"]}
    if not text:
        return {"image": "", "degraded_reasons": ["ocr: no text found in the image"]}
    cleaned = sanitize_question(merge_question(question, text))
    out: dict[str, Any] = {"image": "", "question": cleaned.text, "image_text": text}
    if cleaned.notes:
        out["input_notes"] = [*(state.get("input_notes") or []), *(f"image text: {n}" for n in cleaned.notes)]
    if not question.strip():  # an image alone: answer in the image's language
        out["language"] = detect_language(cleaned.text)
    return out
