"""Document loaders: folders of Markdown (and MDX), reStructuredText, Word (.docx), notebooks (.ipynb), text,
HTML, PDF and BEIR `corpus.jsonl` -> `SourceDoc`s.

Walks folders in sorted order (hidden files and folders skipped), reads each file with the loader for
its suffix and gathers metadata from YAML front matter, the document itself or its path. A file that
cannot be read (undecodable, broken PDF, invalid front matter) is logged as a warning and skipped.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from queryweave.tools.common.site_markup import strip_site_markup
from queryweave.tools.common.text import detect_language, prose_language
from queryweave.tools.ingest.chunking import headings
from queryweave.tools.ingest.docx import parse_docx
from queryweave.tools.ingest.mdx import strip_mdx
from queryweave.tools.ingest.notebook import parse_notebook
from queryweave.tools.ingest.parsers import parse_html, parse_pdf
from queryweave.tools.ingest.rst import parse_rst

log = logging.getLogger(__name__)

MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdx")
HTML_SUFFIXES = (".html", ".htm")
BEIR_CORPUS = "corpus.jsonl"
_YEAR = re.compile(r"(?<!\d)((?:19|20)\d{2})(?!\d)")
_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.S)


@dataclass
class SourceDoc:
    """One loaded document: a stable `source` id, its plain text and its metadata."""

    source: str
    text: str
    metadata: dict = field(default_factory=dict)


class LoadError(Exception):
    """A file that cannot be loaded; the message says why."""


def file_fingerprint(path: str | Path) -> str:
    """Hex sha256 of the file's bytes (ingest compares it to spot changed files)."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _walk(paths: list[str | Path]) -> Iterator[tuple[Path, Path]]:
    """(file, root) pairs for every non-hidden file under `paths`, sorted, each file once."""
    seen: set[Path] = set()
    for given in paths:
        path = Path(given)
        if path.is_file():
            candidates = [(path, path.parent)]
        elif path.is_dir():
            candidates = []
            for dirpath, dirnames, filenames in os.walk(path):
                dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
                candidates += [(Path(dirpath) / f, path) for f in filenames if not f.startswith(".")]
            candidates.sort(key=lambda pair: pair[0].relative_to(path).parts)
        else:
            log.warning("skipping %s: no such file or folder", path)
            continue
        for file, root in candidates:
            key = file.resolve()
            if key not in seen:
                seen.add(key)
                yield file, root


def _read_text(path: Path) -> str:
    """File text as UTF-8 (BOM dropped), else GB18030, else UTF-8 with replacement characters."""
    data = path.read_bytes()
    if b"\x00" in data[:8192]:
        raise LoadError("binary content (NUL bytes), not text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    try:
        text = data.decode("gb18030")
        log.info("%s: not UTF-8, read as GB18030", path)
        return text
    except UnicodeDecodeError:
        pass
    text = data.decode("utf-8", errors="replace")
    if text.count("\ufffd") > max(8, len(text) // 50):
        raise LoadError("undecodable bytes (neither UTF-8 nor GB18030)")
    log.warning("%s: invalid UTF-8 bytes replaced with U+FFFD", path)
    return text


def _scalar(value):
    """Front-matter value kept as metadata: scalars, dates as ISO text, lists as lists of str."""
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, list | tuple):
        items = [str(_scalar(v)) for v in value if isinstance(v, str | int | float | bool | dt.date)]
        return items or None
    return None


def _split_front_matter(text: str) -> tuple[dict, str]:
    """(front matter dict, body); raises LoadError on YAML that does not parse to a mapping."""
    match = _FRONT_MATTER.match(text)
    if not match:
        return {}, text
    try:
        data = yaml.safe_load(match.group(1)) or {}
    except yaml.YAMLError as exc:
        raise LoadError(f"invalid YAML front matter: {str(exc).splitlines()[0]}") from exc
    if not isinstance(data, dict):
        raise LoadError("front matter is not a YAML mapping")
    return data, text[match.end() :]


def _year_of(value) -> int | None:
    if isinstance(value, dt.date):
        return value.year
    if isinstance(value, int) and 1000 <= value <= 9999:
        return value
    match = _YEAR.search(str(value)) if value is not None else None
    return int(match.group(1)) if match else None


def _path_meta(path: Path, root: Path) -> dict:
    """Year and tags from the path below the root: 19xx/20xx components, folder names."""
    rel = path.relative_to(root)
    folders = list(rel.parts[:-1])
    meta: dict = {}
    for part in [path.stem, *reversed(folders)]:
        if (year := _year_of(part)) is not None:
            meta["year"] = year
            break
    tags = [f for f in folders if not re.fullmatch(r"(?:19|20)\d{2}", f)]
    if tags:
        meta["tags"] = tags
    return meta


def _finish(path: Path, root: Path, text: str, content_type: str, found: dict, front: dict) -> SourceDoc:
    """Merge metadata (front matter > document > path), add source, lang, title and content_type."""
    source = path.relative_to(root).as_posix()
    meta: dict = {"content_type": content_type, **_path_meta(path, root)}
    meta.update({k: v for k, v in found.items() if v not in (None, "", [])})
    for key, value in front.items():
        if (kept := _scalar(value)) is not None:
            meta[str(key)] = kept
    if (year := _year_of(front.get("year", front.get("date")))) is not None:
        meta["year"] = year
    elif "year" in meta and not isinstance(meta["year"], int):
        meta.pop("year")
    if isinstance(meta.get("tags"), str):
        meta["tags"] = [t.strip() for t in meta["tags"].split(",") if t.strip()]
    meta["title"] = str(meta.get("title") or path.stem)
    if meta.get("lang") not in ("zh", "en"):
        meta["lang"] = prose_language(text)
    meta["source"] = source
    return SourceDoc(source=source, text=text, metadata=meta)


def _load_markdown(path: Path, root: Path) -> Iterator[SourceDoc]:
    front, body = _split_front_matter(_read_text(path))
    if path.suffix.lower() == ".mdx":  # Markdown with JavaScript: imports, exports, component tags
        body = strip_mdx(body)
    body = strip_site_markup(body)  # MkDocs / Docusaurus includes and admonition fences are no text
    found = {"title": next(iter(headings(body)), None)}
    yield _finish(path, root, body.strip(), "markdown", found, front)


def _load_text(path: Path, root: Path) -> Iterator[SourceDoc]:
    yield _finish(path, root, _read_text(path).strip(), "text", {}, {})


def _load_html(path: Path, root: Path) -> Iterator[SourceDoc]:
    text, found = parse_html(_read_text(path))
    yield _finish(path, root, text, "html", found, {})


def _load_pdf(path: Path, root: Path) -> Iterator[SourceDoc]:
    text, found = parse_pdf(path)
    yield _finish(path, root, text, "pdf", found, {})


def _load_docx(path: Path, root: Path) -> Iterator[SourceDoc]:
    try:
        text, found = parse_docx(path)
    except Exception as exc:  # a corrupt file or one that is no Word document
        raise LoadError(f"not a readable Word document ({type(exc).__name__})") from exc
    yield _finish(path, root, text, "docx", found, {})


def _load_notebook(path: Path, root: Path) -> Iterator[SourceDoc]:
    try:
        text, found = parse_notebook(path)
    except (ValueError, UnicodeDecodeError) as exc:
        raise LoadError(f"not a readable notebook ({type(exc).__name__})") from exc
    text = strip_site_markup(text)
    yield _finish(path, root, text, "notebook", found, {})


def _load_rst(path: Path, root: Path) -> Iterator[SourceDoc]:
    front, body = _split_front_matter(_read_text(path))
    try:
        text, found = parse_rst(body)
    except Exception as exc:  # docutils gave up on the page (its errors are reported, not raised, as a rule)
        raise LoadError(f"not readable as reStructuredText ({type(exc).__name__})") from exc
    yield _finish(path, root, text, "rst", found, front)


def _load_beir(path: Path, root: Path) -> Iterator[SourceDoc]:
    """One SourceDoc per corpus row; the title, when there is one, is the text's first line."""
    base = path.relative_to(root).as_posix()
    with open(path, encoding="utf-8", errors="replace") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                doc_id = str(row["_id"])
            except (ValueError, KeyError, TypeError):
                log.warning("%s:%d: skipping row: not a JSON object with an _id", path, lineno)
                continue
            title = str(row.get("title") or "").strip()
            body = str(row.get("text") or "").strip()
            text = f"{title}\n\n{body}" if title and not body.startswith(title) else body or title
            if not text:
                continue
            meta = {
                "title": title or doc_id,
                "source": f"{base}#{doc_id}",
                "content_type": "beir",
                "lang": detect_language(text[:4000]),
                "doc_id": doc_id,
            }
            yield SourceDoc(source=meta["source"], text=text, metadata=meta)


def _loader_for(path: Path) -> Callable[[Path, Path], Iterator[SourceDoc]] | None:
    suffix = path.suffix.lower()
    if path.name == BEIR_CORPUS:
        return _load_beir
    if suffix in MARKDOWN_SUFFIXES:
        return _load_markdown
    if suffix == ".txt":
        return _load_text
    if suffix in HTML_SUFFIXES:
        return _load_html
    if suffix == ".pdf":
        return _load_pdf
    if suffix == ".docx":
        return _load_docx
    if suffix == ".ipynb":
        return _load_notebook
    if suffix == ".rst":
        return _load_rst
    return None


def iter_documents(paths: list[str | Path]) -> Iterator[SourceDoc]:
    """Every document under `paths` (files or folders), in a stable order; bad files are skipped.

    `source` is the path relative to the folder given (the file name for a file given directly), or
    `<that path>#<_id>` for rows of a BEIR `corpus.jsonl`. Metadata never holds absolute paths, so
    moving the folder changes nothing.
    """
    for path, root in _walk(paths):
        loader = _loader_for(path)
        if loader is None:
            beir_companion = path.name == "queries.jsonl" or "qrels" in path.as_posix()
            log.log(
                logging.INFO if beir_companion else logging.WARNING,
                "skipping %s: unsupported file type",
                path,
            )
            continue
        try:
            # rows of a BEIR corpus stream (bad rows are skipped one by one); other files load whole
            docs = loader(path, root) if loader is _load_beir else list(loader(path, root))
        except LoadError as exc:
            log.warning("skipping %s: %s", path, exc)
            continue
        except Exception as exc:  # a broken file must never stop an ingest
            log.warning("skipping %s: %s: %s", path, type(exc).__name__, exc)
            continue
        for doc in docs:
            if doc.text.strip():
                yield doc
            else:
                log.warning("skipping %s: no text", doc.source)


def count_documents(paths: list[str | Path]) -> int:
    """How many documents `iter_documents` will roughly yield (files, plus rows of corpus.jsonl)."""
    total = 0
    for path, _root in _walk(paths):
        loader = _loader_for(path)
        if loader is _load_beir:
            with open(path, "rb") as fh:
                total += sum(1 for line in fh if line.strip())
        elif loader is not None:
            total += 1
    return total
