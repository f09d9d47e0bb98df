"""Jupyter notebooks are ingested as Markdown: prose cells as written, code and short outputs fenced."""

from __future__ import annotations

import json

from queryweave.tools.ingest.loaders import iter_documents


def _notebook(cells: list[dict], **metadata) -> str:
    return json.dumps({"cells": cells, "metadata": {"kernelspec": {"language": "python"}, **metadata},
                       "nbformat": 4, "nbformat_minor": 5})


def test_a_notebook_reads_as_markdown_with_code_and_short_outputs(tmp_path):
    cells = [
        {"cell_type": "markdown", "source": ["# Splitting text\n", "\n", "The splitter's default chunk_size is 4000."]},
        {"cell_type": "code", "source": "splitter = TextSplitter()\nprint(splitter.chunk_size)",
         "outputs": [{"output_type": "stream", "name": "stdout", "text": ["4000\n"]}]},
        {"cell_type": "code", "source": "big()", "outputs": [{"output_type": "execute_result",
                                                              "data": {"text/plain": "x" * 5000}}]},
        {"cell_type": "code", "source": "plot()", "outputs": [{"output_type": "display_data",
                                                               "data": {"image/png": "iVBOR..."}}]},
        {"cell_type": "raw", "source": "ignored"},
    ]
    (tmp_path / "split.ipynb").write_text(_notebook(cells), encoding="utf-8")
    (tmp_path / "bad.ipynb").write_text("{not json", encoding="utf-8")
    docs = list(iter_documents([tmp_path]))
    assert [d.source for d in docs] == ["split.ipynb"]  # the broken notebook is skipped with a warning
    doc = docs[0]
    assert doc.metadata["title"] == "Splitting text" and doc.metadata["content_type"] == "notebook"
    assert "The splitter's default chunk_size is 4000." in doc.text
    assert "```python\nsplitter = TextSplitter()\nprint(splitter.chunk_size)\n```\n\n```text\n4000\n```" in doc.text
    assert "x" * 100 not in doc.text and "iVBOR" not in doc.text and "ignored" not in doc.text
    assert "```python\nbig()\n```" in doc.text


def test_the_notebook_title_from_its_metadata(tmp_path):
    cells = [{"cell_type": "markdown", "source": "## Step one\n\nDo this."}]
    (tmp_path / "a.ipynb").write_text(_notebook(cells, title="Retriever guide"), encoding="utf-8")
    assert next(iter_documents([tmp_path])).metadata["title"] == "Retriever guide"
