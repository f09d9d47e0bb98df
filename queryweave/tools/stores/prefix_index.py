"""A static prefix index: word-start prefix matching with top-k by a fixed rank, in microseconds.

Every entry contributes one key per word start (the text start, each Latin word, each jieba word
inside a Chinese run). Keys are sorted once; a prefix is a contiguous range found by bisect. The best
entries of a range come from a sparse-table range-minimum structure over the keys' static ranks
(match at text start before match inside, then the entry's order), popped with a heap, so a
one-letter prefix over 10k titles costs the same as a long one.
"""

from __future__ import annotations

import heapq
import re
import unicodedata
from bisect import bisect_left
from functools import lru_cache

import numpy as np

KEY_CHARS = 32
_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_LATIN_START = re.compile(r"(?<![0-9a-z])[0-9a-z]")


def normalize(text: str) -> str:
    """NFKC, case-folded, whitespace collapsed."""
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text).casefold()).strip()


@lru_cache(maxsize=1)
def _jieba():
    import logging

    import jieba

    jieba.setLogLevel(logging.WARNING)
    jieba.initialize()
    return jieba


def word_starts(norm: str) -> list[int]:
    """Offsets in a normalised text where a word starts (Latin words, and jieba words in CJK runs)."""
    starts = {0}
    starts.update(m.start() for m in _LATIN_START.finditer(norm))
    for run in _CJK_RUN.finditer(norm):
        starts.update(run.start() + start for _, start, _ in _jieba().tokenize(run.group(0), mode="search", HMM=False))
    return sorted(s for s in starts if s < len(norm) and not norm[s].isspace())


class PrefixIndex:
    """Sorted word-start keys over entries already ordered best-first; `top(prefix, k)` -> [(entry, tier)]."""

    def __init__(self, norms: list[str], starts: list[list[int]]) -> None:
        self.norms = norms
        n_entries = max(1, len(norms))
        rows = [(norm[s : s + KEY_CHARS], (0 if s == 0 else n_entries) + i)
                for i, (norm, st) in enumerate(zip(norms, starts, strict=True)) for s in st]
        rows.sort()
        self.keys = [r[0] for r in rows]
        self.rank = np.asarray([r[1] for r in rows], dtype=np.int64)
        self.n_entries = n_entries
        self._table = self._sparse_table(self.rank)

    @staticmethod
    def _sparse_table(rank: np.ndarray) -> list[np.ndarray]:
        table = [np.arange(len(rank), dtype=np.int32)]
        span = 1
        while span * 2 <= len(rank):
            prev = table[-1]
            a, b = prev[: len(rank) - 2 * span + 1], prev[span : len(rank) - span + 1]
            table.append(np.where(rank[a] <= rank[b], a, b).astype(np.int32))
            span *= 2
        return table

    def _argmin(self, lo: int, hi: int) -> int:
        level = (hi - lo).bit_length() - 1
        row = self._table[level]
        a, b = int(row[lo]), int(row[hi - (1 << level)])
        return a if self.rank[a] <= self.rank[b] else b

    def range(self, prefix: str) -> tuple[int, int]:
        """[lo, hi) of the keys starting with `prefix` (already normalised)."""
        p = prefix[:KEY_CHARS]
        return bisect_left(self.keys, p), bisect_left(self.keys, p + "\U0010ffff")

    def top(self, prefix: str, k: int) -> list[tuple[int, int]]:
        """Up to `k` distinct (entry, tier) best-first; tier 0 = match at the start of the text."""
        lo, hi = self.range(prefix)
        out: list[tuple[int, int]] = []
        if lo >= hi:
            return out
        seen: set[int] = set()
        first = self._argmin(lo, hi)
        heap = [(int(self.rank[first]), first, lo, hi)]
        long_prefix = len(prefix) > KEY_CHARS
        while heap and len(out) < k:
            r, i, a, b = heapq.heappop(heap)
            tier, entry = divmod(r, self.n_entries)
            if entry not in seen and (not long_prefix or prefix in self.norms[entry]):
                seen.add(entry)
                out.append((entry, tier))
            for x, y in ((a, i), (i + 1, b)):
                if x < y:
                    j = self._argmin(x, y)
                    heapq.heappush(heap, (int(self.rank[j]), j, x, y))
        return out
