"""Overlap measures between a claim and source text: tokens, units, n-grams, LCS, copied fragments.

Knows nothing of the graph. `content_tokens` are stemmed content words (irregular English forms
folded, Chinese negation words dropped); `stem_units` keep every word (stemmed) and every CJK
character, in order, for verbatim-fragment measures (Grusky et al.'s extractive fragments).
"""

from __future__ import annotations

import math
import re

from queryweave.tools.common.text import EN_STOPWORDS, _stemmer, tokenize

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


def surface_units(text: str) -> list[str]:
    """Lower-case surface units for n-grams: Latin words and single CJK characters, in order."""
    low = text.lower()
    out: list[str] = []
    for m in re.finditer(r"[a-z0-9]+(?:['’][a-z]+)?|[\u3400-\u4dbf\u4e00-\u9fff]", low):
        out.append(m.group(0))
    return out


def stem_units(text: str) -> list[str]:
    """`surface_units` with Latin words stemmed (stop words kept) and common irregular forms folded
    as in `content_tokens` ("said" -> "say"): the units of verbatim fragments, so a phrase copied
    with its tense changed ("the prosecutor says" from "the prosecutor said") is still one fragment."""
    stemmer = _stemmer()
    out = []
    for u in surface_units(text):
        if u.isascii():
            u = _IRREGULAR.get(u, u)
            u = stemmer.stemWord(u) if stemmer else u
        out.append(u)
    return out


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


def shared_fragments(
    claim_units: list[str], source_units: list[str], starts: dict[str, list[int]]
) -> list[tuple[int, int, list[int]]]:
    """The claim's greedy longest fragments shared with `source_units` (`starts`: unit ->
    positions), left to right: (position in the claim, length, every source position where a
    fragment of that length starts)."""
    out: list[tuple[int, int, list[int]]] = []
    i, n = 0, len(claim_units)
    while i < n:
        best, where = 0, []
        for j in starts.get(claim_units[i], ()):
            k = 1
            while i + k < n and j + k < len(source_units) and claim_units[i + k] == source_units[j + k]:
                k += 1
            if k > best:
                best, where = k, [j]
            elif k == best:
                where.append(j)
        if best:
            out.append((i, best, where))
            i += best
        else:
            i += 1
    return out


def copy_support(claim_units: list[str], source_units: list[str], starts: dict[str, list[int]]) -> float:
    """Verbatim support of a claim anywhere in the sources: the greedy longest fragments it shares
    with `source_units` (`starts`: unit -> positions), as sqrt(sum of squared lengths) / len(claim).
    1.0 for a sentence copied whole; k equal fragments covering it give 1/sqrt(k); 0 when nothing
    is shared. Long copied runs weigh more than the same words scattered."""
    n = len(claim_units)
    if not n:
        return 1.0
    total = sum(length * length for _, length, _ in shared_fragments(claim_units, source_units, starts))
    return math.sqrt(total) / n


def source_jumps(
    claim_units: list[str], source_units: list[str], starts: dict[str, list[int]],
    min_len: int = 3, near: int = 20,
) -> int:
    """Recombination: how many times the claim's copied phrases (shared fragments of at least
    `min_len` units, in the claim's order) switch to a distant place of the sources — no
    occurrence of the next phrase within `near` units of where the previous one ended. 0 for a
    sentence copied or compressed from one passage; each phrase stitched in from elsewhere adds
    one ("Carey replaced Barker" built from "Carey ... hosted" and "replaced Barker ..." far apart).
    Call it per sentence: a text's sentences may come from different places."""
    jumps, prev = 0, None
    for _, length, where in shared_fragments(claim_units, source_units, starts):
        if length < min_len:
            continue
        if prev is not None:
            close = [j for j in where if -near < j - prev < near]
            jumps += not close
            prev = (close[0] if close else where[0]) + length
        else:
            prev = where[0] + length
    return jumps


def bigrams(units: list[str]) -> list[tuple[str, str]]:
    """Adjacent pairs of `units`."""
    return list(zip(units, units[1:], strict=False))


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
