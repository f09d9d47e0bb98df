"""Reading the entity graph: the kuzu file opened read-only per call, the name vocabulary, the walks.

`open_graph(kb)` yields a `GraphReader` over one read-only connection (None when the knowledge base
has no graph): `find` matches the entity names a text contains, `expand` walks RELATED from them,
`neighbours` goes one entity away from given chunks. A read-only open never blocks another reader,
and the file is released as soon as the call ends, so an ingest in another process can take it.
"""

from __future__ import annotations

import logging
import math
import re
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from queryweave.tools.common.text import cjk_ratio
from queryweave.tools.stores.kb import KnowledgeBase

GRAPH_FILE = "entities.kuzu"
META_KEY = "entity_graph_version"
_WORDS = re.compile(r"\w+")
log = logging.getLogger(__name__)


def graph_path(kb: KnowledgeBase) -> Path:
    """Where the entity graph of a knowledge base lives."""
    return kb.data_dir / GRAPH_FILE


@contextmanager
def connect(path: Path, read_only: bool = True, wait_s: float = 30.0) -> Iterator[Any]:
    """A kuzu connection, closed (and the file lock released) on exit.

    Read-only opens get a small buffer pool (opening is then ~20 ms); a read-write open waits up to
    `wait_s` for another process to release the file.
    """
    import kuzu

    size = path.stat().st_size if path.exists() else 0
    pool = min(1 << 30, max(64 << 20, 2 * size)) if read_only else 512 << 20
    deadline = time.monotonic() + (0 if read_only else wait_s)
    while True:
        try:
            db = kuzu.Database(str(path), read_only=read_only, buffer_pool_size=pool, max_num_threads=2)
            break
        except RuntimeError as exc:
            if "lock" not in str(exc).lower() or time.monotonic() > deadline:
                raise
            time.sleep(0.5)
    conn = kuzu.Connection(db)
    try:
        yield conn
    finally:
        conn.close()
        db.close()


def rows(conn: Any, cypher: str, params: dict[str, Any] | None = None) -> list[list[Any]]:
    """All rows of a query as lists."""
    result = conn.execute(cypher, params or {})
    out = []
    while result.has_next():
        out.append(result.get_next())
    return out


class Vocabulary:
    """The graph's entity names (key -> label, df) and chunk count, loaded once per graph version."""

    def __init__(self, conn: Any) -> None:
        self.names: dict[str, tuple[str, int]] = {r[0]: (r[1], int(r[2] or 0)) for r in rows(
            conn, "MATCH (e:Entity) RETURN e.name, e.label, e.df")}
        self.n_chunks = int(rows(conn, "MATCH (c:Chunk) RETURN count(c)")[0][0])
        self.cjk = {k for k in self.names if cjk_ratio(k) > 0.5}

    def idf(self, key: str) -> float:
        """log(N / df), 0 for unknown names."""
        df = self.names.get(key, ("", 0))[1]
        return math.log((self.n_chunks + 1) / df) if df else 0.0

    def too_common(self, key: str, max_df: float) -> bool:
        """Whether a name is in more than `max_df` of the chunks (at least 3) to say anything."""
        return self.names.get(key, ("", 0))[1] > max(3.0, max_df * self.n_chunks)

    def find(self, text: str) -> list[str]:
        """Entity keys named in `text`: longest non-overlapping word n-grams, then Chinese substrings.

        A Latin span counts when it is written like a name (a capital, a digit, `_` or `.` inside)
        or has two words or more: "the film" does not name the entity "Film", "Kiss and Tell" does.
        """
        raw = _WORDS.findall(text)
        words = [w.lower() for w in raw]

        def named(i: int, n: int) -> bool:
            return n > 1 or any(c.isupper() or c.isdigit() or c == "_" for c in raw[i][1:] + raw[i][:1]) \
                or cjk_ratio(raw[i]) > 0.5

        spans = [(n, i) for i in range(len(words)) for n in range(min(8, len(words) - i), 0, -1)
                 if " ".join(words[i : i + n]) in self.names and named(i, n)]
        taken: set[int] = set()
        found: list[str] = []
        for n, i in sorted(spans, key=lambda s: (-s[0], s[1])):
            if not taken & set(range(i, i + n)):
                taken.update(range(i, i + n))
                found.append(" ".join(words[i : i + n]))
        low = text.lower()
        cjk = sorted((k for k in self.cjk if k in low), key=len, reverse=True)
        for k in cjk:
            if not any(k in longer for longer in found):
                found.append(k)
        return found


_VOCAB: dict[str, tuple[str, Vocabulary]] = {}
_VOCAB_LOCK = threading.Lock()


def vocabulary(kb: KnowledgeBase, conn: Any) -> Vocabulary:
    """The graph's vocabulary, reloaded when the graph was rebuilt."""
    version = kb.catalog.get_meta(META_KEY) or "0"
    key = str(graph_path(kb))
    with _VOCAB_LOCK:
        cached = _VOCAB.get(key)
        if cached is None or cached[0] != version:
            _VOCAB[key] = (version, Vocabulary(conn))
        return _VOCAB[key][1]


def has_graph(kb: KnowledgeBase) -> bool:
    """Whether the knowledge base has an entity graph."""
    return graph_path(kb).exists() and kb.catalog.get_meta(META_KEY) is not None


class GraphReader:
    """Queries over one read-only connection (`open_graph`)."""

    def __init__(self, kb: KnowledgeBase, conn: Any) -> None:
        self.conn = conn
        self.vocab = vocabulary(kb, conn)

    def expand(self, query: str, depth: int = 2, limit: int = 50, max_df: float = 0.05,
               beam: int = 30) -> list[tuple[str, float, list[str]]]:
        """See the module-level `expand`."""
        vocab = self.vocab
        top_idf = math.log(vocab.n_chunks + 1) or 1.0
        frontier = {k: vocab.idf(k) / top_idf for k in vocab.find(query) if not vocab.too_common(k, max_df)}
        reached: dict[str, tuple[float, list[str]]] = {k: (s, [vocab.names[k][0]]) for k, s in frontier.items()}
        for _ in range(max(0, depth)):
            if not frontier:
                break
            nxt: dict[str, tuple[float, list[str]]] = {}
            for a, b, w in rows(self.conn, "MATCH (a:Entity)-[r:RELATED]-(b:Entity) WHERE a.name IN $n "
                                           "RETURN a.name, b.name, sum(r.weight)", {"n": sorted(frontier)}):
                if b in reached or vocab.too_common(b, max_df):
                    continue
                s = frontier[a] * 0.5 * (w / (w + 1.0)) * vocab.idf(b) / top_idf
                if s > nxt.get(b, (0.0, []))[0]:
                    nxt[b] = (s, reached[a][1] + [vocab.names[b][0]])
            best = sorted(nxt.items(), key=lambda kv: -kv[1][0])[:beam]
            reached.update(best)
            frontier = {k: v[0] for k, v in best}
        scores: dict[str, tuple[float, list[str]]] = {}
        for cid, key, role in rows(self.conn, "MATCH (c:Chunk)-[m:MENTIONS]->(e:Entity) WHERE e.name IN $n "
                                              "RETURN c.id, e.name, m.role", {"n": sorted(reached)}):
            s, path = reached[key]
            s *= 1.0 if role == "title" else 0.5
            old = scores.get(cid, (0.0, path))
            scores[cid] = (old[0] + s, path if s > old[0] else old[1])
        ranked = sorted(scores.items(), key=lambda kv: (-kv[1][0], kv[0]))[:limit]
        return [(cid, round(s, 6), path) for cid, (s, path) in ranked]

    def neighbours(self, chunk_ids: list[str], max_df: float = 0.05) -> list[dict[str, Any]]:
        """See the module-level `neighbours`."""
        if not chunk_ids:
            return []
        found = rows(self.conn, "MATCH (s:Chunk)-[m1:MENTIONS]->(e:Entity)<-[m2:MENTIONS]-(c:Chunk) "
                                "WHERE s.id IN $ids AND c.id <> s.id AND (m1.role = 'title' OR m2.role = 'title') "
                                "AND NOT (m1.role = 'title' AND m2.role = 'title') "
                                "RETURN s.id, c.id, e.name, e.label, e.df, m2.role", {"ids": list(chunk_ids)})
        return [{"seed": s, "chunk": c, "entity": label, "key": key, "df": int(df or 0),
                 "direction": "forward" if role == "title" else "backward"}
                for s, c, key, label, df, role in found if not self.vocab.too_common(key, max_df)]


@contextmanager
def open_graph(kb: KnowledgeBase) -> Iterator[GraphReader | None]:
    """A reader over the graph opened read-only; None when there is no graph or a writer holds the file."""
    if not has_graph(kb):
        yield None
        return
    with ExitStack() as stack:
        try:
            conn = stack.enter_context(connect(graph_path(kb)))
        except RuntimeError as exc:
            log.warning("entity graph unavailable (%s); retrieving without it", str(exc)[:200])
            conn = None
        yield GraphReader(kb, conn) if conn is not None else None
