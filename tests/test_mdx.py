"""MDX pages (Docusaurus, Rspress, Starlight) are ingested as Markdown without their JavaScript."""

from __future__ import annotations

from queryweave.tools.ingest.loaders import iter_documents
from queryweave.tools.ingest.mdx import strip_mdx

PAGE = """---
title: Installation
---
import Tabs from '@theme/Tabs';
import TabItem from '@theme/TabItem';
import {
  PackageManagerTabs,
  Badge,
} from '@theme';
export const toc = [
  { value: 'Install', id: 'install', level: 2 },
];

# Installation

{/* editors: add screenshots */}

Install the package with your package manager.

<Tabs groupId="pm">
  <TabItem value="npm" label="npm">

```bash
npm install widget
import nothing from 'here'
```

  </TabItem>
</Tabs>

<PackageManagerTabs command="create widget@latest" />

<Badge
  text="experimental"
  type="warning"
/> The `cache` option is new.

Don't mix <b>bold</b> and JSX; it's fine.
"""


def test_strip_mdx_removes_code_around_the_text_and_keeps_the_text():
    out = strip_mdx(PAGE)
    assert "import Tabs" not in out and "PackageManagerTabs," not in out and "toc" not in out
    assert "editors" not in out and "<Tabs" not in out and "</TabItem>" not in out
    assert "Install the package with your package manager." in out
    # fenced code is left as it is, an import inside it included
    assert "npm install widget\nimport nothing from 'here'" in out
    # a self-closing component shows its text-bearing props: commands as code, labels as text
    assert "`create widget@latest`" in out
    assert "experimental The `cache` option is new." in out
    assert "Don't mix <b>bold</b> and JSX; it's fine." in out  # HTML is left to the answer renderer
    assert "warning" not in out  # a badge shows its text, not its style
    # a removed line leaves a blank line: line numbers and paragraph breaks stay
    assert out.count("\n") == PAGE.count("\n")


def test_strip_mdx_leaves_plain_markdown_alone():
    text = "# Title\n\nSome text with a < sign and an <Unclosed tag\n\n- a list\n"
    assert strip_mdx(text) == text
    for prose in ("important: exports are listed below\n", "import the module first, then call it\n"):
        assert strip_mdx(prose) == prose


def test_mdx_files_are_loaded_as_markdown(tmp_path):
    (tmp_path / "en").mkdir()
    (tmp_path / "en" / "install.mdx").write_text(PAGE, encoding="utf-8")
    (tmp_path / "en" / "plain.md").write_text("# Plain\n\nimport x from 'y'\n", encoding="utf-8")
    docs = {doc.source: doc for doc in iter_documents([tmp_path])}
    assert set(docs) == {"en/install.mdx", "en/plain.md"}
    mdx = docs["en/install.mdx"]
    assert mdx.metadata["title"] == "Installation" and mdx.metadata["content_type"] == "markdown"
    assert "import" not in mdx.text.split("```")[0] and "Install the package" in mdx.text
    # a .md page is not read as MDX: its text stays as written
    assert "import x from 'y'" in docs["en/plain.md"].text


def test_self_closing_component_shows_its_data_props_not_its_links_or_styling():
    page = (
        "## cache\n\n"
        "<OptionMeta\n  type=\"Record<string, any>\"\n  defaultList={[{ defaultValue: 'true' }]}\n"
        "  stability={Stability.Experimental}\n  from=\"https://example.com/original\"\n  className=\"x\"\n/>\n\n"
        "Caches the build.\n"
    )
    out = strip_mdx(page)
    # the type is shown as code (it is no HTML tag), object fields by their names as words
    assert "- type: `Record<string, any>`" in out
    assert "- default value: `true`" in out and "- stability: `Experimental`" in out
    assert "example.com" not in out and "className" not in out and "OptionMeta" not in out
    assert "Caches the build." in out
