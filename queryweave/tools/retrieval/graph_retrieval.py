"""The "reasoning" strategy: hybrid retrieval widened through the entity graph, fused with provenance.

Multi-hop questions need a second passage that shares few words with the question: the paragraph
about a name the first passage mentions (the bridge entity), or about a second name in the question.
`graph_search` takes the hybrid ranking and adds two graph rankings:
- `graph`: the passages one entity away from the top `seeds` hybrid passages
  (`GraphReader.neighbours`: the paragraphs about names a seed mentions, and those that mention a
  seed's main entity), ordered by embedding similarity to the question - the link says which
  passages are candidates, the question says which of them matters;
- `walk`: the passages reached from the question's own entities over RELATED (`expand`, `depth`
  hops), ordered by their graph score (hops, edge strength, IDF).
Both are fused with the rest of the hybrid ranking by reciprocal-rank fusion; the top `seeds` stay
where they are. Every candidate keeps `matched_by`: `original` (and `original:bm25`/`original:dense`)
for hybrid, `graph` / `walk` for the graph rankings, and one `graph:<path>` entry saying how the graph
reached it ("#1 > Square": through the entity Square of the first seed; "LeakCanary > Square": a walk).
"""

from __future__ import annotations

from dataclasses import dataclass

from queryweave.tools.common.fusion import Candidate, rrf, weighted_fusion
from queryweave.tools.ingest.entity_graph import GraphReader, open_graph
from queryweave.tools.retrieval.settings import RetrievalSettings
from queryweave.tools.stores.kb import KnowledgeBase, chunk_vectors


@dataclass
class GraphSettings:
    """How far the graph walks and how much its rankings weigh against hybrid's."""

    seeds: int = 2  # hybrid passages that seed the walk (and keep their rank)
    depth: int = 2  # RELATED hops from the question's entities
    walk_limit: int = 30  # chunks taken from the question-entity walk
    max_df: float = 0.05  # names in more than this share of chunks are ignored
    graph_weight: float = 1.0  # RRF weight of the seeds' neighbours (hybrid's is 1.0)
    walk_weight: float = 0.5  # RRF weight of the question-entity walk
    walk_order: str = "graph"  # or "similarity"


def _similarities(kb: KnowledgeBase, ids: list[str], vector: list[float]) -> dict[str, float]:
    import numpy as np

    q = np.asarray(vector, dtype=np.float32)
    q = q / (float(np.linalg.norm(q)) or 1.0)
    return {i: float(v @ q) for i, v in chunk_vectors(kb, ids).items()}


def hybrid_candidates(kb: KnowledgeBase, query: str, settings: RetrievalSettings, where: dict | None = None,
                      vector: list[float] | None = None, allowed: set[str] | None = None) -> list[Candidate]:
    """BM25 + dense over the whole pool, fused as `KnowledgeBase.hybrid_search` does (one query embedding)."""
    vector = vector if vector is not None else kb.embeddings.embed_query(query)
    dense = kb.dense_search(query, settings.pool, where=where, query_vector=vector)
    sparse = kb.bm25_search(query, settings.pool)
    if allowed is not None:
        sparse = [(i, s) for i, s in sparse if i in allowed]
    rankings = {"bm25": sparse, "dense": dense}
    if settings.fusion == "rrf":
        return rrf(rankings, settings.weights, k=settings.rrf_k)
    return weighted_fusion(rankings, settings.weights)


def seed_neighbours(reader: GraphReader, seeds: list[str], graph: GraphSettings) -> dict[str, tuple[float, list[str]]]:
    """{chunk id: (score, path)} one entity away from the seeds (forward links count double)."""
    rank_of = {cid: r for r, cid in enumerate(seeds)}
    found: dict[str, tuple[float, list[str]]] = {}
    for row in reader.neighbours(seeds, max_df=graph.max_df):
        if row["chunk"] in rank_of:
            continue
        score = 1.0 / (1 + rank_of[row["seed"]]) * (1.0 if row["direction"] == "forward" else 0.5)
        old = found.get(row["chunk"], (0.0, []))
        path = [f"#{rank_of[row['seed']] + 1}", row["entity"]]
        found[row["chunk"]] = (old[0] + score, path if score > old[0] else old[1])
    return found


def graph_search(kb: KnowledgeBase, query: str, k: int, settings: RetrievalSettings | None = None,
                 graph: GraphSettings | None = None, where: dict | None = None,
                 vector: list[float] | None = None) -> list[Candidate]:
    """Hybrid retrieval plus graph expansion (see the module docstring); the top `k` with provenance.

    `vector` is the question's embedding when the caller has it already; `where` a Chroma filter
    that restricts hybrid and graph candidates alike.
    """
    settings = settings or RetrievalSettings()
    graph = graph or GraphSettings()
    vector = vector if vector is not None else kb.embeddings.embed_query(query)
    allowed = set(kb.vectors.collection.get(where=where, include=[])["ids"]) if where else None
    first = hybrid_candidates(kb, query, settings, where, vector, allowed)
    for rank, c in enumerate(first, 1):
        c.matched_by = {**{f"original:{m}": v for m, v in c.matched_by.items()}, "original": (rank, c.score)}
    head, rest = first[: graph.seeds], first[graph.seeds :]
    seeds = [c.id for c in head]
    with open_graph(kb) as reader:
        if reader is None:
            return first[:k]
        near = seed_neighbours(reader, seeds, graph)
        walk = {cid: (s, p) for cid, s, p in reader.expand(query, graph.depth, graph.walk_limit, graph.max_df)
                if cid not in seeds} if graph.walk_limit > 0 else {}
    if allowed is not None:
        near = {i: v for i, v in near.items() if i in allowed}
        walk = {i: v for i, v in walk.items() if i in allowed}
    if not near and not walk:
        return first[:k]
    sims = _similarities(kb, sorted(set(near) | set(walk)), vector)
    lists = {"hybrid": [(c.id, c.score) for c in rest],
             "graph": [(i, near[i][0]) for i in sorted(near, key=lambda i: (-sims.get(i, 0.0), -near[i][0], i))]}
    if walk:
        order = (lambda i: (-sims.get(i, 0.0), -walk[i][0], i)) if graph.walk_order == "similarity" \
            else (lambda i: (-walk[i][0], -sims.get(i, 0.0), i))
        lists["walk"] = [(i, walk[i][0]) for i in sorted(walk, key=order)]
    merged = rrf(lists, {"hybrid": 1.0, "graph": graph.graph_weight, "walk": graph.walk_weight}, k=settings.rrf_k)
    by_id = {c.id: c for c in rest}
    paths = {**walk, **near}
    out = list(head)
    for m in merged:
        c = by_id.get(m.id) or Candidate(m.id, 0.0, {})
        c.score = m.score
        for label in ("graph", "walk"):
            if label in m.matched_by:
                c.matched_by[label] = m.matched_by[label]
        if m.id in paths:
            c.matched_by["graph:" + " > ".join(paths[m.id][1])] = (m.matched_by.get("graph") or m.matched_by["walk"])
        out.append(c)
    return out[:k]
