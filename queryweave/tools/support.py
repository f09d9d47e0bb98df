"""Evidence features of one claim against a set of source texts (no LLM, no graph).

`SourceIndex` prepares the sources once (sentences, stemmed tokens, word n-grams, numbers, optional
sentence embeddings); `claim_features` measures how well one claim is carried by them:

- `lex`      share of the claim's content tokens found anywhere in the sources (stemmed; jieba for Chinese)
- `local`    share found inside the single best window of two adjacent source sentences
- `order`    share found inside one window *in the claim's order* (longest common subsequence)
- `frag`     verbatim-fragment density of the claim inside that window (`fragment_density`)
- `novel2`   share of the claim's word bigrams (character bigrams for Chinese) found in no source
- `emb`      best cosine similarity between the claim and a source sentence (when embeddings are given)
- `num_missing`, `ent_missing`, `neg_mismatch`  checkable facts that contradict or escape the sources
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from queryweave.tools.claims import (
    negation_scopes,
    number_values,
    sentences,
    unsupported_entities,
    unsupported_numbers,
)
from queryweave.tools.text import EN_STOPWORDS, _stemmer, tokenize

_IRREGULAR = {}
for _line in """say said says | go went gone goes | take took taken | make made | find found | give gave given |
    tell told | come came | get got gotten | know knew known | think thought | see saw seen | leave left |
    hold held | bring brought | buy bought | win won | lose lost | pay paid | meet met | run ran |
    keep kept | begin began begun | write wrote written | speak spoke spoken | fall fell fallen |
    build built | send sent | spend spent | sell sold | steal stole stolen | shoot shot | hit hit |
    die dead death died | kill killed | catch caught | fight fought | teach taught | seek sought |
    rise rose risen | drive drove driven | fly flew flown | grow grew grown | draw drew drawn |
    throw threw thrown | wear wore worn | choose chose chosen | break broke broken | eat ate eaten |
    feel felt | stand stood | understand understood | lead led | feed fed | flee fled | hide hid hidden |
    bear bore born borne | become became | child children | man men | woman women | person people""".split("|"):
    _forms = _line.split()
    for _f in _forms[1:]:
        _IRREGULAR[_f] = _forms[0]

_ZH_NEG_WORDS = frozenset("不 没 没有 未 无 非 不是 并非 不会 不能 未能 并未 并不 从未 从不 尚未".split())
_FRAGMENTS = EN_STOPWORDS | {"ll", "ve", "re", "d", "s", "t", "m", "one", "year", "old"}
_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]+")


def content_tokens(text: str) -> list[str]:
    """Stemmed content tokens (`tokenize`), with common irregular English forms folded
    ("said" -> "say", "went" -> "go") so paraphrase across tense is not counted as new content."""
    stemmer = _stemmer()
    out = []
    for raw in tokenize(text, stem=False):
        if _CJK_RUN.match(raw):
            if raw not in _ZH_NEG_WORDS:
                out.append(raw)
            continue
        for part in re.split(r"[-.]", raw) if "-" in raw else [raw]:
            if not part or part in _FRAGMENTS:
                continue
            base = _IRREGULAR.get(part, part)
            out.append(stemmer.stemWord(base) if stemmer else base)
    return out


def negated_terms(text: str, width: int = 3) -> set[str]:
    """Content tokens inside the scope of a negation cue of `text` (the first `width` of each)."""
    return {t for scope in negation_scopes(text) for t in content_tokens(scope)[:width]}


def negation_heads(text: str) -> list[tuple[str, ...]]:
    """For each negation cue of `text`, its first two content tokens (what is denied)."""
    return [tuple(content_tokens(scope)[:2]) for scope in negation_scopes(text) if content_tokens(scope)]


def surface_units(text: str) -> list[str]:
    """Lower-case surface units for n-grams: Latin words and single CJK characters, in order."""
    low = text.lower()
    out: list[str] = []
    for m in re.finditer(r"[a-z0-9]+(?:['’][a-z]+)?|[\u3400-\u4dbf\u4e00-\u9fff]", low):
        out.append(m.group(0))
    return out


def stem_units(text: str) -> list[str]:
    """`surface_units` with Latin words stemmed (stop words kept): the units of verbatim fragments."""
    stemmer = _stemmer()
    return [stemmer.stemWord(u) if stemmer and u.isascii() else u for u in surface_units(text)]


def fragment_density(claim_units: list[str], window_units: list[str]) -> float:
    """How much of the claim is copied in long contiguous runs from the window: greedy longest
    fragments (Grusky et al.'s extractive fragments), sum of squared lengths / len(claim)^2.
    1.0 for a verbatim copy, near 0 for a claim whose words are scattered or absent."""
    if not claim_units:
        return 1.0
    starts: dict[str, list[int]] = {}
    for j, u in enumerate(window_units):
        starts.setdefault(u, []).append(j)
    total, i, n = 0, 0, len(claim_units)
    while i < n:
        best = 0
        for j in starts.get(claim_units[i], ()):
            k = 1
            while i + k < n and j + k < len(window_units) and claim_units[i + k] == window_units[j + k]:
                k += 1
            best = max(best, k)
        if best:
            total += best * best
            i += best
        else:
            i += 1
    return total / (n * n)


def bigrams(units: list[str]) -> list[tuple[str, str]]:
    """Adjacent pairs of `units`."""
    return list(zip(units, units[1:], strict=False))


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
    window_neg: list[set[str]] = field(default_factory=list)
    window_heads: list[list[tuple[str, ...]]] = field(default_factory=list)
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
            for j, sent in enumerate(sents):
                idx.sentences.append(sent)
                idx.sentence_window.append(first + min(j, len(starts) - 1))
            idx.vocab.update(content_tokens(src))
            idx.bigram_set.update(bigrams(surface_units(src)))
            idx.number_set.update(number_values(src))
        idx.text = "\n".join(idx.sources)
        return idx

    def sentence_vectors(self) -> np.ndarray | None:
        """Unit-normalised embeddings of the source sentences (computed once; None without embeddings)."""
        if self.embeddings is None or not self.sentences:
            return None
        if self._sentence_vecs is None:
            vecs = np.asarray(self.embeddings.embed_documents(self.sentences), np.float32)
            self._sentence_vecs = _normalise(vecs)
        return self._sentence_vecs


def lcs_length(a: list[str], b: list[str]) -> int:
    """Length of the longest common subsequence of two token lists."""
    if not a or not b:
        return 0
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b):
            cur.append(prev[j] + 1 if x == y else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]


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
    frag = fragment_density(stem_units(claim), index.window_units[order_j]) if order_j >= 0 else 0.0
    grams = bigrams(surface_units(claim))
    novel2 = sum(1 for g in grams if g not in index.bigram_set) / len(grams) if grams else 0.0
    miss_num = unsupported_numbers(claim, index.number_set)
    miss_ent = unsupported_entities(claim, index.text)
    neg_mismatch = False
    if best >= 0 and local >= 0.6:
        wt, src_neg = index.window_tokens[best], index.window_neg[best]
        heads = negation_heads(claim)
        # the claim denies what the source states: its denied word is there, never denied
        neg_mismatch = any(h[0] in wt and h[0] not in src_neg for h in heads)
        if not heads and local >= 0.8:
            # the source denies what the claim states: the denied words are all in the claim
            neg_mismatch = any(set(h) <= tokset for h in index.window_heads[best])
    return {
        "lex": lex,
        "local": local,
        "order": order,
        "frag": frag,
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
