"""A read-only guard for generated Cypher (Neo4j and kuzu dialects).

A small lexer blanks out string literals, comments and back-quoted names, so `'DELETE me'` or
`// CREATE` never trips it and `/* */` cannot hide anything. Then: exactly one statement; it must
begin with a read clause (MATCH, OPTIONAL MATCH, WITH, UNWIND, RETURN, CALL); no write or admin
keyword anywhere (CREATE, MERGE, SET, DELETE, DETACH, REMOVE, DROP, LOAD CSV, COPY, FOREACH, ...);
and every `CALL` names a read-only schema procedure (`db.labels`, `db.relationshipTypes`,
`db.propertyKeys`, `db.schema.*`, kuzu's `show_tables`/`table_info`/...) or opens a `CALL { }` subquery
(whose body is checked like the rest).

Resource rules (what the engine's timeout cannot stop, or stops too late): a variable-length
relationship may span at most `MAX_PATH_HOPS` hops (`*1..1000000` is refused; an unbounded `*` is
capped by the store at the same depth); `range()` needs integer literals and at most `MAX_RANGE`
elements (kuzu builds the list whole, outside its buffer pool); `repeat`/`lpad`/`rpad` lengths must
be integer literals up to `MAX_PAD_LENGTH` (one function call, never interrupted).
"""

from __future__ import annotations

import re

from queryweave.tools.common.guard_result import GuardResult

FORBIDDEN = frozenset(
    """create merge set delete detach remove drop load copy foreach install attach detach import export
    alter grant deny revoke terminate checkpoint periodic begin commit rollback""".split()
)
READ_STARTS = frozenset({"match", "optional", "with", "unwind", "return", "call", "use"})
ALLOWED_PROCEDURES = frozenset(
    """db.labels db.relationshiptypes db.propertykeys db.schema.visualization db.schema.nodetypeproperties
    db.schema.reltypeproperties show_tables table_info show_connection db_version show_functions
    show_indexes show_warnings""".split()
)

MAX_PATH_HOPS = 10
MAX_RANGE = 100_000
MAX_PAD_LENGTH = 10_000

_REL_BRACKET = re.compile(r"-\s*\[([^\[\]]*)\]")
_VAR_LENGTH = re.compile(r"\*\s*(?:(?:ALL\s+)?SHORTEST|TRAIL|ACYCLIC|WSHORTEST\s*\([^)]*\))?\s*(\d+)?\s*(\.\.)?\s*(\d+)?",
                         re.I)
_CALLS = re.compile(r"(?<![.\w])(range|repeat|lpad|rpad)\s*\(", re.I)
_INT = re.compile(r"-?\d+")
_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\s*\.\s*[A-Za-z_][A-Za-z0-9_]*)*|.", re.S)


class CypherLexError(ValueError):
    """An unterminated string, comment or quoted name."""


def blank_literals(query: str) -> str:
    """The query with string literals, comments and `quoted` names replaced by spaces/placeholders."""
    out: list[str] = []
    i, n = 0, len(query)
    while i < n:
        c = query[i]
        if c in "'\"":
            j = i + 1
            while j < n and query[j] != c:
                j += 2 if query[j] == "\\" else 1
            if j >= n:
                raise CypherLexError("unterminated string literal")
            out.append(" '' ")
            i = j + 1
        elif c == "`":
            j = query.find("`", i + 1)
            if j < 0:
                raise CypherLexError("unterminated quoted name")
            out.append(" _quoted_ ")
            i = j + 1
        elif query.startswith("//", i):
            j = query.find("\n", i)
            i = n if j < 0 else j
            out.append(" ")
        elif query.startswith("/*", i):
            j = query.find("*/", i + 2)
            if j < 0:
                raise CypherLexError("unterminated comment")
            out.append(" ")
            i = j + 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _call_args(text: str, start: int) -> list[str]:
    """The top-level arguments of the call whose `(` is at `start`."""
    depth, args, cur = 0, [], []
    for ch in text[start:]:
        if ch in "([{":
            depth += 1
            if depth == 1:
                continue
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                args.append("".join(cur).strip())
                return args
        elif ch == "," and depth == 1:
            args.append("".join(cur).strip())
            cur = []
            continue
        cur.append(ch)
    return args


def resource_problem(bare: str) -> str | None:
    """Why the (literal-blanked) query could exhaust the engine, or None."""
    for rel in _REL_BRACKET.finditer(bare):
        for m in _VAR_LENGTH.finditer(rel.group(1)):
            low, dots, high = m.group(1), m.group(2), m.group(3)
            bound = high if dots else low
            if (bound and int(bound) > MAX_PATH_HOPS) or (low and int(low) > MAX_PATH_HOPS):
                return f"variable-length path bound {m.group(0).strip()} is over the limit of {MAX_PATH_HOPS} hops"
    for m in _CALLS.finditer(bare):
        name, args = m.group(1).lower(), _call_args(bare, m.end() - 1)
        if name == "range":
            nums = [int(a) for a in args if _INT.fullmatch(a)]
            if len(nums) != len(args) or len(nums) not in (2, 3) or (len(nums) == 3 and nums[2] == 0):
                return "range() needs integer literals (start, end[, step])"
            step = nums[2] if len(nums) == 3 else 1
            if (nums[1] - nums[0]) // step + 1 > MAX_RANGE:
                return f"range() would build more than {MAX_RANGE} elements"
        elif len(args) < 2 or not _INT.fullmatch(args[1]) or int(args[1]) > MAX_PAD_LENGTH:
            return f"{name}() length must be a number up to {MAX_PAD_LENGTH}"
    return None


def check_cypher(query: str) -> GuardResult:
    """Judge one generated Cypher text: allowed only when it is a single read-only query."""
    text = (query or "").strip()
    try:
        bare = blank_literals(text)
    except CypherLexError as exc:
        return GuardResult(False, f"parse error: {exc}", text)
    statements = [s for s in bare.split(";") if s.strip()]
    if not statements:
        return GuardResult(False, "empty statement", text)
    if len(statements) > 1:
        return GuardResult(False, f"{len(statements)} statements; exactly one read-only query is allowed", text)
    tokens = [m.group(0) for m in _TOKEN.finditer(statements[0]) if not m.group(0).isspace()]
    words = [(i, t) for i, t in enumerate(tokens) if t[0].isalpha() or t[0] == "_"]
    if not words or words[0][1].lower() not in READ_STARTS:
        first = words[0][1].upper() if words else statements[0].strip()[:20]
        return GuardResult(False, f"{first} is not a read-only query (must start with MATCH, WITH, "
                                  "UNWIND, RETURN or CALL)", text)
    for i, word in words:
        prev = tokens[i - 1] if i else ""
        if prev in {".", ":", "$"}:  # property, label or parameter name, not a keyword
            continue
        low = word.lower()
        if low in FORBIDDEN:
            shown = "LOAD CSV/LOAD FROM" if low == "load" else low.upper()
            return GuardResult(False, f"{shown} is not allowed in a read-only query", text)
        if low == "call":
            nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
            if nxt == "{":
                continue
            name = re.sub(r"\s+", "", nxt).lower()
            if name not in ALLOWED_PROCEDURES and not name.startswith("db.schema."):
                return GuardResult(False, f"CALL {nxt or '?'} is not a read-only schema procedure", text)
    if bare.count("(") != bare.count(")") or bare.count("[") != bare.count("]") or bare.count("{") != bare.count("}"):
        return GuardResult(False, "parse error: unbalanced brackets", text)
    if (problem := resource_problem(statements[0])) is not None:
        return GuardResult(False, f"resource limit: {problem}", text)
    return GuardResult(True, "single read-only query", text)
