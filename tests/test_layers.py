"""The package's layers, checked on the `ast` imports of every module (module-level and function-level).

Imports run one way, from the top of `LAYERS` down: faces (`cli` → `server` → `eval`) → `graph` →
`nodes` → `config` → `tools` (its sub-packages in their own order) → `models` → `prompts`. A unit may
import its own modules and any unit of a lower layer, never one of its own layer (peers such as
`tools.sql` / `tools.cypher`) nor a higher one. On top of that: no cycle between units, no cycle between
modules (lazy imports count too), no flat module left in `tools/`, light sub-package `__init__`
files, and no module over `MAX_LINES` lines. See docs/architecture.md for the map.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "queryweave"
MAX_LINES = 400

# Lowest first. One row = one layer; units on the same row are peers and may not import each other.
LAYERS: list[tuple[str, ...]] = [
    ("queryweave", "prompts", "samples"),
    ("models", "testing"),
    ("tools", "tools.common"),
    ("tools.sql", "tools.cypher"),
    ("tools.stores",),
    ("tools.media",),
    ("tools.understanding",),
    ("tools.ingest",),
    ("tools.retrieval",),
    ("tools.grounding",),
    ("tools.suggest",),
    ("config",),
    ("nodes",),
    ("graph",),
    ("eval",),
    ("server",),
    ("cli",),
]
RANK = {unit: i for i, row in enumerate(LAYERS) for unit in row}

Import = tuple[str, int, bool]  # (imported module, line, at module level)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def all_modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


def unit_of(module: str) -> str:
    """`tools.<sub>` for anything inside a tools sub-package, else the top-level name under queryweave."""
    parts = module.split(".")
    if len(parts) == 1:
        return "queryweave"
    if parts[1] == "tools" and len(parts) >= 3 and (ROOT / "tools" / parts[2]).is_dir():
        return f"tools.{parts[2]}"
    return parts[1]


def imports_of(module: str, path: Path, known: set[str]) -> list[Import]:
    """Every `queryweave` import in the file, at any depth; `from pkg import mod` names the module."""
    is_pkg = path.name == "__init__.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top_level = {id(n) for n in tree.body}
    top_level |= {id(c) for n in tree.body if isinstance(n, (ast.If, ast.Try)) for c in ast.walk(n)}
    out: list[Import] = []
    for node in ast.walk(tree):
        at_top = id(node) in top_level
        if isinstance(node, ast.Import):
            out += [(a.name, node.lineno, at_top) for a in node.names if a.name.split(".")[0] == "queryweave"]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".") if is_pkg else module.split(".")[:-1]
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "queryweave":
                continue
            for a in node.names:
                sub = f"{target}.{a.name}"
                out.append((sub if sub in known else target, node.lineno, at_top))
    return out


def import_map() -> dict[str, list[Import]]:
    mods = all_modules()
    return {m: imports_of(m, p, set(mods)) for m, p in mods.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one node (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(set(edges) | {w for ws in edges.values() for w in ws}):
        if v not in index:
            visit(v)
    return found


def violations(imports: dict[str, list[Import]]) -> list[str]:
    """Every import that breaks the layer table, every cycle between units, every cycle between modules
    (function-level imports count: a lazy import is still a dependency)."""
    out: list[str] = []
    unit_edges: dict[str, set[str]] = {}
    module_edges: dict[str, set[str]] = {}
    for src, targets in sorted(imports.items()):
        su = unit_of(src)
        for target, line, at_top in targets:
            tu = unit_of(target)
            if target != src:
                module_edges.setdefault(src, set()).add(target)
            if su == tu:
                continue
            unit_edges.setdefault(su, set()).add(tu)
            where = f"{src}:{line} imports {target}" + ("" if at_top else " (function-level)")
            if su not in RANK or tu not in RANK:
                out.append(f"{where}: unit {su if su not in RANK else tu!r} is not in the layer table")
            elif RANK[tu] == RANK[su]:
                out.append(f"{where}: {su} and {tu} are peers")
            elif RANK[tu] > RANK[su]:
                out.append(f"{where}: {su} may not import {tu} (a higher layer)")
    out += [f"import cycle between units: {' <-> '.join(c)}" for c in cycles(unit_edges)]
    out += [f"import cycle between modules: {' <-> '.join(c)}" for c in cycles(module_edges)]
    return out


# -- the package itself ------------------------------------------------------------------------------

def test_imports_follow_the_layers():
    assert violations(import_map()) == []


def test_every_unit_is_in_the_table():
    assert {unit_of(m) for m in all_modules()} <= set(RANK)


def test_no_flat_module_left_in_tools():
    assert sorted(p.name for p in (ROOT / "tools").glob("*.py")) == ["__init__.py"]


def test_sub_package_inits_are_light_and_say_what_they_own():
    for init in sorted((ROOT / "tools").glob("*/__init__.py")):
        tree = ast.parse(init.read_text(encoding="utf-8"))
        doc = ast.get_docstring(tree) or ""
        assert "May import" in doc, f"{init}: the docstring says what it owns and what it may import"
        assert not any(isinstance(n, (ast.Import, ast.ImportFrom)) and getattr(n, "module", "") != "__future__"
                       for n in ast.walk(tree)), f"{init} imports something"


def test_no_module_over_the_line_limit():
    long = {m: n for m, p in all_modules().items() if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}


# -- the checker can fail -------------------------------------------------------------------------------

def test_an_upward_import_is_reported():
    fake = {
        "queryweave.tools.stores.kb": [("queryweave.tools.retrieval.pipeline", 3, False)],
        "queryweave.models": [("queryweave.config", 5, True)],
        "queryweave.prompts.grounding": [("queryweave.tools.common.validation", 7, True)],
        "queryweave.nodes.retrieve": [("queryweave.graph.builder", 9, True)],
        "queryweave.tools.sql.text_to_sql": [("queryweave.tools.cypher.store", 11, True)],
        "queryweave.tools.retrieval.tuner": [("queryweave.eval.metrics", 13, True)],
    }
    found = violations(fake)
    assert any("stores.kb:3" in v and "higher layer" in v for v in found)
    assert any("models:5" in v and "config" in v for v in found)
    assert any("prompts.grounding:7" in v for v in found)
    assert any("nodes.retrieve:9" in v for v in found)
    assert any("text_to_sql:11" in v and "peers" in v for v in found)
    assert any("tuner:13" in v and "eval" in v for v in found)


def test_cycles_are_reported():
    fake = {
        "queryweave.tools.retrieval.profiles": [("queryweave.tools.retrieval.pipeline", 1, True)],
        "queryweave.tools.retrieval.pipeline": [("queryweave.tools.retrieval.profiles", 2, False)],
        "queryweave.tools.grounding.detector": [("queryweave.tools.suggest.suggester", 3, False)],
        "queryweave.tools.suggest.suggester": [("queryweave.tools.grounding.detector", 4, False)],
    }
    found = violations(fake)
    assert "import cycle between modules: queryweave.tools.retrieval.pipeline <-> queryweave.tools.retrieval.profiles" in found
    assert "import cycle between units: tools.grounding <-> tools.suggest" in found
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_a_lazy_import_counts_and_from_package_import_names_the_module(tmp_path):
    src = tmp_path / "x.py"
    src.write_text("def f():\n    from queryweave.tools import stores\n    from queryweave.tools.stores import kb\n")
    known = {"queryweave.tools.stores", "queryweave.tools.stores.kb"}
    assert imports_of("queryweave.prompts.x", src, known) == [
        ("queryweave.tools.stores", 2, False), ("queryweave.tools.stores.kb", 3, False)]
    assert len(violations({"queryweave.prompts.x": imports_of("queryweave.prompts.x", src, known)})) == 2


def test_an_unknown_unit_is_reported():
    assert violations({"queryweave.plugins.x": [("queryweave.models", 1, True)]}) == [
        "queryweave.plugins.x:1 imports queryweave.models: unit 'plugins' is not in the layer table"]


@pytest.mark.parametrize("module,unit", [
    ("queryweave", "queryweave"), ("queryweave.models", "models"), ("queryweave.tools", "tools"),
    ("queryweave.tools.sql.guard", "tools.sql"), ("queryweave.tools.retrieval", "tools.retrieval"),
    ("queryweave.nodes.common", "nodes"),
])
def test_unit_of(module, unit):
    assert unit_of(module) == unit
