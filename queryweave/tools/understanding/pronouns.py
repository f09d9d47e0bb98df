"""Pronoun replacement for follow-up resolution (Chinese and English), used by `queryweave.tools.understanding.coref`."""

from __future__ import annotations

import re

from queryweave.tools.common.text import EN_STOPWORDS
from queryweave.tools.understanding.coref_rules import Candidate, plural_candidate, typed_pick
from queryweave.tools.understanding.mentions import CLASS_NOUNS_EN, CLASS_NOUNS_ZH, extract_mentions

_CJK = r"\u3400-\u4dbf\u4e00-\u9fff"
_EN_DUMMY = re.compile(
    r"\b(?:is it|it is|it's|it was)\s+(?:possible|necessary|better|worth|safe|true|ok|okay|important|recommended|"
    r"a good idea|hard|easy|normal|bad|good)\b|\bit (?:depends|seems|looks like)\b", re.I)
_EN_VERBS = (r"is|are|does|do|work|works|mean|means|support|supports|have|has|require|requires|cost|costs|run|"
             r"runs|use|uses|take|takes|handle|handles|affect|affects|need|needs|compare|scale|scales|differ|"
             r"differs|help|helps|matter|matters|apply|applies|behave|behaves")
_ZH_CLASS = "|".join(sorted(CLASS_NOUNS_ZH, key=len, reverse=True))
_EN_CLASS = "|".join(CLASS_NOUNS_EN)
_ZH_AFTER = r"(?=是|怎|如何|有|能|可以|会|要|需|在|的|支持|和|与|跟|吗|呢|用|适合|属于|默认|为|哪|[？?，,。]|$)"


def _first_pronoun(q: str, lang: str) -> int | None:
    if lang == "zh":
        m = re.search(rf"它|他们|她们|(?<![尤极与])其(?![他中实余次它])|(?<![应活])该(?={_ZH_CLASS})|这个|那个|这些|那些", q)
    else:
        masked = _EN_DUMMY.sub(lambda mm: "_" * len(mm.group(0)), q)
        m = re.search(r"\b(?:it|its|they|them|their|this|that|these|those)\b", masked, re.I)
    return m.start() if m else None


def replace_pronouns(q: str, cands: list[Candidate], lang: str, turns: list[tuple[str, str]] | None = None
                     ) -> tuple[str, Candidate | None]:
    """`q` with its pronouns replaced by the top candidate (plural ones by `plural_candidate`)."""
    pos = _first_pronoun(q, lang)
    if pos is None or not cands:
        return q, None
    if any(m.kind in ("name", "code", "chain") and m.start < pos for m in extract_mentions(q)):
        return q, None  # the pronoun refers to something in the question itself
    top = cands[0]
    cls = re.search(rf"(?:该|这个|那个|此|这种|那种)({_ZH_CLASS})" if lang == "zh"
                    else rf"\b(?:this|that)\s+({_EN_CLASS})\b", q, re.I)
    if cls:
        top = typed_pick(cands, cls.group(1)) or top
    plural = plural_candidate(turns or [], lang) or top
    one = top.text
    used: list[Candidate] = []

    def sub(pattern: str, repl, text: str, cand: Candidate, flags: int = 0, weak: bool = False) -> str:
        if isinstance(repl, str):
            repl = (lambda literal: lambda _m: literal)(repl)  # entity text is literal, never a template
        new, n = re.subn(pattern, repl, text, flags=flags)
        if n:
            # a bare demonstrative ("can I change that?") may point at a statement, not an entity
            used.append(Candidate(cand.text, cand.kind, cand.score, cand.clear and not weak))
        return new

    def first_used() -> Candidate | None:
        if not used:
            return None
        return Candidate(used[0].text, used[0].kind, used[0].score, all(u.clear for u in used))

    if lang == "zh":
        out = sub(r"(?:它们|他们|她们)的", f"{plural.text}的", q, plural)
        out = sub(r"(?:它|他|她)的", f"{one}的", out, top)
        out = sub(rf"(?<![尤极与])其(?=[{_CJK}])(?![他中实余次它])", f"{one}的", out, top)
        out = sub(rf"(?<![应活])该(?:{_ZH_CLASS})", one, out, top)
        out = sub(rf"(?:这些|那些)(?:{_ZH_CLASS})?", plural.text, out, plural)
        out = sub(rf"(?:这个|那个|这种|那种|此)(?:{_ZH_CLASS})", one, out, top)
        out = sub(rf"(?:这个|那个){_ZH_AFTER}", one, out, top, weak=True)
        out = sub(r"它们|他们|她们", plural.text, out, plural)
        out = sub(r"它|他|她", one, out, top)
        return out, first_used()

    one_np = f"the {one}" if top.kind == "phrase" else one
    placeholder: dict[str, str] = {}

    def protect(m: re.Match) -> str:
        key = f"\x00{len(placeholder)}\x00"
        placeholder[key] = m.group(0)
        return key

    out = _EN_DUMMY.sub(protect, q)

    def poss(m: re.Match) -> str:
        words = m.group(2).split()
        kept = []
        for w in words:
            if w.lower() in EN_STOPWORDS or not re.match(r"^[\w-]+$", w):
                break
            kept.append(w)
        if not kept:
            return m.group(0)
        owner = plural.text if m.group(1).lower() == "their" else one_np
        rest = " ".join(words[len(kept):])
        return f"the {' '.join(kept)} of {owner}" + (f" {rest}" if rest else "")

    out = sub(r"\b(its|their)\s+([\w-]+(?:\s+[\w-]+){0,2})", poss, out, top, re.I)
    out = sub(rf"\b(?:this|that)\s+(?:{_EN_CLASS})\b", one_np, out, top, re.I)
    out = sub(rf"\b(?:these|those)\s+(?:{_EN_CLASS})s?\b", plural.text, out, plural, re.I)
    out = sub(rf"\b(?:this|that)\b(?=\s*(?:[?.!,]|$)|\s+(?:{_EN_VERBS})\b)", one_np, out, top, re.I, weak=True)
    out = sub(r"\b(is|was|are|can|does|did|will|would|should|could) (?:this|that)\b(?! (?:a|an|the)\b)",
              lambda m: f"{m.group(1)} {one_np}", out, top, re.I, weak=True)
    out = sub(r"\b(?:these|those)\b(?=\s*(?:[?.!,]|$)|\s+(?:are|do|have|work|differ|compare)\b)", plural.text,
              out, plural, re.I)
    out = sub(r"\bit\b", one_np, out, top, re.I)
    out = sub(r"\b(?:they|them)\b", plural.text, out, plural, re.I)
    for key, val in placeholder.items():
        out = out.replace(key, val)
    if out and out[0].islower() and q[:1].isupper():
        out = out[0].upper() + out[1:]
    return out, first_used()
