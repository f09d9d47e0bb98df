"""Uploaded bytes sent as text: a `data:` URL or bare base64 (images for OCR, recordings for speech)."""

from __future__ import annotations

import base64
import binascii
import re

_BASE64 = re.compile(r"[A-Za-z0-9+/=\s]+")


def decode_upload(source: str | bytes, what: str = "upload") -> bytes | None:
    """The bytes of a `data:` URL or of base64 text; None when `source` is neither (e.g. a path).

    A `data:` URL that is not base64-encoded is a `ValueError` naming `what` ("image", "audio")."""
    if isinstance(source, bytes):
        return source
    text = source.strip()
    if text.startswith("data:"):
        header, _, text = text.partition(",")
        if ";base64" not in header:
            raise ValueError(f"a data: URL {what} must be base64-encoded")
    elif len(text) < 128 or not _BASE64.fullmatch(text[:4096]):
        return None
    try:
        return base64.b64decode(re.sub(r"\s+", "", text), validate=True)
    except (binascii.Error, ValueError):
        return None
