"""Title links: one hop from the best chunks to the documents they mention, or that mention them.

Multi-hop questions ("Who directed the film shot in Leland in 1986?") need a second document that
shares few words with the question but is named in the first one (or names it). A chunk *links* to
every document whose title appears in its text, and is linked from every chunk whose text contains
its own title. After fusion, the top `seeds` candidates stay where they are; the documents linked
with them (ordered by seed rank, then by embedding similarity to the question) are fused with the
rest of the ranking. Titles that are too common to mean anything (their rarest word in more than
`max_df` of the chunks, at least 3, e.g. "United") or too short are ignored. Forward links use a title
dictionary built once per catalog version; backward links are found lazily through the BM25 index
and verified by substring, so nothing is precomputed per chunk pair.
"""

from __future__ import annotations

import re
import threading
from collections import defaultdict
from typing import Any

from queryweave.tools.common.text import cjk_ratio, tokenize
from queryweave.tools.stores.kb import KnowledgeBase

_WORDS = re.compile(r"\w+")
_PAREN = re.compile(r"\s*[(（][^)）]*[)）]\s*$")
MAX_TITLE_WORDS = 8


def title_key(title: str) -> str:
    """A title's matching key: disambiguation "(musician)" dropped, lower-case words joined by spaces."""
    return " ".join(_WORDS.findall(_PAREN.sub("", title or "").lower()))


class TitleIndex:
    """Title key -> chunk ids, for one catalog version."""

    def __init__(self, kb: KnowledgeBase, max_df: float = 0.05) -> None:
        self.kb = kb
        self.by_title: dict[str, list[str]] = defaultdict(list)
        self.title_of: dict[str, str] = {}
        self.cjk_titles: dict[int, set[str]] = defaultdict(set)  # CJK titles by length (substring matching)
        bm = kb.bm25()
        n_chunks = max(1, len(bm.ids))
        vocab, indptr = ({}, None)
        if bm.retriever is not None:
            vocab, indptr = bm.retriever.vocab_dict, bm.retriever.scores["indptr"]
        for c in kb.catalog.iter_chunks():
            key = title_key(str(c.metadata.get("title", "")))
            if not self._usable(key, vocab, indptr, n_chunks, max_df):
                continue
            self.by_title[key].append(c.id)
            self.title_of[c.id] = key
            if cjk_ratio(key) > 0.5:
                self.cjk_titles[len(key)].add(key)

    @staticmethod
    def _usable(key: str, vocab: dict, indptr: Any, n_chunks: int, max_df: float) -> bool:
        if len(key) < (2 if cjk_ratio(key) > 0.5 else 4) or len(key.split()) > MAX_TITLE_WORDS:
            return False
        toks = tokenize(key)
        if not toks or indptr is None:
            return bool(toks)
        dfs = [int(indptr[vocab[t] + 1] - indptr[vocab[t]]) for t in toks if t in vocab]
        return bool(dfs) and min(dfs) <= max(3.0, max_df * n_chunks)

    def mentioned_in(self, text: str) -> set[str]:
        """Title keys that occur in a text (word n-grams; substrings for Chinese titles)."""
        words = _WORDS.findall(text.lower())
        found = set()
        for n in range(1, MAX_TITLE_WORDS + 1):
            for i in range(len(words) - n + 1):
                key = " ".join(words[i : i + n])
                if key in self.by_title:
                    found.add(key)
        if self.cjk_titles:
            low = text.lower()
            for length, keys in self.cjk_titles.items():
                if length > 1:
                    found.update(k for k in keys if k in low)
        return found

    def mentioning(self, key: str, limit: int = 50) -> set[str]:
        """Chunks whose text contains the title (BM25 candidates, verified by substring)."""
        hits = self.kb.bm25_search(key, limit)
        records = self.kb.catalog.get_chunks(i for i, _ in hits)
        return {i for i, rec in records.items() if key in " ".join(_WORDS.findall(rec.text.lower()))
                or (cjk_ratio(key) > 0.5 and key in rec.text.lower())}

    def linked(self, chunk_id: str) -> set[str]:
        """Chunks one title-hop away from a chunk (both directions), the chunk's own document excluded."""
        rec = self.kb.catalog.get_chunks([chunk_id]).get(chunk_id)
        if rec is None:
            return set()
        own = self.title_of.get(chunk_id)
        out: set[str] = set()
        for key in self.mentioned_in(rec.text):
            if key != own:
                out.update(self.by_title[key])
        if own:
            out.update(self.mentioning(own))
        same_doc = set(self.by_title.get(own, [])) if own else set()
        return out - same_doc - {chunk_id}


_INDEXES: dict[tuple[str, str, str], TitleIndex] = {}
_LOCK = threading.Lock()


def title_index(kb: KnowledgeBase) -> TitleIndex:
    """The title index of a knowledge base, rebuilt when the catalog changed."""
    key = (str(kb.data_dir), kb.catalog.get_meta("version") or "0", kb.embedding_name)
    with _LOCK:
        if key not in _INDEXES or _INDEXES[key].kb is not kb:  # a reopened KB must not reuse a closed one
            for old in [k for k in _INDEXES if k[0] == key[0]]:
                del _INDEXES[old]
            _INDEXES[key] = TitleIndex(kb)
        return _INDEXES[key]


def linked_ranking(kb: KnowledgeBase, seeds: list[str], query_vector: list[float] | None = None,
                   allowed: set[str] | None = None) -> list[tuple[str, float]]:
    """Chunks linked with the seeds, by seed rank then similarity to the query: [(id, similarity)]."""
    import numpy as np

    from queryweave.tools.stores.kb import chunk_vectors

    index = title_index(kb)
    first_seed: dict[str, int] = {}
    for rank, cid in enumerate(seeds):
        for other in index.linked(cid):
            if other not in seeds and (allowed is None or other in allowed):
                first_seed.setdefault(other, rank)
    if not first_seed:
        return []
    sims = {i: 0.0 for i in first_seed}
    if query_vector is not None:
        q = np.asarray(query_vector, dtype=np.float32)
        q = q / (float(np.linalg.norm(q)) or 1.0)
        sims.update({i: float(v @ q) for i, v in chunk_vectors(kb, list(first_seed)).items()})
    return sorted(((i, sims[i]) for i in first_seed), key=lambda x: (first_seed[x[0]], -x[1]))


def add_links(kb: KnowledgeBase, fused: list, seeds: int = 2, weight: float = 1.0, rrf_k: int = 60,
              query_vector: list[float] | None = None, allowed: set[str] | None = None) -> list:
    """Keep the top `seeds` candidates; fuse the rest with the chunks title-linked to them (label `links`)."""
    from queryweave.tools.common.fusion import Candidate, rrf

    head, rest = fused[:seeds], fused[seeds:]
    linked = linked_ranking(kb, [c.id for c in head], query_vector, allowed)
    if not linked:
        return fused
    merged = rrf({"fused": [(c.id, c.score) for c in rest], "links": linked}, {"fused": 1.0, "links": weight}, k=rrf_k)
    by_id = {c.id: c for c in rest}
    out = list(head)
    for m in merged:
        c = by_id.get(m.id) or Candidate(m.id, 0.0, {})
        if "links" in m.matched_by:
            c.matched_by["links"] = m.matched_by["links"]
        out.append(c)
    return out
