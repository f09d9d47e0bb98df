"""OCR for image input: a screenshot or photo attached to a question becomes text (tesseract).

Uses Debian's `tesseract-ocr` (with `-chi-sim` and `-eng`) through `pytesseract`, with the languages
`chi_sim+eng` (whichever of them are installed). `load_image` accepts a file path, a `data:` URL,
base64 text or raw bytes. When tesseract (or pytesseract) is missing, `OcrUnavailable` says what to
install. `merge_question` joins the recognised text to the user's question for retrieval.
"""

from __future__ import annotations

import io
import re
import shutil
from functools import lru_cache
from pathlib import Path
from typing import Any

from queryweave.tools.common.uploads import decode_upload

DEFAULT_LANGS = "chi_sim+eng"
MAX_IMAGE_BYTES = 10 * 1024 * 1024
MAX_MERGED_CHARS = 1200
INSTALL_HINT = ("OCR needs tesseract: `apt-get install tesseract-ocr tesseract-ocr-chi-sim tesseract-ocr-eng` "
                "and `pip install pytesseract`")
_CJK = r"\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef"
_CJK_GAP = re.compile(rf"(?<=[{_CJK}]) +(?=[{_CJK}])")


class OcrUnavailable(RuntimeError):
    """Tesseract or pytesseract is not installed (the message says how to install them)."""


def _pytesseract() -> Any:
    try:
        import pytesseract
    except ImportError as exc:
        raise OcrUnavailable(f"pytesseract is not installed; {INSTALL_HINT}") from exc
    cmd = pytesseract.pytesseract.tesseract_cmd
    if not (Path(cmd).is_file() or shutil.which(cmd)):
        raise OcrUnavailable(f"the tesseract program ({cmd!r}) was not found; {INSTALL_HINT}")
    return pytesseract


@lru_cache(maxsize=4)
def _installed_languages(cmd: str) -> frozenset[str]:
    import pytesseract

    try:
        return frozenset(pytesseract.get_languages(config=""))
    except Exception:  # an old tesseract without --list-langs: assume English only
        return frozenset({"eng"})


def ocr_status() -> str | None:
    """None when OCR works here, else a message saying what is missing."""
    try:
        pt = _pytesseract()
        langs = _installed_languages(pt.pytesseract.tesseract_cmd)
    except OcrUnavailable as exc:
        return str(exc)
    missing = [lang for lang in DEFAULT_LANGS.split("+") if lang not in langs]
    return f"tesseract lacks the language data {missing}; {INSTALL_HINT}" if missing else None


def pick_languages(wanted: str = DEFAULT_LANGS) -> str:
    """The installed subset of `wanted` ("chi_sim+eng"), or raise when none of them is installed."""
    pt = _pytesseract()
    langs = _installed_languages(pt.pytesseract.tesseract_cmd)
    have = [lang for lang in wanted.split("+") if lang in langs]
    if not have:
        raise OcrUnavailable(f"tesseract has none of the languages {wanted!r}; {INSTALL_HINT}")
    return "+".join(have)


def decode_image_bytes(source: str | bytes) -> bytes | None:
    """The bytes of a `data:` URL or of base64 text (None when `source` is neither, e.g. a path)."""
    return decode_upload(source, "image")


def _is_file(text: str) -> bool:
    try:
        return Path(text).expanduser().is_file()
    except OSError:  # a name too long for the file system: not a path
        return False


def load_image(source: str | bytes | Path) -> Any:
    """A PIL image from a path, a `data:` URL, base64 text or raw bytes (ValueError when unreadable)."""
    from PIL import Image, UnidentifiedImageError

    is_file = isinstance(source, Path) or (isinstance(source, str) and len(source) < 1024
                                           and _is_file(source))
    data = None if is_file else decode_image_bytes(source)
    if data is None:
        path = Path(str(source)).expanduser()
        if not _is_file(str(path)):
            raise ValueError(f"image not found: {str(path)[:200]}")
        if path.stat().st_size > MAX_IMAGE_BYTES:
            raise ValueError(f"image too large (over {MAX_IMAGE_BYTES // (1024 * 1024)} MB): {path}")
        data = path.read_bytes()
    if len(data) > MAX_IMAGE_BYTES:
        raise ValueError(f"image too large (over {MAX_IMAGE_BYTES // (1024 * 1024)} MB)")
    try:
        image = Image.open(io.BytesIO(data))
        image.load()
    except (UnidentifiedImageError, OSError) as exc:
        raise ValueError(f"not a readable image ({exc})") from exc
    return image


def prepare(image: Any) -> Any:
    """Grayscale; a tiny crop (under 150 px high) is doubled so its glyphs reach a readable size."""
    from PIL import Image

    img = image.convert("L")
    if img.height < 150:
        img = img.resize((img.width * 2, img.height * 2), Image.BICUBIC)
    return img


def clean_text(text: str) -> str:
    """Tidy tesseract output: no spaces between Chinese characters, collapsed blank lines."""
    lines = [_CJK_GAP.sub("", " ".join(line.split())) for line in text.splitlines()]
    return "\n".join(line for line in lines if line).strip()


def ocr_image(source: str | bytes | Path, langs: str = DEFAULT_LANGS, timeout_s: float = 30.0) -> str:
    """The text in an image (`chi_sim+eng` by default); raises `OcrUnavailable` or `ValueError`."""
    pt = _pytesseract()
    lang = pick_languages(langs)
    image = prepare(load_image(source))
    try:
        raw = pt.image_to_string(image, lang=lang, config="--psm 3", timeout=timeout_s)
    except RuntimeError as exc:  # pytesseract raises RuntimeError on its timeout
        raise ValueError(f"OCR took longer than {timeout_s:g}s") from exc
    return clean_text(raw)


def merge_question(question: str | None, image_text: str, max_chars: int = MAX_MERGED_CHARS) -> str:
    """The query for retrieval: the question followed by the image's text (trimmed)."""
    question = (question or "").strip()
    text = " ".join(image_text.split())[:max_chars].strip()
    if not text:
        return question
    if not question:
        return text
    return f"{question}\n{text}"
