"""The notebooks run top to bottom (nbclient, kernel python3), so they never rot: from a working directory
outside the repository (the sample corpus is found through the package), leaving nothing behind in the
temporary directory, and with checks that fail when a fact they show is wrong."""

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
    """Run one notebook in a fresh python3 kernel started in `workdir/cwd` (not the repository), with
    `workdir/tmp` as its temporary directory; returns the notebook or the error."""
    (workdir / "cwd").mkdir()
    (workdir / "tmp").mkdir()
    env = {k: v for k, v in os.environ.items() if k != "QUERYWEAVE_NOTEBOOK_WORKDIR"}
    env |= {"TMPDIR": str(workdir / "tmp"), "MPLBACKEND": "module://matplotlib_inline.backend_inline"}
    book = nbformat.read(NOTEBOOKS / name, as_version=4)
    client = nbclient.NotebookClient(book, kernel_name="python3", timeout=180,
                                     resources={"metadata": {"path": str(workdir / "cwd")}})
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
    text = outputs(book)
    assert "scratch folder removed: True" in text
    assert not [p.name for p in (workdir / "tmp").glob("queryweave-nb-*")]  # cleaned up after itself
    assert not list((workdir / "cwd").iterdir())  # and wrote nothing where it was started
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
    book, _ = run(executed, "01_quickstart.ipynb")
    text = outputs(book)
    assert "max_connections" in text and "resolved query:" in text
    assert "graph TD" in text or "flowchart" in text  # the Mermaid drawing
    assert "33 documents" in text


def _cell(name: str, marker: str) -> str:
    book = nbformat.read(NOTEBOOKS / name, as_version=4)
    return next(c.source for c in book.cells if c.cell_type == "code" and marker in c.source)


def test_quickstart_check_fails_when_the_answer_lacks_the_number(monkeypatch):
    """The quick start's own check is about the fact it shows (100 connections), not just a word."""
    import queryweave.graph.run as ask

    source = _cell("01_quickstart.ipynb", "run_question(ctx,")
    cited = [{"chunk_id": "c1", "source": "databases/postgresql-max-connections.md", "title": "max_connections",
              "text": "..."}]
    for answer, ok in [("max_connections defaults to 100 connections [1].", True),
                       ("max_connections limits concurrent connections [1].", False)]:
        monkeypatch.setattr(ask, "run_question", lambda *a, answer=answer, **k: {"answer": answer, "citations": cited})
        if ok:
            exec(source, {"ctx": None})
        else:
            with pytest.raises(AssertionError):
                exec(source, {"ctx": None})


def test_strategies_and_evaluation(executed):
    book, _ = run(executed, "02_strategies_and_evaluation.ipynb")
    text = outputs(book)
    for name in ("bm25 only", "dense only", "hybrid (rrf)", "factual strategy"):
        assert name in text
    assert "cited a relevant document for" in text
    assert outputs(book, "image/png")  # the plot rendered inline


def test_structured_data(executed):
    book, _ = run(executed, "03_structured_data.ipynb")
    text = outputs(book)
    assert "blocked:" in text and "allowed:" in text
    assert "attempt 2:" in text and "'inventory'" in text
    assert "billing" in text and "orders-db" in text
