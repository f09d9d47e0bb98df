"""Documentation-site markup that is no text: removed from Markdown before it is chunked or answered from.

Docs sites built with MkDocs (Material, pymdown-extensions) or Docusaurus write directives that their
build replaces and a reader never sees:
- include macros: `{* ../../docs_src/cors/tutorial001.py hl[2,6] *}`, `{! docs/snippet.md !}` and
  pymdown snippets `--8<-- "file.md"` (the included code is not in the page);
- admonition fences: pymdown blocks `/// tip | Tip` ... `///`, Material `!!! note "Title"` /
  `??? info`, Docusaurus / VitePress `:::tip Title` / `::: tip` ... `:::` (the fence lines go, the
  admonition's text stays);
- GitHub / VitePress alerts: the `> [!TIP]` line of a quoted admonition (its quoted text stays);
- Hugo shortcodes: `{{< note >}}` ... `{{< /note >}}` and `{{% ... %}}` go; one that carries text
  shows it (`{{< glossary_tooltip text="Pods" term_id="pod" >}}` reads "Pods").
Left in, they became answer text ("{* ../../docs_src/... *} [2]", "/// note — 注意") and search
terms ("tutorial001_py310", "hl"). Fenced code blocks are left as they are. Nothing here is specific
to one site: these are the documented syntaxes of the three generators.
"""

from __future__ import annotations

import re

from queryweave.tools.common.fences import fence_states

_INCLUDE = re.compile(r"\{\*.*?\*\}|\{!.*?!\}")
_SNIPPET = re.compile(r"^\s*-{2}8<-{2}(?:\s+.*)?$")
_BLOCK_FENCE = re.compile(r"^\s*/{3,}(?:\s*[A-Za-z][\w-]*(?:\s*\|.*)?)?\s*$")  # "/// tip | Tip", "///"
_MATERIAL = re.compile(r"^\s*(?:!!!|\?\?\?\+?)\s+[A-Za-z][\w-]*(?:\s+(?:\".*\"|'.*'))?\s*$")  # !!! note "Title"
_DOCUSAURUS = re.compile(r"^\s*:{3,}(?:\s*[A-Za-z][\w-]*.*)?\s*$")  # ":::tip Title", "::: tip", ":::"
_SHORTCODE = re.compile(r"\{\{[<%]\s*/?\s*[\w.-]+(?P<args>[^{}]*?)[>%]\}\}")
_TEXT_ARG = re.compile(r"\btext\s*=\s*\"([^\"]*)\"")
_ALERT = re.compile(r"^\s*>\s*\[!(?:NOTE|TIP|IMPORTANT|WARNING|CAUTION|INFO|DANGER)\]\s*$", re.I)  # > [!TIP]
_MARKERS = ("{*", "{!", "--8<--", "///", "!!!", "???", ":::", "{{", "[!")  # text without any of these has no directive


def is_directive(line: str) -> bool:
    """Whether a line (outside fenced code) is only a site directive: an include, a snippet or an
    admonition fence."""
    stripped = line.strip()
    if not stripped:
        return False
    if _SNIPPET.match(line) or _BLOCK_FENCE.match(line) or _MATERIAL.match(line) or _DOCUSAURUS.match(line) \
            or _ALERT.match(line):
        return True
    return not _SHORTCODE.sub("", _INCLUDE.sub("", stripped)).strip()


def _shortcode_text(match: re.Match[str]) -> str:
    found = _TEXT_ARG.search(match.group("args") or "")
    return found.group(1) if found else ""


def strip_site_markup(text: str) -> str:
    """`text` without include macros, snippet lines and admonition fences (fenced code untouched).
    A removed line leaves a blank line, so the paragraphs before and after stay apart."""
    if not any(marker in text for marker in _MARKERS):  # most passages: nothing to do (answers read every one)
        return text
    out: list[str] = []
    lines = text.splitlines()
    for line, (fence, open_) in zip(lines, fence_states(lines), strict=True):
        if fence or open_:  # fenced code (read as CommonMark: a "````md" block may show "```" inside)
            out.append(line)
        elif is_directive(line):
            out.append("")
        else:
            if "{{" in line:
                line = _SHORTCODE.sub(_shortcode_text, line)
            out.append(_INCLUDE.sub("", line).rstrip() if "{*" in line or "{!" in line else line)
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")
