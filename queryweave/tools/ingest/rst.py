"""reStructuredText pages (`.rst`, Sphinx sites) as Markdown, parsed with docutils.

docutils parses the page; this module writes its tree back as Markdown, the form the chunker and the
answers read: sections as headings, literal blocks as fenced code, lists as items, field lists as
"- **name:** value" lines, definition lists as "term: definition", tables as Markdown tables,
admonitions as their text. Sphinx's own markup, which plain docutils does not know, is read as a
built site shows it: cross-reference roles (:func:`connect`, :ref:`Title <label>`) as their text,
`code-block` as code, API descriptions (`.. function:: connect(url, timeout=30)`, `.. data:: MAX_SIZE`) as a
heading of their signature in code over their text, `versionadded` / `deprecated` as "New in version 2.0: …", and
directives that only build the site (toctree, autodoc, index) as nothing. Nothing is fetched or
included from other files.
"""

from __future__ import annotations

import io
import re
from typing import Any

from queryweave.tools.ingest.tables import markdown_table

_ROLE = re.compile(r":(?:[\w.+-]+:)*[\w.+-]+:`(?P<text>[^`]+)`")
_TARGET = re.compile(r"^(?P<title>.+?)\s*<[^<>]+>$")
VERSION_LABELS = {"versionadded": "New in version", "versionchanged": "Changed in version",
                  "deprecated": "Deprecated since version", "versionremoved": "Removed in version"}
DESCRIPTIONS = ("function", "class", "method", "attribute", "data", "exception", "decorator", "staticmethod",
                "classmethod", "property", "option", "envvar", "describe", "object", "program", "confval")
CONTENT = ("seealso", "only", "tab", "tabs", "group-tab", "code-tab", "glossary", "centered", "hlist", "card",
           "grid", "grid-item", "grid-item-card", "tab-set", "tab-item", "dropdown")
IGNORED = ("toctree", "automodule", "autoclass", "autofunction", "automethod", "autoattribute", "autodata",
           "autoexception", "autosummary", "currentmodule", "module", "index", "highlight", "literalinclude",
           "include", "sectionauthor", "codeauthor", "moduleauthor", "todo", "graphviz", "image", "figure",
           "plot", "jupyter-execute", "ipython", "testsetup", "testcleanup", "doctest", "testcode",
           "testoutput", "meta", "raw", "contents", "sectnum", "default-domain", "default-role", "py:module",
           "py:currentmodule", "tabularcolumns", "productionlist")


def _role_text(match: re.Match[str]) -> str:
    text = match.group("text").strip()
    target = _TARGET.match(text)
    if target:
        return target.group("title")
    return f"``{text.lstrip('~!')}``"


def _register() -> None:
    """Teach docutils the Sphinx directives it lacks (once)."""
    from docutils import nodes
    from docutils.parsers.rst import Directive, directives
    from docutils.parsers.rst.directives.body import CodeBlock

    class AnyOptions(dict):
        def __contains__(self, key: object) -> bool:
            return True

        def __getitem__(self, key: str) -> Any:
            return directives.unchanged

    class Ignored(Directive):
        optional_arguments, final_argument_whitespace, has_content = 99, True, True
        option_spec = AnyOptions()

        def run(self) -> list:
            return []

    class Content(Ignored):
        def run(self) -> list:
            box = nodes.container()
            lead = VERSION_LABELS.get(self.name.split(":")[-1])
            signature = " ".join(self.arguments).strip()
            if lead:  # "2.1 The ``timeout`` argument." -> "New in version 2.1: The `timeout` argument."
                version, _, said = signature.partition(" ")
                said = re.sub(r"``([^`]+)``", r"`\1`", said.strip())
                box += nodes.paragraph(text=f"{lead} {version}: {said}".strip() if version else f"{lead}:")
            elif self.name.split(":")[-1] in DESCRIPTIONS and signature:
                box += nodes.paragraph("", "", nodes.literal(text=signature), classes=["signature"])
            self.state.nested_parse(self.content, self.content_offset, box)
            return [box]

    for name in IGNORED:
        directives.register_directive(name, Ignored)
    for name in (*VERSION_LABELS, *DESCRIPTIONS, *CONTENT):
        directives.register_directive(name, Content)
        if name in DESCRIPTIONS:
            directives.register_directive(f"py:{name}", Content)
    for name in ("code-block", "sourcecode"):
        directives.register_directive(name, CodeBlock)


_REGISTERED: list[bool] = []


def _inline(node: Any) -> str:
    from docutils import nodes

    if isinstance(node, nodes.Text):
        return str(node)
    if isinstance(node, nodes.literal):
        return f"`{node.astext()}`"
    if isinstance(node, nodes.system_message | nodes.problematic):
        return node.astext() if isinstance(node, nodes.problematic) else ""
    return "".join(_inline(child) for child in node.children)


def _table(node: Any) -> list[str]:
    from docutils import nodes

    return markdown_table([[_inline(e) for e in row.findall(nodes.entry)] for row in node.findall(nodes.row)])


def _blocks(node: Any, depth: int, out: list[str], offset: int = 0) -> None:
    """Markdown blocks of a node's children, appended to `out`; a section at `depth` is a heading of
    level depth + 1 + `offset` (1 below a document title)."""
    from docutils import nodes

    for child in node.children:
        if isinstance(child, nodes.section):
            title = next((c for c in child.children if isinstance(c, nodes.title)), None)
            if title is not None:
                out.append("#" * min(6, depth + 1 + offset) + " " + " ".join(_inline(title).split()))
            _blocks(child, depth + 1, out, offset)
        elif isinstance(child, nodes.title):
            if depth == 0:
                out.append("# " + " ".join(_inline(child).split()))
        elif isinstance(child, nodes.paragraph) and "signature" in child.get("classes", []):
            # an API description's signature heads its text, as a built site shows it: the setting, option or
            # function its "Default: …" lines and sentences are about
            out.append("#" * min(6, depth + 1 + offset) + " " + " ".join(_inline(child).split()))
        elif isinstance(child, nodes.paragraph):
            out.append(" ".join(_inline(child).split()))
        elif isinstance(child, nodes.literal_block | nodes.doctest_block):
            language = next((c for c in child.get("classes", []) if c != "code"), "")
            out.append(f"```{language}\n{child.astext()}\n```")
        elif isinstance(child, nodes.bullet_list | nodes.enumerated_list):
            items = []
            for item in child.children:
                inner: list[str] = []
                _blocks(item, depth, inner)
                items.append("- " + " ".join(" ".join(inner).split()))
            out.append("\n".join(items))
        elif isinstance(child, nodes.definition_list):
            for item in child.children:
                term = " ".join(_inline(t) for t in item.findall(nodes.term))
                inner = []
                for definition in item.findall(nodes.definition):
                    _blocks(definition, depth, inner)
                out.append(f"{term}: {' '.join(' '.join(inner).split())}")
        elif isinstance(child, nodes.field_list):
            fields = []
            for field in child.children:
                name = _inline(field.children[0]).strip()
                inner = []
                _blocks(field.children[1], depth, inner)
                fields.append(f"- **{name}:** {' '.join(' '.join(inner).split())}")
            out.append("\n".join(fields))
        elif isinstance(child, nodes.table):
            rows = _table(child)
            if rows:
                out.append("\n".join(rows))
        elif isinstance(child, nodes.system_message | nodes.comment | nodes.substitution_definition
                        | nodes.target | nodes.raw | nodes.image | nodes.docinfo):
            continue
        elif isinstance(child, nodes.Element):  # admonitions, containers, block quotes: their text
            _blocks(child, depth, out, offset)


def parse_rst(text: str) -> tuple[str, dict]:
    """(Markdown text, metadata) of a reStructuredText page; the title is the page's first title."""
    from docutils import nodes
    from docutils.core import publish_doctree

    if not _REGISTERED:
        _register()
        _REGISTERED.append(True)
    settings = {"report_level": 5, "halt_level": 5, "warning_stream": io.StringIO(), "file_insertion_enabled": False,
                "raw_enabled": False, "syntax_highlight": "none", "doctitle_xform": True, "input_encoding": "unicode"}
    tree = publish_doctree(_ROLE.sub(_role_text, text), settings_overrides=settings)
    out: list[str] = []
    titled = any(isinstance(child, nodes.title) for child in tree.children)
    _blocks(tree, 0, out, 1 if titled else 0)
    meta: dict = {}
    title = next((line[2:].strip() for line in out if line.startswith("# ")), "")
    if title:
        meta["title"] = title[:200]
    return "\n\n".join(b for b in out if b.strip()), meta
