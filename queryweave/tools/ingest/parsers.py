"""Text and metadata out of HTML (BeautifulSoup) and PDF (pypdf) documents, for the loaders."""

from __future__ import annotations

import logging
import re
from pathlib import Path

log = logging.getLogger(__name__)

_DROP_TAGS = ("script", "style", "noscript", "template", "svg", "iframe")
_BLANKS = re.compile(r"\n[ \t]*(?:\n[ \t]*)+")


def _tidy(text: str) -> str:
    """Trim each line and collapse runs of blank lines to one."""
    lines = [line.strip() for line in text.splitlines()]
    return _BLANKS.sub("\n\n", "\n".join(lines)).strip()


def parse_html(html: str) -> tuple[str, dict]:
    """(text, metadata) of an HTML page: scripts and styles dropped, headings kept as Markdown
    `#` lines so the chunker sees the sections; title from <title>, else the first <h1>;
    author, keywords (as tags), date and lang from <meta>/<html lang> when present."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, "html.parser")
    for tag in soup(_DROP_TAGS):
        tag.decompose()
    meta: dict = {}
    if soup.title and soup.title.get_text(strip=True):
        meta["title"] = soup.title.get_text(" ", strip=True)
    elif (h1 := soup.find("h1")) and h1.get_text(strip=True):
        meta["title"] = h1.get_text(" ", strip=True)
    for tag in soup.find_all("meta"):
        name, content = str(tag.get("name") or "").lower(), str(tag.get("content") or "").strip()
        if not content:
            continue
        if name == "author":
            meta["author"] = content
        elif name == "keywords":
            meta["tags"] = [k.strip() for k in content.split(",") if k.strip()]
        elif name in ("date", "dcterms.date", "article:published_time"):
            meta["date"] = content
            if match := re.search(r"(?<!\d)((?:19|20)\d{2})(?!\d)", content):
                meta["year"] = int(match.group(1))
    if soup.html and str(soup.html.get("lang") or "").lower()[:2] in ("zh", "en"):
        meta["lang"] = str(soup.html.get("lang")).lower()[:2]
    body = soup.body or soup
    for level in range(1, 7):
        for heading in body.find_all(f"h{level}"):
            heading.replace_with(f"\n\n{'#' * level} {heading.get_text(' ', strip=True)}\n\n")
    for block in body.find_all(["p", "div", "li", "tr", "br", "pre", "blockquote", "section", "article"]):
        block.insert_after("\n")
    return _tidy(body.get_text()), meta


def parse_pdf(path: Path) -> tuple[str, dict]:
    """(text, metadata) of a PDF: page texts joined by blank lines; title and author from the PDF
    metadata, else the title is the first non-empty line. Raises on a broken or locked file."""
    from pypdf import PdfReader

    reader = PdfReader(str(path))
    if reader.is_encrypted and not reader.decrypt(""):
        raise ValueError("encrypted PDF")
    pages = [_tidy(page.extract_text() or "") for page in reader.pages]
    text = "\n\n".join(p for p in pages if p)
    meta: dict = {"pages": len(reader.pages)}
    info = reader.metadata
    title = str(info.title).strip() if info and info.title else ""
    if not title:
        title = next((line.strip() for line in text.splitlines() if line.strip()), "")[:200]
    if title:
        meta["title"] = title
    if info and info.author:
        meta["author"] = str(info.author).strip()
    return text, meta
