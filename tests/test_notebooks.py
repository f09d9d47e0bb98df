"""The notebooks run top to bottom (nbclient, kernel python3), so they never rot."""

from __future__ import annotations

from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat", reason="pip install nbformat nbclient ipykernel")
nbclient = pytest.importorskip("nbclient", reason="pip install nbclient ipykernel")
pytest.importorskip("ipykernel", reason="pip install ipykernel")

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"


def execute(name: str, workdir: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("QUERYWEAVE_NOTEBOOK_WORKDIR", str(workdir))
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    book = nbformat.read(NOTEBOOKS / name, as_version=4)
    client = nbclient.NotebookClient(book, kernel_name="python3", timeout=180,
                                     resources={"metadata": {"path": str(NOTEBOOKS)}})
    try:
        client.execute()
    except nbclient.exceptions.CellExecutionError as exc:
        pytest.fail(f"{name} failed:\n{str(exc)[-3000:]}")
    return book


def outputs(book, kind: str = "text") -> str:
    parts = []
    for cell in book.cells:
        for out in cell.get("outputs", []):
            if kind == "text":
                parts.append(out.get("text", "") + str(out.get("data", {}).get("text/plain", "")))
            elif kind in out.get("data", {}):
                parts.append(out["data"][kind])
    return "\n".join(parts)


def test_notebooks_are_clean_and_complete():
    names = sorted(p.name for p in NOTEBOOKS.glob("*.ipynb"))
    assert names == ["01_quickstart.ipynb", "02_strategies_and_evaluation.ipynb", "03_structured_data.ipynb"]
    for name in names:
        book = nbformat.read(NOTEBOOKS / name, as_version=4)
        nbformat.validate(book)
        assert book.metadata["kernelspec"]["name"] == "python3"
        assert all(not c.get("outputs") for c in book.cells if c.cell_type == "code"), f"{name} has outputs"


def test_quickstart(tmp_path, monkeypatch):
    book = execute("01_quickstart.ipynb", tmp_path, monkeypatch)
    text = outputs(book)
    assert "max_connections" in text and "resolved query:" in text
    assert "graph TD" in text or "flowchart" in text  # the Mermaid drawing
    assert (tmp_path / "quickstart-kb" / "catalog.sqlite").exists()


def test_strategies_and_evaluation(tmp_path, monkeypatch):
    book = execute("02_strategies_and_evaluation.ipynb", tmp_path, monkeypatch)
    text = outputs(book)
    for name in ("bm25 only", "dense only", "hybrid (rrf)", "factual strategy"):
        assert name in text
    assert "cited a relevant document for" in text
    assert outputs(book, "image/png")  # the plot rendered inline
    assert (tmp_path / "ablation.png").stat().st_size > 5000


def test_structured_data(tmp_path, monkeypatch):
    book = execute("03_structured_data.ipynb", tmp_path, monkeypatch)
    text = outputs(book)
    assert "blocked:" in text and "allowed:" in text
    assert "attempt 2:" in text and "'inventory'" in text
    assert "['billing', 'checkout']" in text or "billing" in text
