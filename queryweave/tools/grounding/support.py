"""Evidence features of one claim against a set of source texts (no LLM, no graph).

`SourceIndex` prepares the sources once (sentences, stemmed tokens, word n-grams, numbers, optional
sentence embeddings); `claim_features` measures how well one claim is carried by them:

- `lex`      share of the claim's content tokens found anywhere in the sources (stemmed; jieba for Chinese)
- `local`    share found inside the single best window of two adjacent source sentences
- `order`    share found inside one window *in the claim's order* (longest common subsequence)
- `frag`     verbatim-fragment density of the claim inside that window (`fragment_density`)
- `copy`     verbatim support anywhere in the sources: sqrt(sum of squared fragment lengths) / length
- `jumps`    recombination: how often the claim's copied phrases (3+ units) switch to a distant
             place of the sources (`overlap.source_jumps`); 0 for a claim taken from one passage
- `novel2`   share of the claim's word bigrams (character bigrams for Chinese) found in no source
- `emb`      best cosine similarity between the claim and a source sentence (when embeddings are given)
- `num_missing`, `ent_missing`, `neg_mismatch`  checkable facts that contradict or escape the sources
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from queryweave.tools.grounding.claims import sentences
from queryweave.tools.grounding.facts import (
    negation_scopes,
    number_values,
    unsupported_entities,
    unsupported_numbers,
)
from queryweave.tools.grounding.overlap import (
    bigrams,
    content_tokens,
    copy_support,
    fragment_density,
    lcs_length,
    source_jumps,
    stem_units,
    surface_units,
)


def negated_terms(text: str, width: int = 3) -> set[str]:
    """Content tokens inside the scope of a negation cue of `text` (the first `width` of each)."""
    return {t for scope in negation_scopes(text) for t in content_tokens(scope)[:width]}


def negation_heads(text: str) -> list[tuple[str, ...]]:
    """For each negation cue of `text`, its first two content tokens (what is denied)."""
    return [tuple(content_tokens(scope)[:2]) for scope in negation_scopes(text) if content_tokens(scope)]


@dataclass
class SourceIndex:
    """The sources, prepared once for many claims: sentences, and windows of adjacent sentences."""

    sources: list[str]
    sentences: list[str] = field(default_factory=list)
    sentence_window: list[int] = field(default_factory=list)
    windows: list[str] = field(default_factory=list)
    window_source: list[int] = field(default_factory=list)
    window_tokens: list[set[str]] = field(default_factory=list)
    window_seqs: list[list[str]] = field(default_factory=list)
    window_units: list[list[str]] = field(default_factory=list)
    units: list[str] = field(default_factory=list)
    unit_starts: dict[str, list[int]] = field(default_factory=dict)
    window_neg: list[set[str]] = field(default_factory=list)
    window_heads: list[list[tuple[str, ...]]] = field(default_factory=list)
    window_sentences: list[range] = field(default_factory=list)
    sentence_tokens: list[set[str]] = field(default_factory=list)
    sentence_heads: list[list[tuple[str, ...]]] = field(default_factory=list)
    vocab: set[str] = field(default_factory=set)
    bigram_set: set[tuple[str, str]] = field(default_factory=set)
    number_set: set[float] = field(default_factory=set)
    text: str = ""
    embeddings: object | None = None
    _sentence_vecs: np.ndarray | None = None

    @classmethod
    def build(cls, sources: list[str], embeddings=None, window: int = 2) -> SourceIndex:
        """Index `sources`: their sentences, and windows of `window` adjacent sentences in each."""
        idx = cls(sources=[s or "" for s in sources], embeddings=embeddings)
        for i, src in enumerate(idx.sources):
            sents = sentences(src) or ([src] if src.strip() else [])
            first = len(idx.windows)
            base = len(idx.sentences)
            starts = range(max(1, len(sents) - window + 1)) if sents else []
            for j in starts:
                span = " ".join(sents[j : j + window])
                idx.windows.append(span)
                idx.window_source.append(i)
                seq = content_tokens(span)
                idx.window_seqs.append(seq)
                idx.window_units.append(stem_units(span))
                idx.window_tokens.append(set(seq))
                idx.window_neg.append(negated_terms(span))
                idx.window_heads.append(negation_heads(span))
                idx.window_sentences.append(range(base + j, base + min(j + window, len(sents))))
            for j, sent in enumerate(sents):
                idx.sentences.append(sent)
                idx.sentence_tokens.append(set(content_tokens(sent)))
                idx.sentence_heads.append(negation_heads(sent))
                idx.sentence_window.append(first + min(j, len(starts) - 1))
            idx.units.extend([*stem_units(src), "\x00"])  # a separator: no fragment spans two sources
            idx.vocab.update(content_tokens(src))
            idx.bigram_set.update(bigrams(surface_units(src)))
            idx.number_set.update(number_values(src))
        idx.text = "\n".join(idx.sources)
        for j, u in enumerate(idx.units):
            idx.unit_starts.setdefault(u, []).append(j)
        return idx

    def sentence_vectors(self) -> np.ndarray | None:
        """Unit-normalised embeddings of the source sentences (computed once; None without embeddings)."""
        if self.embeddings is None or not self.sentences:
            return None
        if self._sentence_vecs is None:
            vecs = np.asarray(self.embeddings.embed_documents(self.sentences), np.float32)
            self._sentence_vecs = _normalise(vecs)
        return self._sentence_vecs


def ordered_support(toks: list[str], index: SourceIndex) -> tuple[float, int]:
    """Best share of the claim's tokens found *in the same order* inside one window (LCS / len),
    and that window. Windows are tried by decreasing bag overlap; the search stops once no
    remaining window could beat the best (LCS never exceeds the overlap)."""
    if not toks:
        return 1.0, -1
    tokset = set(toks)
    overlaps = sorted(((len(tokset & wt), j) for j, wt in enumerate(index.window_tokens)), reverse=True)
    best, best_j = 0, -1
    for overlap, j in overlaps:
        if overlap <= best:
            break
        seq = [t for t in index.window_seqs[j] if t in tokset]
        length = lcs_length(toks, seq)
        if length > best:
            best, best_j = length, j
    return best / len(toks), best_j


def _normalise(m: np.ndarray) -> np.ndarray:
    n = np.linalg.norm(m, axis=-1, keepdims=True)
    return m / np.where(n == 0, 1, n)


def claim_features(claim: str, index: SourceIndex, claim_vec: np.ndarray | None = None) -> dict:
    """Evidence features of `claim` against `index` (see the module docstring), plus `best_window`,
    `best_source` and the lists `missing_tokens`, `missing_numbers`, `missing_entities`."""
    toks = content_tokens(claim)
    tokset = set(toks)
    missing_tokens = [t for t in dict.fromkeys(toks) if t not in index.vocab]
    lex = 1.0 - len(missing_tokens) / len(tokset) if tokset else 1.0
    best, local = -1, 0.0
    for j, wt in enumerate(index.window_tokens):
        if tokset:
            cov = len(tokset & wt) / len(tokset)
            if cov > local:
                best, local = j, cov
    emb = None
    vecs = index.sentence_vectors() if claim_vec is not None else None
    if vecs is not None and len(vecs):
        sims = vecs @ _normalise(np.asarray(claim_vec, np.float32).reshape(1, -1))[0]
        j = int(np.argmax(sims))
        emb = float(sims[j])
        if best < 0 or local < 0.5:
            best = index.sentence_window[j]
    order, order_j = ordered_support(toks, index)
    if order_j >= 0 and (best < 0 or order >= local - 1e-9):
        best = order_j
    units = stem_units(claim)
    frag = fragment_density(units, index.window_units[order_j]) if order_j >= 0 else 0.0
    copy = copy_support(units, index.units, index.unit_starts)
    jumps = source_jumps(units, index.units, index.unit_starts)
    grams = bigrams(surface_units(claim))
    novel2 = sum(1 for g in grams if g not in index.bigram_set) / len(grams) if grams else 0.0
    miss_num = unsupported_numbers(claim, index.number_set)
    miss_ent = unsupported_entities(claim, index.text)
    neg_mismatch = False
    if best >= 0 and local >= 0.6:
        # compare with the best sentence of the best window
        k = max(index.window_sentences[best], key=lambda i: len(tokset & index.sentence_tokens[i]))
        wt, src_heads = index.sentence_tokens[k], index.sentence_heads[k]
        heads = negation_heads(claim)
        if heads and not src_heads:
            # the claim denies what a negation-free source passage states
            neg_mismatch = any(h[0] in wt for h in heads)
        elif src_heads and not heads and local >= 0.8:
            # the source denies the very phrase the claim states (its two first words, adjacent)
            pairs = set(bigrams(toks))
            neg_mismatch = any(len(h) == 2 and h in pairs for h in src_heads)
    return {
        "lex": lex,
        "local": local,
        "order": order,
        "frag": frag,
        "copy": copy,
        "jumps": jumps,
        "n_units": len(units),
        "novel2": novel2,
        "emb": emb,
        "n_tokens": len(tokset),
        "n_missing": len(missing_tokens),
        "num_missing": len(miss_num),
        "ent_missing": len(miss_ent),
        "neg_mismatch": neg_mismatch,
        "best_window": best,
        "best_source": index.window_source[best] if best >= 0 else None,
        "missing_tokens": missing_tokens,
        "missing_numbers": miss_num,
        "missing_entities": miss_ent,
    }
