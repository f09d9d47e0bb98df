"""Resource rules for generated SQL: string amplification a time limit cannot stop.

SQLite checks its interrupt flag between VDBE steps, never inside one function call, so
`printf('%.*c', 1000000000, 'x')` runs for seconds whatever the time limit (the length limit of the
connection only makes it return NULL at the end). Such calls are refused before they run:

- `printf`/`format`: the format must be a string literal; widths and precisions written in it, and
  the arguments a `*` takes them from, must be integer literals up to `MAX_FORMAT_WIDTH`;
- `repeat`, `lpad`, `rpad`: the count/length must be an integer literal up to `MAX_PAD_LENGTH`;
- length-multiplying functions (`replace`, `hex`, `quote`, `printf`/`format`, `repeat`, `lpad`,
  `rpad`) nested more than `MAX_AMPLIFIER_NESTING` deep (each level can multiply the length, and
  every level's value stays in a register), or more than `MAX_AMPLIFIERS` of them in one query;
- more than `MAX_RESULT_COLUMNS` result expressions in one SELECT (`*` aside): each may be a value of
  the connection's longest length, and a row is built whole before it can be counted.

`check_costs(root)` returns the reason a parsed query is refused, or None. The SQL guard calls it,
and so does `SqlDatabase.run` itself (defence in depth behind the guard).
"""

from __future__ import annotations

import re

from sqlglot import exp

MAX_FORMAT_WIDTH = 1000
MAX_PAD_LENGTH = 10_000
MAX_AMPLIFIER_NESTING = 3
MAX_AMPLIFIERS = 16
MAX_RESULT_COLUMNS = 64

_SPEC = re.compile(r"%(%|[-+ 0#,!]*(\*|\d+)?(?:\.(\*|\d+))?(?:ll|l|h)?[a-zA-Z])")


def _int_literal(node: exp.Expression | None) -> int | None:
    """The value of an integer literal (also `-5`), else None."""
    if isinstance(node, exp.Neg):
        inner = _int_literal(node.this)
        return None if inner is None else -inner
    if isinstance(node, exp.Literal) and not node.is_string and re.fullmatch(r"\d+", node.this or ""):
        return int(node.this)
    return None


def _format_problem(name: str, fmt: exp.Expression | None, args: list[exp.Expression]) -> str | None:
    if not isinstance(fmt, exp.Literal) or not fmt.is_string:
        return f"{name}() needs a literal format string"
    i = 0
    for m in _SPEC.finditer(fmt.this):
        if m.group(1) == "%":
            continue
        for part in (m.group(2), m.group(3)):
            if part == "*":
                value = _int_literal(args[i]) if i < len(args) else None
                if value is None or abs(value) > MAX_FORMAT_WIDTH:
                    return f"{name}() width/precision from `*` must be a number up to {MAX_FORMAT_WIDTH}"
                i += 1
            elif part and int(part) > MAX_FORMAT_WIDTH:
                return f"{name}() width/precision {part} is over the limit of {MAX_FORMAT_WIDTH}"
        i += 1
    return None


def _amplifies(node: exp.Expression) -> bool:
    if isinstance(node, exp.Anonymous):
        return str(node.name).lower() in {"printf", "format", "quote", "hex"}
    return isinstance(node, exp.Replace | exp.Hex | exp.Format | exp.Repeat | exp.Pad)


def _amplifier_depth(node: exp.Expression) -> int:
    """How many length-multiplying calls enclose `node`, itself included (through any argument)."""
    depth, cur = 0, node
    while cur is not None:
        depth += _amplifies(cur)
        cur = cur.parent
    return depth


def check_costs(root: exp.Expression) -> str | None:
    """Why `root` could exhaust memory or time inside one function call, or None when it cannot."""
    amplifiers = [n for n in root.walk() if _amplifies(n)]
    if len(amplifiers) > MAX_AMPLIFIERS:
        return f"{len(amplifiers)} length-multiplying calls (replace, hex, printf, ...), over the limit of {MAX_AMPLIFIERS}"
    if any(_amplifier_depth(n) > MAX_AMPLIFIER_NESTING for n in amplifiers):
        return f"length-multiplying calls (replace, hex, printf, ...) nested more than {MAX_AMPLIFIER_NESTING} deep"
    for node in root.walk():
        if isinstance(node, exp.Select):
            width = sum(not isinstance(e, exp.Star) for e in node.expressions)
            problem = f"{width} result columns, over the limit of {MAX_RESULT_COLUMNS}" if (
                width > MAX_RESULT_COLUMNS) else None
        elif isinstance(node, exp.Anonymous) and str(node.name).lower() in {"printf", "format"}:
            args = list(node.expressions)
            problem = _format_problem(str(node.name).lower(), args[0] if args else None, args[1:])
        elif isinstance(node, exp.Format):
            problem = _format_problem("format", node.this, list(node.expressions))
        elif isinstance(node, exp.Repeat | exp.Pad):
            name = "repeat" if isinstance(node, exp.Repeat) else ("lpad" if node.args.get("is_left") else "rpad")
            count = _int_literal(node.args.get("times") if isinstance(node, exp.Repeat) else node.expression)
            problem = None if count is not None and count <= MAX_PAD_LENGTH else (
                f"{name}() length must be a number up to {MAX_PAD_LENGTH}")
        else:
            continue
        if problem:
            return problem
    return None
