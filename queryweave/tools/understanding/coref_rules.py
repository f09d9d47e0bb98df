"""The rules behind `queryweave.tools.understanding.coref`: antecedent ranking, ellipsis patterns and swaps (pronouns: `.pronouns`)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from queryweave.tools.understanding.mentions import ATTR_WORDS, extract_mentions

KIND_WEIGHT = {"code": 1.3, "chain": 1.25, "name": 1.2, "noun": 1.0, "phrase": 0.85}
_CJK = r"\u3400-\u4dbf\u4e00-\u9fff"
_YEAR_X = re.compile(r"^(?:(?:19|20)\d{2}\s*年?|今年|去年|前年|明年|this year|last year|next year)\s*的?$", re.I)


@dataclass
class Candidate:
    """A possible antecedent: text, mention kind, salience score; `clear` when it clearly dominates."""

    text: str
    kind: str
    score: float
    clear: bool = True


def _compatible(a: str, b: str) -> bool:
    a, b = a.lower(), b.lower()
    return a in b or b in a


def rank_candidates(turns: list[tuple[str, str]], max_user_turns: int = 4) -> list[Candidate]:
    """Antecedent candidates of the recent turns, most salient first (recency x kind x frequency)."""
    scores: dict[str, float] = {}
    first: dict[str, tuple[str, str]] = {}
    users = 0
    for role, text in reversed(turns):
        if role == "user":
            weight, users = 0.55**users, users + 1
        elif role == "assistant":
            weight = 0.75 * 0.55**users
        else:
            weight = 0.25
        if users > max_user_turns:
            break
        seen: set[str] = set()
        mentions = [m for m in extract_mentions(text) if m.kind in KIND_WEIGHT]
        for rank, m in enumerate(mentions[:16]):
            key = m.text.lower()
            position = 1.0 if role == "user" else max(0.5, 1.0 - 0.08 * rank)
            s = weight * KIND_WEIGHT[m.kind] * position * (0.25 if key in seen else 1.0)
            seen.add(key)
            scores[key] = scores.get(key, 0.0) + s
            first.setdefault(key, (m.text, m.kind))
    cands = [Candidate(first[k][0], first[k][1], s) for k, s in scores.items()]
    cands.sort(key=lambda c: -c.score)
    if cands:
        cands[0].clear = _dominates(cands[0], cands)
    return cands


def _dominates(top: Candidate, cands: list[Candidate]) -> bool:
    """Whether `top` (with the candidates naming the same thing) clearly outweighs every rival."""
    support = sum(c.score for c in cands if _compatible(c.text, top.text))
    rival = max((c.score for c in cands if not _compatible(c.text, top.text)), default=0.0)
    return support >= 1.35 * rival


_TYPED_CLASS = {"code": ("参数", "选项", "配置项", "字段", "parameter", "option", "setting", "flag", "property", "field"),
                "name": ("工具", "库", "框架", "数据库", "语言", "产品", "服务", "系统", "tool", "library", "framework",
                         "database", "language", "product", "service", "system")}


def typed_pick(cands: list[Candidate], class_word: str) -> Candidate | None:
    """The best candidate of the kind a class noun asks for ("该参数" -> a code token), if salient enough."""
    kind = next((k for k, words in _TYPED_CLASS.items() if class_word.lower().rstrip("s") in words), None)
    if kind is None or not cands:
        return None
    typed = [c for c in cands if c.kind == kind and c.score >= 0.5 * cands[0].score]
    if not typed:
        return None
    best = typed[0]
    others = [c for c in typed[1:] if not _compatible(c.text, best.text)]
    return Candidate(best.text, best.kind, best.score, clear=not others or best.score >= 1.35 * others[0].score)


def plural_candidate(turns: list[tuple[str, str]], lang: str) -> Candidate | None:
    """Two or more names/code terms of the latest turn that has them, joined ("Kafka and RabbitMQ")."""
    for _, text in reversed(turns[-4:]):
        names = list(dict.fromkeys(m.text for m in extract_mentions(text) if m.kind in ("name", "code")))
        if len(names) >= 2:
            joined = "和".join(names[:3]) if lang == "zh" else " and ".join(names[:3])
            return Candidate(joined, "plural", 1.0, clear=len(names) <= 3)
    return None


def find_ellipsis(q: str) -> tuple[str, str, str] | None:
    """("entity"|"attr"|"year", x, preposition) for elliptical follow-ups, else None."""
    q = q.strip()
    x = None
    m = re.match(
        r"^(?:那么?|那如果|还有|另外|而|那要是)?\s*(?:换成|改成|如果是|要是|对于|关于)?\s*(?P<x>[^，,。]{1,24}?)\s*"
        r"(?:的话)?\s*(?P<end>呢|怎么样|又如何|又怎样|如何呢)\s*[？?。!！]*$", q)
    if m and re.search(f"[{_CJK}]", q):
        x = m.group("x").strip()
        if m.group("end") != "呢" and (len(x) > 12 or "的" in x.rstrip("的")):
            return None
    if x is None:
        for pat in (
            r"^(?:and|but|so|ok|okay|then|also)?,?\s*(?:what|how)\s+about\s+(?P<x>.+?)\s*[?.!]*$",
            r"^(?:and|also|but)\s+(?P<x>[^?]{1,40}?)\s*\?+$",
            r"^(?:(?:and\s+)?(?:the\s+)?same\s+(?:question\s+|thing\s+)?(?:for|with))\s+(?P<x>.+?)\s*[?.!]*$",
            r"^(?P<x>[^?]{1,30}?)\s+(?:instead|too|as well)\s*[?.!]*$",
        ):
            m = re.match(pat, q, re.I)
            if m:
                x = m.group("x").strip()
                break
        if x is None or len(x.split()) > 6:
            return None
    prep = ""
    pm = re.match(r"^(in|for|on|with|using|under|at|during|from|since|用|在)\s*(.+)$", x, re.I)
    if pm:
        prep, x = pm.group(1), pm.group(2).strip()
    x = re.sub(r"的$", "", x).strip()
    if not x:
        return None
    if _YEAR_X.match(x):
        return "year", x, prep
    pron = re.match(r"^(?:its|their|it's|the|它的|它们的|其|该)\s*(.+)$", x, re.I)
    if pron:
        rest = pron.group(1).strip()
        is_pronoun = not x.lower().startswith("the ")
        kinds = {mm.kind for mm in extract_mentions(rest)}
        if is_pronoun or kinds <= {"attr"} or all(w.lower() in ATTR_WORDS for w in rest.split()):
            return "attr", rest, prep
    kinds = {mm.kind for mm in extract_mentions(x)}
    if kinds == {"attr"} or (not kinds and x.lower() in ATTR_WORDS):
        return "attr", x, prep
    return "entity", x, prep


def year_swap(prev: str, x: str, prep: str, lang: str) -> tuple[str, bool]:
    """The previous question with its year replaced by (or extended with) the year in `x`."""
    year = re.search(r"(?:19|20)\d{2}", x)
    if year and re.search(r"(?<!\d)(?:19|20)\d{2}(?!\d)", prev):
        return re.sub(r"(?<!\d)(?:19|20)\d{2}(?!\d)", lambda _m: year.group(0), prev, count=1), True
    core = re.sub(r"[\s?？。.!！]+$", "", prev)
    if lang == "zh" or re.search(f"[{_CJK}]", prev):
        label = x if x.endswith("年") or not year else f"{x} 年"
        return f"{label}，{core}？", True
    return f"{core} {prep or 'in'} {x}?", True


def attribute_swap(prev: str, attr: str, entity: str, lang: str) -> tuple[str, bool]:
    """The previous question asking about `attr` instead of its own attribute, else a template."""
    if lang == "zh":
        spans = list(re.finditer(
            r"的\s*(?P<a>[^\s的，。？?！!]{1,12}?)\s*(?=是|有|怎|如何|为|能|可以|会|要|需|应|在|吗|呢|多少|[？?。，,！!]|$)", prev))
        spans = [s for s in spans if not _compatible(s.group("a"), entity)]
        if spans:
            s = spans[-1]
            return prev[: s.start("a")] + attr + prev[s.end("a") :], True
        return f"{entity}的{attr}是什么？", False
    m = re.search(r"\bthe\s+((?:[\w-]+\s+){0,3}?[\w-]+)\s+(?:of|for|in|on)\b", prev, re.I)
    if m and any(w.lower() in ATTR_WORDS for w in m.group(1).split()):
        return prev[: m.start(1)] + attr + prev[m.end(1) :], True
    m = re.search(r"'s\s+((?:[\w-]+\s+){0,2}[\w-]+)", prev)
    if m and any(w.lower() in ATTR_WORDS for w in m.group(1).split()):
        return prev[: m.start(1)] + attr + prev[m.end(1) :], True
    return f"What is the {attr} of {entity}?", False


def _is_latin(s: str) -> bool:
    return not re.search(f"[{_CJK}]", s)


def entity_swap(prev: str, x: str, prep: str) -> tuple[str | None, bool]:
    """The previous question with its entity of the same kind as `x` replaced by `x` (None if none)."""
    if x.lower() in prev.lower():
        return None, False
    latin = _is_latin(x)
    ms = [m for m in extract_mentions(prev) if m.kind in ("name", "code", "noun", "phrase")]
    same = [m for m in ms if (m.kind in ("name", "code") if latin else m.kind == "noun")]
    if not same and latin and not prep:
        same = [m for m in ms if m.kind == "phrase"]
    if not same:
        if prep:
            core = re.sub(r"[\s?？]+$", "", prev)
            return f"{core} {prep} {x}?", True
        return None, False
    target = same[0]
    distinct = {m.text.lower() for m in same}
    if _is_latin(target.text):
        out = re.sub(rf"(?<![\w.]){re.escape(target.text)}(?![\w])", lambda _m: x, prev)
    else:
        out = prev.replace(target.text, x)
    return out, len(distinct) == 1


_VAGUE = re.compile(
    r"^(?:为什么|为啥|怎么做|具体(?:呢|怎么做|说说|一点)?|详细(?:点|一点|说说|讲讲)?|举个例子|例如呢|比如呢|还有呢|然后呢|继续|"
    r"展开说说|什么意思|真的吗|why|why not|how|how so|really|more|more details|tell me more|go on|continue|"
    r"an example|example|for example|such as|like what|explain|elaborate|and then|what else|anything else)"
    r"\s*[？?。.!！]*$",
    re.I,
)


def is_vague_followup(q: str) -> bool:
    """A bare follow-up with no content of its own ("为什么？", "tell me more")."""
    return bool(_VAGUE.match(q.strip()))
