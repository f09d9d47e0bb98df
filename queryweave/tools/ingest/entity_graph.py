"""The entity/relation graph (LightRAG-style) in an embedded kuzu database, `entities.kuzu` in the data dir.

Schema: node tables `Entity(name, label, kind, df)` (name = matching key, label = as written, df =
chunks that mention it) and `Chunk(id, source)`; rel tables `MENTIONS(Chunk->Entity, role)` (role
`title` for the chunk's main entity, else `mention`) and `RELATED(Entity->Entity, weight, chunk)`:
one edge per relation *per chunk that states it*, so deleting a chunk deletes exactly its relations
and the strength of a relation is the sum over its edges.

`build_entity_graph` is an ingest enricher: it re-extracts the chunks of the changed sources (and of
any source the graph and the catalog disagree on), bulk-loads them with COPY, and links chunks
ingested earlier to the titles that just appeared. The sources being rebuilt are recorded in the
catalog's meta first and cleared at the end, so a build that crashed half-way is redone. The
read-write connection is held only during that step (it locks the file against other processes;
a reader holding it is waited for); queries open the file read-only, per call.
`expand` walks RELATED from the query's entities; `neighbours` gives the chunks one entity away
from given chunks (the seeds of graph retrieval); both are in `entity_reader` (`GraphReader`).
"""

from __future__ import annotations

import csv
import json
import re
import tempfile
import time
from pathlib import Path
from typing import Any

from queryweave.tools.common.text import cjk_ratio
from queryweave.tools.ingest.entities import Gazetteer, entity_key, extract_llm, extract_offline
from queryweave.tools.stores.entity_reader import (
    GRAPH_FILE,
    META_KEY,
    GraphReader,
    connect,
    graph_path,
    has_graph,
    open_graph,
    rows,
)
from queryweave.tools.stores.kb import KnowledgeBase

__all__ = ["GRAPH_FILE", "META_KEY", "GraphReader", "build_entity_graph", "entity_graph_enricher", "expand",
           "graph_path", "has_graph", "neighbours", "open_graph"]
_WORDS = re.compile(r"\w+")
PENDING_KEY = "entity_graph_pending"  # sources being rebuilt; redone by the next build after a crash
SCHEMA = (
    "CREATE NODE TABLE IF NOT EXISTS Entity(name STRING, label STRING, kind STRING, df INT64, PRIMARY KEY(name))",
    "CREATE NODE TABLE IF NOT EXISTS Chunk(id STRING, source STRING, PRIMARY KEY(id))",
    "CREATE REL TABLE IF NOT EXISTS MENTIONS(FROM Chunk TO Entity, role STRING)",
    "CREATE REL TABLE IF NOT EXISTS RELATED(FROM Entity TO Entity, weight DOUBLE, chunk STRING)",
)


def _copy(conn: Any, table: str, data: list[tuple], tmp: str) -> None:
    if not data:
        return
    path = Path(tmp) / f"{table}.csv"
    with open(path, "w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows(data)
    conn.execute(f"COPY {table} FROM '{path.as_posix()}' (HEADER=false, QUOTE='\"', ESCAPE='\"')")


def _clean(text: str) -> str:
    return " ".join(str(text).split())


# -- building -------------------------------------------------------------------------------------
def build_entity_graph(kb: KnowledgeBase, changed_sources: list[str], llm: Any = None) -> dict[str, int]:
    """Enricher: (re)extract the changed sources' chunks into the graph; returns counts of what was written."""
    catalog_sources = set(kb.catalog.sources())
    titles = [str(d["title"]) for d in kb.catalog.documents() if d["title"]]
    gazetteer = Gazetteer(titles)
    stats = {"chunks": 0, "entities": 0, "relations": 0, "removed_chunks": 0, "linked_later": 0}
    with connect(graph_path(kb), read_only=False) as conn, tempfile.TemporaryDirectory(prefix="qw-eg-") as tmp:
        for stmt in SCHEMA:
            conn.execute(stmt)
        in_graph = {r[0] for r in rows(conn, "MATCH (c:Chunk) RETURN DISTINCT c.source")}
        pending = json.loads(kb.catalog.get_meta(PENDING_KEY) or "[]")  # left by a build that did not finish
        todo = sorted(set(changed_sources) | set(pending) | (catalog_sources ^ in_graph))
        kb.catalog.set_meta(PENDING_KEY, json.dumps(todo, ensure_ascii=False))
        old_ids = [r[0] for r in rows(conn, "MATCH (c:Chunk) WHERE c.source IN $s RETURN c.id", {"s": todo})]
        touched = {r[0] for r in rows(conn, "MATCH (c:Chunk)-[:MENTIONS]->(e:Entity) WHERE c.id IN $ids "
                                            "RETURN DISTINCT e.name", {"ids": old_ids})}
        if old_ids:
            conn.execute("MATCH ()-[r:RELATED]->() WHERE r.chunk IN $ids DELETE r", {"ids": old_ids})
            conn.execute("MATCH (c:Chunk) WHERE c.id IN $ids DETACH DELETE c", {"ids": old_ids})
        stats["removed_chunks"] = len(old_ids)
        live = [s for s in todo if s in catalog_sources]
        records = kb.catalog.get_chunks(i for s in live for i in kb.catalog.chunk_ids(s))
        entities: dict[str, tuple[str, str]] = {}
        chunk_rows, mention_rows, related_rows = [], [], []
        for rec in records.values():
            title = str(rec.metadata.get("title", ""))
            got = extract_llm(llm, rec.text, title, gazetteer) if llm is not None else None
            got = got or extract_offline(rec.text, title, gazetteer)
            chunk_rows.append((rec.id, rec.source))
            for key, (label, kind, role) in got.entities.items():
                if key not in entities or kind == "title":
                    entities[key] = (_clean(label), kind)
                mention_rows.append((rec.id, key, role))
            related_rows += [(a, b, w, rec.id) for (a, b), w in got.pairs.items()]
        known = {r[0]: r[1] for r in rows(conn, "MATCH (e:Entity) WHERE e.name IN $n RETURN e.name, e.kind",
                                          {"n": sorted(entities)})}
        _copy(conn, "Entity", [(k, lab, kind, 0) for k, (lab, kind) in entities.items() if k not in known], tmp)
        promote = [k for k, (_, kind) in entities.items() if kind == "title" and known.get(k, "title") != "title"]
        if promote:
            conn.execute("MATCH (e:Entity) WHERE e.name IN $n SET e.kind = 'title'", {"n": promote})
        _copy(conn, "Chunk", chunk_rows, tmp)
        _copy(conn, "MENTIONS", mention_rows, tmp)
        _copy(conn, "RELATED", related_rows, tmp)
        new_titles = {entity_key(str(records[i].metadata.get("title", ""))) for i in records} - set(known)
        later = _link_earlier_chunks(kb, conn, new_titles - {""}, set(records), gazetteer, tmp)
        touched |= set(entities) | later
        conn.execute("MATCH (e:Entity) WHERE e.name IN $n OPTIONAL MATCH (e)<-[m:MENTIONS]-(:Chunk) "
                     "WITH e, count(m) AS c SET e.df = c", {"n": sorted(touched)})
        conn.execute("MATCH (e:Entity) WHERE e.df = 0 DETACH DELETE e")
        stats.update(chunks=len(chunk_rows), entities=len(entities), relations=len(related_rows),
                     linked_later=len(later))
    kb.catalog.set_meta(PENDING_KEY, "[]")
    kb.catalog.set_meta(META_KEY, f"{kb.catalog.get_meta('version') or '0'}:{time.time()}")
    return stats


def _link_earlier_chunks(kb: KnowledgeBase, conn: Any, titles: set[str], batch: set[str], gazetteer: Gazetteer,
                         tmp: str) -> set[str]:
    """Chunks ingested before this batch that mention one of the new titles get MENTIONS and RELATED edges."""
    if not titles or not rows(conn, "MATCH (c:Chunk) WHERE NOT c.id IN $b RETURN c.id LIMIT 1", {"b": sorted(batch)}):
        return set()
    found: dict[str, set[str]] = {}
    for key in titles:
        hits = [i for i, _ in kb.bm25_search(gazetteer.labels.get(key, key), 50) if i not in batch]
        for cid, rec in kb.catalog.get_chunks(hits).items():
            text = rec.text.lower()
            if (key in text if cjk_ratio(key) > 0.5 else f" {key} " in f" {' '.join(_WORDS.findall(text))} "):
                found.setdefault(cid, set()).add(key)
    if not found:
        return set()
    have = {(r[0], r[1]) for r in rows(conn, "MATCH (c:Chunk)-[:MENTIONS]->(e:Entity) WHERE c.id IN $ids "
                                            "RETURN c.id, e.name", {"ids": sorted(found)})}
    mains = {r[0]: r[1] for r in rows(conn, "MATCH (c:Chunk)-[m:MENTIONS]->(e:Entity) WHERE c.id IN $ids AND "
                                            "m.role = 'title' RETURN c.id, e.name", {"ids": sorted(found)})}
    mentions = [(cid, key, "mention") for cid, keys in found.items() for key in keys if (cid, key) not in have]
    related = [(min(mains[c], k), max(mains[c], k), 1.0, c) for c, k, _ in mentions if c in mains and mains[c] != k]
    _copy(conn, "MENTIONS", mentions, tmp)
    _copy(conn, "RELATED", related, tmp)
    return {k for _, k, _ in mentions}


def entity_graph_enricher(ctx: Any) -> Any:
    """The enricher for a context: the configured LLM when there is one, else the offline rules."""
    from queryweave.models import get_chat_model, model_settings

    llm = get_chat_model(model_settings(ctx))

    def enrich(kb: KnowledgeBase, changed: list[str]) -> None:
        build_entity_graph(kb, changed, llm)

    return enrich


# -- reading --------------------------------------------------------------------------------------
def expand(kb: KnowledgeBase, query: str, depth: int = 2, limit: int = 50, max_df: float = 0.05,
           beam: int = 30) -> list[tuple[str, float, list[str]]]:
    """Chunks reached from the query's entities over up to `depth` RELATED hops: [(chunk id, score, path)].

    An entity's score is its IDF share (names in more than `max_df` of the chunks dropped) times,
    per hop, a decay of 0.5 and the edge strength w/(w+1) (w: summed weights of the chunks stating
    the relation), keeping the best `beam` entities per hop; a chunk gets the scores of the entities
    it mentions (full for its main entity, half for a mention). `path` lists the entity labels from
    a query entity to the one that brought the chunk.
    """
    with open_graph(kb) as g:
        return g.expand(query, depth, limit, max_df, beam) if g is not None else []


def neighbours(kb: KnowledgeBase, chunk_ids: list[str], max_df: float = 0.05) -> list[dict[str, Any]]:
    """Chunks one entity away from the given chunks, through a main entity on either side.

    Forward: an entity the chunk mentions is another chunk's main entity (the paragraph about a name
    it mentions). Backward: another chunk mentions this chunk's main entity. Chunks of the same main
    entity (same document) are left out. Rows: seed, chunk, entity (label), key, df, direction.
    """
    with open_graph(kb) as g:
        return g.neighbours(chunk_ids, max_df) if g is not None else []
