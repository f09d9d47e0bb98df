"""Search suggestions for the server: `queryweave.tools.suggest.suggester` over a data dir, degrading to none.

The saved index (`<data_dir>/suggest/`) is used while it matches the catalog (`catalog.sqlite`, or the
PostgreSQL catalog of `catalog_url`); otherwise `open_suggester` rebuilds it from the catalog's titles
and headings. It is reloaded when the index, the catalog (its file, or a PostgreSQL catalog's version
marker) or the popular-queries log changes (the graph's `finish` node counts each answered question
there; a thumbs-up counts it once more through `record`).
Without the suggestions module (or a knowledge base) `suggest` returns an empty list and `reason`
says why.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)


class Suggestions:
    """Prefix suggestions (`suggest`) and the popular-queries log (`record`) of one data dir."""

    def __init__(self, data_dir: str | Path, catalog_url: str = "", kb_name: str = "") -> None:
        self.data_dir = Path(data_dir).expanduser()
        self.catalog_url, self.kb_name = catalog_url, kb_name
        self._pg_catalog: Any = None
        self.reason: str | None = None
        self._lock = threading.Lock()
        self._suggester: Any = None
        self._stamp: tuple[float, ...] | None = None

    def _files_stamp(self) -> tuple[Any, ...]:
        def mtime(p: Path) -> float:
            try:
                return p.stat().st_mtime_ns
            except OSError:
                return 0

        folder = self.data_dir / "suggest"
        stamp = tuple(mtime(p) for p in (folder / "index.json", self.data_dir / "catalog.sqlite",
                                         folder / "popular.sqlite", folder / "popular.sqlite-wal"))
        return stamp + (self._catalog_version(),) if self.catalog_url else stamp

    def _catalog_version(self) -> str:
        """A PostgreSQL catalog's version marker ('' when it has none or cannot be read)."""
        try:
            return self._open_catalog().get_meta("version") or ""
        except Exception:
            return ""

    def _open_catalog(self) -> Any:
        """The catalog, read-only (a PostgreSQL one is kept: it holds no connection of its own)."""
        from queryweave.tools.stores.catalogs import open_catalog

        if not self.catalog_url:
            return open_catalog(self.data_dir, read_only=True)
        if self._pg_catalog is None:
            self._pg_catalog = open_catalog(self.data_dir, self.catalog_url, self.kb_name, read_only=True)
        return self._pg_catalog

    def _load(self) -> Any:
        try:
            from queryweave.tools.suggest import suggester as suggest
        except ImportError as exc:
            self.reason = f"suggestions unavailable: {exc}"
            return None
        from queryweave.tools.stores.catalogs import has_catalog

        if not has_catalog(self.data_dir, self.catalog_url, self.kb_name):
            sug = suggest.Suggester.load(self.data_dir)
        else:
            catalog = self._open_catalog()
            try:
                if hasattr(suggest, "open_suggester"):  # rebuilt (and saved) when ingestion changed the KB
                    sug = suggest.open_suggester(self.data_dir, catalog)
                else:
                    sug = suggest.Suggester.load(self.data_dir)
                    if not sug.texts:
                        sug.add_catalog(catalog)
                        sug.build()
            finally:
                catalog.close()
        self.reason = None if sug.texts else "no titles indexed yet (ingest documents first)"
        return sug

    def suggester(self) -> Any:
        """The current `Suggester` (loaded, or reloaded when the index changed), or None."""
        with self._lock:
            stamp = self._files_stamp()
            if self._suggester is None or stamp != self._stamp:
                try:
                    self._suggester = self._load()
                except Exception as exc:  # a corrupt index must not break the search box
                    log.warning("suggestions: %s", exc)
                    self.reason, self._suggester = f"suggestions failed to load: {exc}", None
                self._stamp = stamp
            return self._suggester

    def suggest(self, prefix: str, limit: int = 8) -> list[dict[str, Any]]:
        """Up to `limit` suggestions for `prefix` as `{text, source, score}` (empty when unavailable)."""
        sug = self.suggester()
        if sug is None or not prefix.strip():
            return []
        try:
            found = sug.suggest(prefix, limit=limit)
        except Exception as exc:
            log.warning("suggest(%r): %s", prefix, exc)
            return []
        return [{"text": s.text, "source": getattr(s, "source", ""), "score": getattr(s, "score", 0.0)}
                for s in found[:limit]]

    def record(self, query: str) -> bool:
        """Count a question in the popular-queries log; False when suggestions are unavailable."""
        sug = self.suggester()
        if sug is None or not query.strip():
            return False
        try:
            with self._lock:
                sug.record_query(query)
            return True
        except Exception as exc:
            log.warning("record_query: %s", exc)
            return False
