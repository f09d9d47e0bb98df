"""Where the bundled sample corpus is, from any working directory (the notebooks and demos use it).

`sample_corpus()` looks, in order, at `$QUERYWEAVE_SAMPLES` (a folder of documents), `samples/corpus`
next to the package's source checkout (an editable install or a clone), and `samples/corpus` in the
working directory or a parent of it. A wheel installed from an index has no sample corpus: then the
error says to set `QUERYWEAVE_SAMPLES`.
"""

from __future__ import annotations

import os
from pathlib import Path

ENV = "QUERYWEAVE_SAMPLES"


def candidates(cwd: Path | None = None) -> list[Path]:
    """The folders `sample_corpus` tries, first match wins."""
    found = [Path(os.environ[ENV]).expanduser()] if os.environ.get(ENV) else []
    found.append(Path(__file__).resolve().parents[1] / "samples" / "corpus")
    here = (cwd or Path.cwd()).resolve()
    found.extend(p / "samples" / "corpus" for p in [here, *here.parents])
    return found


def sample_corpus(cwd: Path | None = None) -> Path:
    """The sample corpus folder; `FileNotFoundError` (naming `$QUERYWEAVE_SAMPLES`) when there is none."""
    if os.environ.get(ENV):
        path = Path(os.environ[ENV]).expanduser()
        if not path.is_dir():
            raise FileNotFoundError(f"${ENV} is {path}, which is not a folder")
        return path
    for path in candidates(cwd):
        if path.is_dir():
            return path
    raise FileNotFoundError(f"no samples/corpus next to {Path(__file__).resolve().parent} or above "
                            f"{cwd or Path.cwd()}: set ${ENV} to a folder of documents")
