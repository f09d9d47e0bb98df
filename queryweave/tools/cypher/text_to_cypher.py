"""Text-to-Cypher: schema into the prompt, the model's query, the guard, execution, repair, retry.

The schema comes from the store (`GraphStore.schema().text()`). Replies are read from a code block
(robust for small models). Before running on kuzu, a few Neo4j-only function names are rewritten
(`type(r)` -> `label(r)`, `toLower` -> `lower`, ...). A blocked query or an execution error is fed
back to the model with a hint from the schema (`explain_error`: which label has the property, where
ORDER BY and aggregates go), in a fresh turn listing every failed try, at most `max_retries` times.
With `samples` > 1 (self-consistency), more queries are sampled from the opening prompt once the
greedy one is settled, and the result most of the queries that ran return wins (`tools.common.vote`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from queryweave.prompts import cypher as P
from queryweave.prompts import pick
from queryweave.tools.common.examples import Example, nearest
from queryweave.tools.common.guard_result import query_in_reply
from queryweave.tools.common.sampling import Seeds
from queryweave.tools.common.text import detect_language
from queryweave.tools.common.vote import majority
from queryweave.tools.cypher.fewshot import schema_examples
from queryweave.tools.cypher.guard import check_cypher
from queryweave.tools.cypher.store import GraphSchema, GraphStore

_FENCE = re.compile(r"```(?:cypher|neo4j|sql)?\s*\n?(.*?)```", re.S | re.I)
_START = re.compile(r"\b(MATCH|OPTIONAL\s+MATCH|WITH|UNWIND|RETURN|CALL)\b", re.I)

# Neo4j function name -> kuzu function name
KUZU_RENAMES = {
    "type": "label", "tolower": "lower", "toupper": "upper", "tointeger": "to_int64", "toint": "to_int64",
    "tofloat": "to_double", "elementid": "id", "tostring": "string",
}


@dataclass
class CypherAnswer:
    """The final query and its rows, or the error that remained."""

    question: str
    query: str = ""
    rows: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None
    attempts: list[dict[str, Any]] = field(default_factory=list)
    votes: dict[str, int] = field(default_factory=dict)  # with samples > 1: queries run, queries agreeing

    @property
    def ok(self) -> bool:
        """True when a guarded query ran without error."""
        return self.error is None and bool(self.query)


def extract_cypher(text: str) -> str:
    """The query in a model reply: a fenced block if any, else from the first read clause on."""
    return query_in_reply(text, _FENCE, _START)


def kuzu_compat(query: str) -> str:
    """Rename Neo4j-only functions to their kuzu names (outside string literals)."""
    out, last = [], 0
    for m in re.finditer(r"\b([A-Za-z_]+)\s*\(", query):
        name = m.group(1).lower()
        if name in KUZU_RENAMES and _outside_strings(query, m.start()):
            out.append(query[last:m.start(1)] + KUZU_RENAMES[name])
            last = m.end(1)
    return "".join(out) + query[last:]


_CLAUSE = re.compile(r"\b(OPTIONAL\s+MATCH|MATCH|WHERE|WITH|UNWIND|RETURN|ORDER\s+BY|SKIP|LIMIT|GROUP\s+BY)\b", re.I)


def repair_clauses(query: str) -> str:
    """Fix SQL habits that no Cypher engine parses: drop `GROUP BY ...` (Cypher groups by the
    non-aggregated RETURN/WITH items) — its `HAVING cond` becomes `WHERE cond` after a WITH (Cypher's
    way to filter aggregates; `WITH *` keeps an ORDER BY/LIMIT that followed after the filter) and is
    never dropped (anywhere else the query is left to fail) — and move an
    ORDER BY/SKIP/LIMIT block written right after MATCH (before the final RETURN) to the end. Valid
    queries come back unchanged."""
    marks = [(m.start(), m.group(1).upper().split()[0]) for m in _CLAUSE.finditer(query)
             if _outside_strings(query, m.start())]
    for i, (pos, kind) in enumerate(marks):
        if kind == "GROUP":
            end = marks[i + 1][0] if i + 1 < len(marks) else len(query)
            having = [m for m in re.finditer(r"\bHAVING\b", query[pos:end], re.I) if _outside_strings(query, pos + m.start())]
            if not having:
                return repair_clauses(query[:pos] + query[end:])
            if i == 0 or marks[i - 1][1] != "WITH":
                return query
            cond = query[pos + having[0].end():end].strip()
            rest = query[end:]
            if i + 1 < len(marks) and marks[i + 1][1] in {"ORDER", "SKIP", "LIMIT"}:  # filter first, then order
                rest = f"WITH * {rest}"
            return repair_clauses(f"{query[:pos]}WHERE {cond} {rest}".rstrip())
    main = ""
    for i, (pos, kind) in enumerate(marks):
        if kind in {"MATCH", "OPTIONAL", "WITH", "UNWIND", "RETURN"}:
            main = kind
        elif kind in {"ORDER", "SKIP", "LIMIT"} and main in {"MATCH", "OPTIONAL", "UNWIND"}:
            rest = marks[i:]
            j = next((k for k, (_, kd) in enumerate(rest) if kd not in {"ORDER", "SKIP", "LIMIT"}), None)
            if j is None or rest[j][1] != "RETURN" or any(kd != "RETURN" and kd not in {"ORDER", "SKIP", "LIMIT"}
                                                          for _, kd in rest[j + 1:]):
                return query
            if any(kd in {"ORDER", "SKIP", "LIMIT"} for _, kd in rest[j + 1:]):
                return query
            block, tail = query[pos:rest[j][0]].strip(), query[rest[j][0]:].strip()
            return f"{query[:pos].rstrip()} {tail} {block}"
    return query


_OPERAND = r"(?:'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|[\w.$-]+)"
_BETWEEN = re.compile(rf"\b(?!NOT\b)(\w+(?:\.\w+)?)\s+BETWEEN\s+({_OPERAND})\s+AND\s+({_OPERAND})", re.I)


def repair_between(query: str) -> str:
    """Rewrite SQL's `x BETWEEN a AND b` (not Cypher) as `x >= a AND x <= b`; other text is unchanged."""
    def sub(m: re.Match[str]) -> str:
        if not _outside_strings(query, m.start()):
            return m.group(0)
        return f"{m.group(1)} >= {m.group(2)} AND {m.group(1)} <= {m.group(3)}"
    return _BETWEEN.sub(sub, query)


_LENGTH = re.compile(r"\b(?:length|char_length|character_length|len)\s*\(\s*(\w+\.\w+)\s*\)", re.I)


def repair_length(query: str) -> str:
    """`length(n.prop)` (and SQL's `char_length`/`len`) as `size(n.prop)`: in Cypher `length` measures a
    path, and a property is never one (Neo4j 5 and kuzu both reject it on a string); `size` is right
    for strings and lists on both engines."""
    return _LENGTH.sub(lambda m: f"size({m.group(1)})" if _outside_strings(query, m.start()) else m.group(0), query)


_NODE = re.compile(r"\(\s*(\w*)\s*(?::\s*`?(\w+)`?)?[^()]*\)")
_REL = re.compile(r"^\s*(<)?-\s*\[\s*(\w*)\s*:\s*`?(\w+)`?\s*(\{[^\]]*\})?\s*\]\s*-(>)?\s*$")


def repair_directions(query: str, schema: GraphSchema) -> str:
    """Turn round a relationship written against the only direction the schema has:
    `(b:Movie)-[r:REVIEWED]->(a:Person)` when the graph holds `(:Person)-[:REVIEWED]->(:Movie)` only (such
    a pattern runs and matches nothing). Both ends' labels must be known (written there or on the same
    variable elsewhere in the query); variable-length, multi-type and undirected patterns are left."""
    known = set(schema.patterns)
    nodes = [m for m in _NODE.finditer(query) if _outside_strings(query, m.start())]
    labels = {m.group(1): m.group(2) for m in nodes if m.group(1) and m.group(2)}
    out, last = [], 0
    for left, right in zip(nodes, nodes[1:], strict=False):
        rel = _REL.match(query[left.end():right.start()])
        if not rel or bool(rel.group(1)) == bool(rel.group(5)):
            continue
        a = left.group(2) or labels.get(left.group(1))
        b = right.group(2) or labels.get(right.group(1))
        src, dst = (b, a) if rel.group(1) else (a, b)
        kind = rel.group(3)
        if not src or not dst or (src, kind, dst) in known or (dst, kind, src) not in known:
            continue
        inside = query[left.end():right.start()].strip()
        turned = inside[1:] + ">" if rel.group(1) else "<" + inside[:-1]
        out.append(query[last:left.end()] + turned)
        last = right.start()
    return "".join(out) + query[last:] if out else query


def _outside_strings(text: str, pos: int) -> bool:
    quote = ""
    i = 0
    while i < pos:
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = ""
        elif c in "'\"`":
            quote = c
        i += 1
    return not quote


def explain_error(schema: GraphSchema, error: str, lang: str = "en") -> str:
    """The engine's error with a hint a small model can act on appended (unchanged when none applies)."""
    hint = ""
    m = re.search(r"Cannot find property (\w+)", error) or re.search(r"[Pp]roperty (\w+) (?:does not exist|not found)",
                                                                       error)
    if m:
        prop = m.group(1)
        where = [f"{label}.{p}" for label, props in {**schema.nodes, **schema.rels}.items() for p in props
                 if p.lower() == prop.lower()]
        if where:
            hint = pick(P.HINT_PROPERTY, lang).format(prop=prop, where=", ".join(where))
        else:
            every = [f"{label}.{p}" for label, props in {**schema.nodes, **schema.rels}.items() for p in props]
            hint = pick(P.HINT_NO_PROPERTY, lang).format(prop=prop, where=", ".join(every))
    elif re.search(r"Invalid input <[^>]*\b(ORDER|LIMIT|SKIP)>", error, re.I):
        hint = pick(P.HINT_CLAUSE_ORDER, lang)
    elif re.search(r"Variable \w+ is not in scope", error):
        hint = pick(P.HINT_SCOPE, lang)
    elif re.search(r"AGGREGATE_FUNCTION|aggregate", error, re.I):
        hint = pick(P.HINT_AGGREGATE, lang)
    return f"{error} ({hint})" if hint else error


class TextToCypher:
    """Question -> guarded Cypher -> rows, with bounded repair."""

    def __init__(self, store: GraphStore, llm: BaseChatModel | None, max_retries: int = 2, examples: int = 5,
                 example_pool: Sequence[Example] = (), pool_examples: int = 0, samples: int = 1,
                 vote_temperature: float = 0.7, seed: int | None = None):
        """`store` is any `GraphStore` (kuzu or Neo4j); `examples` schema-derived few-shot pairs (0: none);
        `example_pool` worked pairs (e.g. of other kinds of question), of which the `pool_examples`
        nearest to the question come first among the earlier turns; `samples` > 1: that many queries in
        all (the greedy one, then `samples - 1` at `vote_temperature`) vote by their results; `seed`: the
        samples of one question carry seeds `seed`, `seed + 1`, … (`tools.common.sampling`; None: the endpoint's)."""
        self.seed = seed
        self.samples = samples
        self.vote_temperature = vote_temperature
        self.example_pool = list(example_pool)
        self.pool_examples = pool_examples
        self.store = store
        self.llm = llm
        self.max_retries = max_retries
        self.examples = examples

    def messages(self, question: str, lang: str | None = None) -> list[BaseMessage]:
        """The opening prompt: rules and schema, the few-shot pairs as earlier turns, then `question`."""
        lang = lang or detect_language(question)
        schema = self.store.schema()
        out: list[BaseMessage] = [SystemMessage(pick(P.SYSTEM, lang).format(schema=schema.text()))]
        for ex in self.pool_shown(question):
            out += [HumanMessage(pick(P.POOL_QUESTION, lang).format(question=ex.question)),
                    AIMessage(P.ANSWER.format(query=ex.query))]
        for q, cypher in schema_examples(schema, self.examples) if self.examples else []:
            out += [HumanMessage(pick(P.QUESTION, lang).format(question=q)), AIMessage(P.ANSWER.format(query=cypher))]
        return out + [HumanMessage(pick(P.QUESTION, lang).format(question=question))]

    def pool_shown(self, question: str) -> list[Example]:
        """The worked examples from the pool that the prompt for `question` shows."""
        return nearest(question, self.example_pool, self.pool_examples)

    def run(self, query: str, repair: bool = False) -> tuple[list[dict[str, Any]], str | None]:
        """Guard and run one query: (rows, error). `repair` applies `repair_between`, `repair_length`,
        `repair_clauses` and `repair_directions` first."""
        if repair:
            query = repair_directions(repair_clauses(repair_length(repair_between(query))), self.store.schema())
        verdict = check_cypher(query)
        if not verdict.allowed:
            return [], f"blocked by the guard: {verdict.reason}"
        if getattr(self.store, "dialect", "") == "kuzu":
            query = kuzu_compat(query)
        try:
            return self.store.query(query), None
        except Exception as exc:
            return [], str(exc).splitlines()[0][:300] or type(exc).__name__

    def ask(self, question: str, lang: str | None = None) -> CypherAnswer:
        """Answer `question` with rows from the graph (or a clear error)."""
        lang = lang or detect_language(question)
        answer = CypherAnswer(question)
        if self.llm is None:
            answer.error = pick(P.NEEDS_LLM, lang)
            return answer
        messages = self.messages(question, lang)
        failures: list[str] = []
        for _ in range(self.max_retries + 1):
            prompt = messages
            if failures:  # a fresh turn listing every failed try (small models echo a conversation)
                repair = pick(P.REPAIR, lang).format(failures="\n".join(failures))
                prompt = [*messages[:-1], HumanMessage(f"{messages[-1].content}\n\n{repair}")]
            try:
                reply = str(self.llm.invoke(prompt).content)
            except Exception as exc:
                answer.error = f"model call failed: {exc}"[:300]
                answer.attempts.append({"query": "", "error": answer.error})
                break
            query = extract_cypher(reply)
            answer.query = query
            answer.rows, answer.error = self.run(query, repair=True)
            answer.attempts.append({"query": query, "error": answer.error})
            if answer.error is None:
                break
            hint = explain_error(self.store.schema(), answer.error, lang)
            failures.append(pick(P.FAILURE, lang).format(query=query, error=hint))
        if self.samples > 1 and answer.attempts and answer.attempts[-1]["query"]:
            self._vote(answer, messages)
        return answer

    def _vote(self, answer: CypherAnswer, messages: list[BaseMessage]) -> None:
        """Sample `samples - 1` more queries from the opening prompt (repaired and guarded like the first);
        keep the result most of the queries that ran agree on (the greedy one's group wins ties)."""
        ran = [(answer.query, answer.rows)] if answer.error is None else []
        seeds = Seeds(self.seed)
        for _ in range(self.samples - 1):
            try:
                query = extract_cypher(str(seeds.bind(self.llm, self.vote_temperature).invoke(messages).content))
            except Exception:  # the endpoint failed: vote with what ran
                break
            rows, error = self.run(query, repair=True)
            answer.attempts.append({"query": query, "error": error, "sampled": True})
            if error is None:
                ran.append((query, rows))
        win, agree = majority([(i, [tuple(r.values()) for r in rows]) for i, (_, rows) in enumerate(ran)])
        answer.votes = {"samples": self.samples, "ran": len(ran), "agree": agree}
        if win >= 0:
            answer.query, answer.rows = ran[win]
            answer.error = None


def naive_cypher(store: GraphStore, llm: BaseChatModel, question: str) -> CypherAnswer:
    """The baseline: the same schema, one plain prompt, one shot, no repair (still guarded and renamed for kuzu)."""
    lang = detect_language(question)
    answer = CypherAnswer(question)
    prompt = pick(P.NAIVE, lang).format(schema=store.schema().text(), question=question)
    try:
        answer.query = extract_cypher(str(llm.invoke([HumanMessage(prompt)]).content))
    except Exception as exc:
        answer.error = f"model call failed: {exc}"[:300]
        return answer
    answer.rows, answer.error = TextToCypher(store, llm).run(answer.query)
    answer.attempts.append({"query": answer.query, "error": answer.error})
    return answer
