"""RAG necessity: does this message need the knowledge base at all?

Greetings, thanks, goodbyes, chit-chat about the assistant, arithmetic, the clock and a few generic
requests (weather, translation, jokes and poems) are answered directly with a short reply in the
message's language that says no retrieval was needed. Everything else — and anything that overlaps
the knowledge base's vocabulary — goes to retrieval: the rules err on the side of retrieving, and
say `confident=False` when they are guessing (then an LLM may decide, schema `NecessityOutput`).
"""

from __future__ import annotations

import ast
import operator
import re
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from queryweave.tools.common.text import detect_language, tokenize
from queryweave.tools.understanding.mentions import extract_mentions

Kind = Literal["greeting", "chitchat", "general", "kb"]


@dataclass
class NecessityDecision:
    """Whether retrieval is needed, the kind of message, whether the rules are sure, a direct reply."""

    needs: bool
    kind: Kind
    confident: bool
    reply: str | None = None
    reason: str = ""


class NecessityOutput(BaseModel):
    """LLM output for the RAG-necessity decision."""

    needs_retrieval: bool = Field(description="True unless the message can be answered without the knowledge base.")
    kind: Kind = Field(description="greeting, chitchat, general (answerable from general knowledge), or kb.")
    reply: str | None = Field(
        default=None,
        description="When no retrieval is needed: a short direct reply in the user's language that says the "
        "knowledge base was not consulted. Null otherwise.",
    )


_P = "[\\s,，.。!！?？~～:：;；…]*"
_GREETING = re.compile(
    rf"^(?:你好|您好|嗨|哈喽|哈啰|早上好|上午好|中午好|下午好|晚上好|早安|晚安|在吗|在不在|大家好|你好呀|你好啊|"
    rf"hi|hello|hey|hiya|howdy|greetings|yo|good (?:morning|afternoon|evening|day)|hi there|hello there|hey there)"
    rf"(?:{_P}(?:queryweave|bot|there|你|呀|啊))?{_P}$", re.I)
_THANKS = re.compile(
    rf"^(?:(?:好的|ok|okay)?{_P})?(?:谢谢|多谢|感谢|谢了|谢谢你|非常感谢|太感谢了|thx|thanks|thank you|thank you so much|"
    rf"thanks a lot|many thanks|cheers|ty|appreciate it)(?:{_P}(?:你|您|a lot|so much|very much|啦|了))?"
    rf"(?:{_P}(?:你的帮助|您的帮助|帮忙|for (?:your|the) help|for helping|for that|for this|for the answer))?{_P}$", re.I)
_BYE = re.compile(rf"^(?:再见|拜拜|回头见|下次见|bye|goodbye|bye bye|see you|see ya|later)(?:{_P}\w{{0,6}})?{_P}$", re.I)
_ACK_WORD = (r"(?:好的|好|嗯|嗯嗯|哦|行|可以|ok|okay|got it|明白了|明白|知道了|了解|懂了|收到|cool|great|nice|perfect|awesome|"
             r"太好了|不错|sounds good|i see|understood|alright|all right)")
_ACK = re.compile(rf"^{_ACK_WORD}(?:{_P}{_ACK_WORD})*{_P}$", re.I)
_THANKS_LEAD = re.compile(r"^(?:谢谢|多谢|感谢|thanks|thank you|thx|cheers)\b", re.I)
_CHITCHAT = re.compile(
    r"(?:你是谁|你叫什么|你是什么|你能做什么|你会什么|你可以做什么|你怎么样|你好吗|最近怎么样|讲个笑话|说个笑话|你几岁|"
    r"你多大|你喜欢|我好无聊|无聊|你是机器人|你是人吗|how are you|who are you|what are you|what's your name|"
    r"what is your name|what can you do|tell me a joke|are you (?:a bot|human|real|an ai)|what's up|how's it going|"
    r"nice to meet you|i'm bored|do you like|how old are you)", re.I)
_CLOCK = re.compile(r"(?:现在几点|几点了|今天几号|今天是几号|今天星期几|今天周几|今天是什么日子|what time is it|"
                    r"what's the time|what is the date|what's the date|what day is (?:it|today))", re.I)
_WEATHER = re.compile(r"(?:天气|下雨吗|下雪吗|气温|weather|is it raining|temperature outside)", re.I)
_GENERIC = re.compile(r"^(?:请)?(?:翻译|把.{1,40}翻译成|translate\b)|(?:写一首诗|写首诗|写个故事|写一个故事|"
                      r"write (?:me )?a (?:poem|story|haiku|song))", re.I)
_ARITH_WORDS = [("乘以", "*"), ("除以", "/"), ("加上", "+"), ("减去", "-"), ("加", "+"), ("减", "-"), ("乘", "*"),
                ("×", "*"), ("÷", "/"), ("^", "**"), ("plus", "+"), ("minus", "-"), ("times", "*"),
                ("multiplied by", "*"), ("divided by", "/")]
_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
        ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow}


def _eval(node: ast.AST) -> float:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        v = _eval(node.operand)
        return -v if isinstance(node.op, ast.USub) else v
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        left, right = _eval(node.left), _eval(node.right)
        if isinstance(node.op, ast.Pow) and abs(right) > 64:
            raise ValueError("exponent too large")
        return _OPS[type(node.op)](left, right)
    raise ValueError("not arithmetic")


def arithmetic(text: str) -> tuple[str, float] | None:
    """(expression, value) when `text` is a plain arithmetic question ("12*7", "3 加 5 等于多少"), else None."""
    t = text.strip().lower()
    t = re.sub(r"^(?:what(?:'s| is)|calculate|compute|how much is|请问|计算一下|计算|算一下|算算)\s*", "", t)
    t = re.sub(r"\s*(?:=|等于|是)?\s*(?:多少|几|什么)?\s*[?？。!！=]*$", "", t)
    for word, op in _ARITH_WORDS:
        t = t.replace(word, f" {op} ")
    if not re.fullmatch(r"[\d\s.+\-*/()%]+", t) or not re.search(r"\d\s*[-+*/%]", t) or not re.search(r"[+\-*/%]", t):
        return None
    try:
        value = _eval(ast.parse(t, mode="eval").body)
    except (SyntaxError, ValueError, ZeroDivisionError, OverflowError):
        return None
    return re.sub(r"\s+", " ", t).strip(), value


def _reply(kind: str, lang: str, extra: str = "") -> str:
    zh = {
        "greeting": "你好！我是 QueryWeave，可以帮你在知识库中查找答案并给出引用。",
        "thanks": "不客气！还有问题随时问我。",
        "bye": "再见！需要时随时回来。",
        "ack": "好的。还有什么想了解的吗？",
        "chitchat": "我是 QueryWeave，一个知识库问答助手：我会检索你导入的文档，回答并附上引用。",
        "weather": "我无法查询实时天气，知识库里也没有这类信息。",
        "generic": "这是一个通用请求，不需要检索知识库；当前没有可用的语言模型来直接完成它。",
    }
    en = {
        "greeting": "Hello! I'm QueryWeave; I can look things up in your knowledge base and cite the sources.",
        "thanks": "You're welcome! Ask me anything else.",
        "bye": "Goodbye! Come back any time.",
        "ack": "OK. Anything else you would like to know?",
        "chitchat": "I'm QueryWeave, a question-answering assistant: I search the documents you ingested and "
        "answer with citations.",
        "weather": "I can't check live weather, and the knowledge base has no such information.",
        "generic": "This is a general request that doesn't need the knowledge base; no language model is "
        "configured to carry it out directly.",
    }
    base = extra or (zh if lang == "zh" else en)[kind]
    note = "（这条消息无需检索知识库。）" if lang == "zh" else " (No knowledge-base retrieval was needed for this.)"
    return base + note


_VOCAB_CACHE: dict[int, tuple[weakref.ref, int, set[str]]] = {}


def _normalize_vocab(vocab: set[str]) -> set[str]:
    """Lower-cased terms and their tokens; cached per vocabulary object (the KB hands out the same set)."""
    hit = _VOCAB_CACHE.get(id(vocab))
    if hit is not None and hit[0]() is vocab and hit[1] == len(vocab):
        return hit[2]
    out: set[str] = set()
    for v in vocab:
        out.add(v.lower())
        out.update(tokenize(v))
    try:
        if len(_VOCAB_CACHE) > 8:
            _VOCAB_CACHE.clear()
        _VOCAB_CACHE[id(vocab)] = (weakref.ref(vocab), len(vocab), out)
    except TypeError:  # not weak-referenceable (e.g. a frozenset subclass without slots): no cache
        pass
    return out


def needs_retrieval(question: str, kb_vocabulary: set[str] | None = None,
                    known: Callable[[str], bool] | None = None) -> NecessityDecision:
    """Decide whether `question` needs retrieval; see the module docstring for the rules.

    `kb_vocabulary` (terms or titles of the knowledge base, any case) turns a would-be direct answer
    into retrieval when the message shares a content word with the knowledge base. `known` (does the
    corpus hold this name? e.g. `Bm25Index.knows`) makes an informational question that names something
    the corpus holds a confident retrieval ("倒数排名融合（RRF）是谁提出的？" when a page explains RRF),
    so no model is asked to answer it from memory.
    """
    q = question.strip()
    lang = detect_language(q)
    if not q:
        return NecessityDecision(False, "chitchat", True, _reply("ack", lang), "empty message")
    for pat, kind, key in ((_GREETING, "greeting", "greeting"), (_THANKS, "chitchat", "thanks"),
                           (_BYE, "chitchat", "bye"), (_ACK, "chitchat", "ack")):
        if pat.match(q):
            return NecessityDecision(False, kind, True, _reply(key, lang), f"formulaic {key}")
    if _THANKS_LEAD.match(q) and not re.search(r"[?？]", q) and len(q.split()) <= 8 and len(q) <= 40 \
            and not any(m.kind in ("name", "code") for m in extract_mentions(q)):
        return NecessityDecision(False, "chitchat", True, _reply("thanks", lang), "thanks with a short remark")
    tokens = set(tokenize(q))
    overlap = tokens & _normalize_vocab(kb_vocabulary) if kb_vocabulary else set()
    if overlap:
        return NecessityDecision(True, "kb", True, None, f"shares {sorted(overlap)[:5]} with the knowledge base")
    arith = arithmetic(q)
    if arith is not None:
        expr, value = arith
        shown = int(value) if float(value).is_integer() else round(value, 10)
        text = f"{expr} = {shown}。这是一道算术题。" if lang == "zh" else f"{expr} = {shown}. That's plain arithmetic."
        return NecessityDecision(False, "general", True, _reply("generic", lang, text), "arithmetic")
    if _CLOCK.search(q) and len(tokens) <= 4:
        now = datetime.now()
        text = f"现在是 {now:%Y-%m-%d %H:%M}（本机时间）。" if lang == "zh" else f"It is {now:%Y-%m-%d %H:%M} (local time)."
        return NecessityDecision(False, "general", True, _reply("generic", lang, text), "clock")
    strong = [m for m in extract_mentions(q) if m.kind in ("name", "code")]
    if _CHITCHAT.search(q) and not strong:
        return NecessityDecision(False, "chitchat", True, _reply("chitchat", lang), "chit-chat about the assistant")
    if _WEATHER.search(q) and not strong:
        return NecessityDecision(False, "general", True, _reply("weather", lang), "live weather")
    if _GENERIC.search(q):
        return NecessityDecision(False, "general", False, _reply("generic", lang), "translation or creative request")
    held = [m.text for m in strong if known is not None and known(m.text)]
    if held:
        return NecessityDecision(True, "kb", True, None, f"names {held[:3]}, which the knowledge base holds")
    if kb_vocabulary and len(tokens) >= 2:
        return NecessityDecision(True, "kb", False, None, "informational, but no overlap with the knowledge base")
    return NecessityDecision(True, "kb", True, None, "informational: retrieve")
