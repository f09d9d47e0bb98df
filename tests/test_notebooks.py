"""The notebooks run top to bottom (nbclient, kernel python3), so they never rot."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat", reason="pip install nbformat nbclient ipykernel")
nbclient = pytest.importorskip("nbclient", reason="pip install nbclient ipykernel")
pytest.importorskip("ipykernel", reason="pip install ipykernel")

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
NAMES = ["01_quickstart.ipynb", "02_strategies_and_evaluation.ipynb", "03_structured_data.ipynb"]


def execute(name: str, workdir: Path):
    """Run one notebook in a fresh python3 kernel whose scratch folder is `workdir`; returns it or the error."""
    env = {**os.environ, "QUERYWEAVE_NOTEBOOK_WORKDIR": str(workdir),
           "MPLBACKEND": "module://matplotlib_inline.backend_inline"}
    book = nbformat.read(NOTEBOOKS / name, as_version=4)
    client = nbclient.NotebookClient(book, kernel_name="python3", timeout=180,
                                     resources={"metadata": {"path": str(NOTEBOOKS)}})
    try:
        client.execute(env=env)
    except Exception as exc:  # CellExecutionError or a kernel that died: report it in the test
        return exc
    return book


@pytest.fixture(scope="module")
def executed(tmp_path_factory) -> dict[str, tuple[object, Path]]:
    """All notebooks, run concurrently (each in its own kernel): {name: (notebook or error, workdir)}."""
    work = {name: tmp_path_factory.mktemp(name.split("_")[0]) for name in NAMES}
    with ThreadPoolExecutor(len(NAMES)) as pool:
        futures = {name: pool.submit(execute, name, work[name]) for name in NAMES}
    return {name: (future.result(), work[name]) for name, future in futures.items()}


def run(executed, name: str):
    book, workdir = executed[name]
    if isinstance(book, Exception):
        pytest.fail(f"{name} failed:\n{str(book)[-3000:]}")
    return book, workdir


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
    assert names == NAMES
    for name in names:
        book = nbformat.read(NOTEBOOKS / name, as_version=4)
        nbformat.validate(book)
        assert book.metadata["kernelspec"]["name"] == "python3"
        assert all(not c.get("outputs") for c in book.cells if c.cell_type == "code"), f"{name} has outputs"


def test_quickstart(executed):
    book, tmp_path = run(executed, "01_quickstart.ipynb")
    text = outputs(book)
    assert "max_connections" in text and "resolved query:" in text
    assert "graph TD" in text or "flowchart" in text  # the Mermaid drawing
    assert (tmp_path / "quickstart-kb" / "catalog.sqlite").exists()


def test_strategies_and_evaluation(executed):
    book, tmp_path = run(executed, "02_strategies_and_evaluation.ipynb")
    text = outputs(book)
    for name in ("bm25 only", "dense only", "hybrid (rrf)", "factual strategy"):
        assert name in text
    assert "cited a relevant document for" in text
    assert outputs(book, "image/png")  # the plot rendered inline
    assert (tmp_path / "ablation.png").stat().st_size > 5000


def test_structured_data(executed):
    book, tmp_path = run(executed, "03_structured_data.ipynb")
    text = outputs(book)
    assert "blocked:" in text and "allowed:" in text
    assert "attempt 2:" in text and "'inventory'" in text
    assert "billing" in text and "orders-db" in text
