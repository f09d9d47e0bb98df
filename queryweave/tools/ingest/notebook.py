"""Jupyter notebooks (`.ipynb`) as Markdown: markdown cells as written, code cells as fenced code.

Documentation sites built from notebooks (LangChain's, many ML projects') keep their prose in markdown
cells and their examples in code cells. A code cell becomes a fenced block in the notebook's language
(from its metadata); its text outputs (a printed value, a result) follow as a fenced `text` block when
short, since they often hold the fact ("[Document(page_content=…)]", "200"). Images, HTML outputs and
widget state are not text and are left out. Title from the notebook's metadata, else its first heading.
"""

from __future__ import annotations

import json
from pathlib import Path

OUTPUT_CHARS = 1500  # a longer output (a dump, a log) is left out


def _source(cell: dict) -> str:
    src = cell.get("source") or ""
    return "".join(src) if isinstance(src, list) else str(src)


def _outputs(cell: dict) -> str:
    texts: list[str] = []
    for out in cell.get("outputs") or []:
        if out.get("output_type") == "stream":
            texts.append(_source({"source": out.get("text")}))
        elif out.get("output_type") in ("execute_result", "display_data"):
            plain = (out.get("data") or {}).get("text/plain")
            if plain is not None:
                texts.append(_source({"source": plain}))
    text = "".join(texts).strip()
    return text if len(text) <= OUTPUT_CHARS else ""


def parse_notebook(path: Path) -> tuple[str, dict]:
    """(Markdown text, metadata) of a notebook. Raises ValueError on a file that is not one."""
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        raise ValueError("no notebook cells")
    meta_nb = data.get("metadata") or {}
    language = str((meta_nb.get("kernelspec") or {}).get("language")
                    or (meta_nb.get("language_info") or {}).get("name") or "python")
    blocks: list[str] = []
    for cell in data["cells"]:
        text = _source(cell).strip()
        if not text:
            continue
        if cell.get("cell_type") == "markdown":
            blocks.append(text)
        elif cell.get("cell_type") == "code":
            blocks.append(f"```{language}\n{text}\n```")
            if output := _outputs(cell):
                blocks.append(f"```text\n{output}\n```")
    meta: dict = {}
    title = str(meta_nb.get("title") or "").strip()
    if not title:
        title = next((line.lstrip("#").strip() for block in blocks if not block.startswith("```")
                      for line in block.splitlines() if line.startswith("#")), "")
    if title:
        meta["title"] = title[:200]
    return "\n\n".join(blocks), meta
