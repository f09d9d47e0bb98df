"""Search suggestions: titles and headings of ingested documents, popular queries, semantic neighbours.

`Suggester.suggest(prefix)` matches the prefix on characters (case-insensitive, Chinese and English)
at the start of a text or at a word start inside it ("cache" finds "Gradle Build Cache", "内存" finds
"JVM 内存模型"). Ranking: match position (start of text first), then popularity (how often the text was
asked, from the query log), then length (shorter first). When fewer than `limit` texts match, the
semantic neighbours of the best matches (precomputed at build time when embeddings are given) fill
the list. Built once, saved to and loaded from `<data_dir>/suggest/`; lookups take microseconds.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from queryweave.tools.stores.prefix_index import PrefixIndex, normalize, word_starts
from queryweave.tools.stores.querylog import PopularQueries

SOURCES = ("title", "heading")


@dataclass
class Suggestion:
    """One suggestion: the text, where it came from (title/heading/popular/semantic) and a score."""

    text: str
    source: str
    score: float


class Suggester:
    """Prefix suggestions over document titles/headings plus the popular-queries log of `data_dir`."""

    def __init__(self, data_dir: str | Path | None = None, log: PopularQueries | None = None) -> None:
        self.data_dir = Path(data_dir) if data_dir else None
        self.log = log or PopularQueries(self.folder / "popular.sqlite" if self.folder else None)
        self._pending: dict[str, tuple[str, str]] = {}
        self.texts: list[str] = []
        self.sources: list[str] = []
        self.starts: list[list[int]] = []
        self.neighbours: list[list[tuple[int, float]]] = []
        self.index = PrefixIndex([], [])
        self._popular: dict[str, tuple[str, int]] = {}
        self._pop_index: PrefixIndex | None = None
        self.fingerprint = ""
        self._load_popular()

    @property
    def folder(self) -> Path | None:
        """`<data_dir>/suggest`, or None for an in-memory suggester."""
        return self.data_dir / "suggest" if self.data_dir else None

    # building -----------------------------------------------------------------------------------
    def add(self, texts: Iterable[str], source: str = "title") -> None:
        """Queue texts of a source ("title" or "heading"); a title wins over the same heading."""
        for text in texts:
            text = " ".join(str(text or "").split())
            norm = normalize(text)
            if not norm or len(norm) > 300:
                continue
            if norm not in self._pending or (source == "title" and self._pending[norm][1] != "title"):
                self._pending[norm] = (text, source)

    def add_documents(self, docs: Iterable[Any]) -> None:
        """Queue titles and headings from LangChain Documents or dicts (metadata `title`, `heading`)."""
        for doc in docs:
            meta = doc.get("metadata", doc) if isinstance(doc, dict) else getattr(doc, "metadata", {})
            self.add([meta.get("title", "")], "title")
            heading = meta.get("heading") or meta.get("section") or ""
            self.add([h.strip() for h in str(heading).split(">")], "heading")

    def add_catalog(self, catalog: Any) -> None:
        """Queue titles and headings from a catalog with `documents()` and `iter_chunks()`."""
        self.add((d.get("title") or "" for d in catalog.documents()), "title")
        self.add((h.strip() for c in catalog.iter_chunks() for h in str(c.heading or "").split(">")), "heading")

    def build(self, embeddings: Any = None, neighbours: int = 3, min_similarity: float = 0.5) -> Suggester:
        """Index everything queued (merged with what is already indexed); embeddings add neighbours."""
        for text, source in zip(self.texts, self.sources, strict=True):
            self._pending.setdefault(normalize(text), (text, source))
        items = sorted(self._pending.items(), key=lambda kv: (len(kv[0]), kv[0]))
        self._pending = {}
        self.texts = [t for _, (t, _) in items]
        self.sources = [s for _, (_, s) in items]
        self.starts = [word_starts(norm) for norm, _ in items]
        self.index = PrefixIndex([norm for norm, _ in items], self.starts)
        self.neighbours = [[] for _ in self.texts]
        if embeddings is not None and self.texts:
            self._build_neighbours(embeddings, neighbours, min_similarity)
        return self

    def _build_neighbours(self, embeddings: Any, k: int, min_similarity: float) -> None:
        vecs = np.asarray(embeddings.embed_documents(self.texts), dtype=np.float32)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True) + 1e-9
        for lo in range(0, len(vecs), 1024):
            sims = vecs[lo : lo + 1024] @ vecs.T
            for row, i in enumerate(range(lo, min(lo + 1024, len(vecs)))):
                sims[row, i] = -1.0
                best = np.argpartition(-sims[row], min(k, len(vecs) - 1) - 1)[:k] if len(vecs) > 1 else []
                self.neighbours[i] = sorted(((int(j), float(sims[row, j])) for j in best
                                             if sims[row, j] >= min_similarity), key=lambda x: -x[1])

    # popular queries ----------------------------------------------------------------------------
    def _load_popular(self) -> None:
        self._popular = {norm: (text, count) for norm, text, count in self.log.top()}
        self._pop_index = None

    def record_query(self, query: str) -> None:
        """Count `query` in the popular-queries log (persisted when the suggester has a data dir)."""
        norm = self.log.record(query)
        if norm is None:
            return
        text, count = self._popular.get(norm, (" ".join(query.split()), 0))
        self._popular[norm] = (text, count + 1)
        self._pop_index = None

    def _popular_index(self) -> tuple[PrefixIndex, list[str]]:
        if self._pop_index is None:
            norms = sorted(self._popular, key=lambda n: (-self._popular[n][1], len(n), n))
            self._pop_norms = norms
            self._pop_index = PrefixIndex(norms, [word_starts(n) for n in norms])
        return self._pop_index, self._pop_norms

    # lookup -------------------------------------------------------------------------------------
    def suggest(self, prefix: str, limit: int = 8) -> list[Suggestion]:
        """Up to `limit` suggestions for `prefix`, best first (see the module docstring for the order)."""
        p = normalize(prefix)
        if not p or limit <= 0:
            return []
        max_pop = max((c for _, c in self._popular.values()), default=0)
        cands: dict[str, tuple[tuple, Suggestion]] = {}

        def offer(text: str, source: str, tier: int, pop: int) -> None:
            norm = normalize(text)
            score = (1.0 - 0.5 * tier) + 0.3 * (math.log1p(pop) / math.log1p(max_pop) if max_pop else 0.0) \
                + 0.1 / (1 + len(norm) / 20)
            key = (tier, -pop, len(norm), norm)
            if norm not in cands or key < cands[norm][0]:
                cands[norm] = (key, Suggestion(text, source, round(score, 4)))

        if self._popular:
            pop_index, pop_norms = self._popular_index()
            for entry, tier in pop_index.top(p, limit):
                text, count = self._popular[pop_norms[entry]]
                offer(text, "popular", tier, count)
        matched = self.index.top(p, limit)
        for entry, tier in matched:
            text = self.texts[entry]
            pop = self._popular.get(normalize(text), ("", 0))[1]
            offer(text, "popular" if pop else self.sources[entry], tier, pop)
        out = [s for _, s in sorted(cands.values(), key=lambda kv: kv[0])][:limit]
        if len(out) < limit and matched and any(self.neighbours):
            seen = {normalize(s.text) for s in out}
            for entry, _ in matched:
                for j, sim in self.neighbours[entry]:
                    if len(out) >= limit:
                        break
                    if normalize(self.texts[j]) not in seen:
                        seen.add(normalize(self.texts[j]))
                        out.append(Suggestion(self.texts[j], "semantic", round(0.4 * sim, 4)))
        return out

    # persistence --------------------------------------------------------------------------------
    def save(self, folder: str | Path | None = None) -> Path:
        """Write the index to `folder` (default `<data_dir>/suggest`) as JSON; returns the file."""
        target = Path(folder) if folder else self.folder
        if target is None:
            raise ValueError("no folder given and the suggester has no data dir")
        target.mkdir(parents=True, exist_ok=True)
        data = {"version": 1, "texts": self.texts, "sources": self.sources, "starts": self.starts,
                "neighbours": self.neighbours, "fingerprint": self.fingerprint}
        path = target / "index.json"
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
        tmp.replace(path)
        return path

    @classmethod
    def load(cls, data_dir: str | Path) -> Suggester:
        """The suggester saved under `<data_dir>/suggest` (empty when nothing was saved yet)."""
        sug = cls(data_dir)
        path = sug.folder / "index.json" if sug.folder else None
        if path is None or not path.exists():
            return sug
        data = json.loads(path.read_text(encoding="utf-8"))
        sug.texts, sug.sources, sug.starts = data["texts"], data["sources"], data["starts"]
        sug.fingerprint = data.get("fingerprint", "")
        sug.neighbours = [[(int(j), float(s)) for j, s in row] for row in data.get("neighbours", [])] or \
            [[] for _ in sug.texts]
        sug.index = PrefixIndex([normalize(t) for t in sug.texts], sug.starts)
        return sug


def catalog_fingerprint(catalog: Any) -> str:
    """A hash of the catalog's documents (source, title, chunk count): changes when ingestion does."""
    h = hashlib.sha1()
    for d in catalog.documents():
        h.update(f"{d.get('source')}\x00{d.get('title')}\x00{d.get('n_chunks')}\n".encode())
    return h.hexdigest()


def open_suggester(data_dir: str | Path, catalog: Any = None, embeddings: Any = None) -> Suggester:
    """The saved suggester of `data_dir`, rebuilt from `catalog` (and saved) when ingestion changed it."""
    sug = Suggester.load(data_dir)
    if catalog is None:
        return sug
    fp = catalog_fingerprint(catalog)
    if fp != sug.fingerprint:
        fresh = Suggester(data_dir, log=sug.log)
        fresh.add_catalog(catalog)
        fresh.build(embeddings=embeddings)
        fresh.fingerprint = fp
        fresh.save()
        return fresh
    return sug


def record_query(query: str, data_dir: str | Path) -> None:
    """Count `query` in the popular-queries log of `data_dir` (without loading the suggestion index)."""
    log = PopularQueries(Path(data_dir) / "suggest" / "popular.sqlite")
    try:
        log.record(query)
    finally:
        log.close()
