"""The corpus texts answering embeds, computed ahead of the first question (the ingest's last stage).

`generate` (extractive answers) embeds each answer unit of the retrieved passages and, when a unit
is in another language than the question, each unit read with the one before it (stored only for a
knowledge base of more than one language); `reflect` embeds each sentence of the cited passages and the answer's claims,
which are rendered units. `answer_texts(text, title)` lists exactly those strings for one chunk, and
`warm_unit_vectors` embeds whichever of them the knowledge base's `StoredEmbeddings` has not stored
yet, in batches, so that at question time they are lookups. It is resumable by construction: stored
texts are skipped, so an interrupted run continues where it stopped. The vectors are the model's
own for the same strings, so answers do not change — only when they are computed.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

from queryweave.tools.grounding.claims import sentences, split_claims
from queryweave.tools.grounding.extractive import answer_units, render

Progress = Callable[[int, int, float], None]
"""(texts done, texts to do, seconds so far) after each batch."""


def answer_texts(text: str, title: str = "", windows: bool = True) -> list[str]:
    """The strings answering may embed for a chunk with this text and title, most used first.
    `windows`: also each unit read with the one before it (embedded only for a question in another
    language than the unit's: needed in a knowledge base of more than one language)."""
    units = answer_units(text)
    out: list[str] = list(units)
    out += sentences(text) or ([text] if text.strip() else [])
    for unit in units:
        shown = render(unit)
        out += [shown, *split_claims(shown), *sentences(shown)]
    if windows:
        out += [f"{units[i - 1] if i else title} {u}".strip() for i, u in enumerate(units)]
    return [t for t in dict.fromkeys(out) if t.strip()]


def multilingual(kb: Any, least: float = 0.02) -> bool:
    """Whether the knowledge base holds documents in more than one language (each >= `least`)."""
    try:
        return sum(1 for share in kb.language_mix().values() if share >= least) > 1
    except Exception:  # an unreadable catalog: assume the costlier case
        return True


def chunk_answer_texts(chunks: Iterable[Any], windows: bool = True) -> list[str]:
    """`answer_texts` of catalog chunk records (their text and title), de-duplicated."""
    out: dict[str, None] = {}
    for c in chunks:
        for t in answer_texts(c.text, str((c.metadata or {}).get("title") or ""), windows):
            out[t] = None
    return list(out)


def warm_unit_vectors(kb: Any, chunks: Iterable[Any] | None = None, batch: int = 32,
                      progress: Progress | None = None) -> dict[str, Any]:
    """Embed and store the answer texts of `chunks` (default: every chunk of the catalog) that are not
    stored yet. Returns {"texts", "embedded", "seconds"}."""
    emb = kb.embeddings
    t0 = time.perf_counter()
    records = list(kb.catalog.iter_chunks() if chunks is None else chunks)
    texts = chunk_answer_texts(records, windows=multilingual(kb))
    if not hasattr(emb, "store"):  # not a StoredEmbeddings: nothing to keep the vectors in
        return {"texts": len(texts), "embedded": 0, "seconds": 0.0}
    todo = sorted(emb.missing(texts), key=len, reverse=True)  # batches of like lengths pad little
    done = 0
    if progress is not None:
        progress(0, len(todo), 0.0)
    for start in range(0, len(todo), batch):
        part = todo[start : start + batch]
        emb.store(part)
        done += len(part)
        if progress is not None:
            progress(done, len(todo), time.perf_counter() - t0)
    return {"texts": len(texts), "embedded": done, "seconds": round(time.perf_counter() - t0, 3)}


def unit_vectors_enricher(progress: Progress | None = None) -> Callable[..., None]:
    """An ingest enricher: store the answer texts' vectors of the changed sources' chunks (a source that
    is gone has none left). Its sources stay pending in the catalog until it finished, so an interrupted
    run is resumed by the next ingest."""

    def enrich(kb: Any, sources: list[str], progress: Progress | None = progress) -> None:
        ids = [i for s in sources for i in kb.catalog.chunk_ids(s)]
        if ids:
            warm_unit_vectors(kb, list(kb.catalog.get_chunks(ids).values()), progress=progress)

    enrich.stage = "unit vectors"  # type: ignore[attr-defined]  # the ingest shows this stage's progress
    enrich.unit = "text"  # type: ignore[attr-defined]
    return enrich
