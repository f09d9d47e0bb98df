"""Docs-site markup (MkDocs includes and admonitions, Docusaurus admonitions) leaves chunks and answers."""

from __future__ import annotations

from queryweave.tools.common.site_markup import is_directive, strip_site_markup
from queryweave.tools.grounding.extractive import answer_units, extract_answer
from queryweave.tools.grounding.units import render
from queryweave.tools.ingest.loaders import iter_documents

PAGE = """# CORS { #cors }

You can configure it with the `CORSMiddleware`.

{* ../../docs_src/cors/tutorial001_py310.py hl[2,6:11,13:19] *}

/// tip | Tip

The defaults are restrictive.

///

!!! note "Technical Details"
    You could also use `from starlette.middleware.cors import CORSMiddleware`.

:::warning Careful
Wildcards exclude credentials.
:::

--8<-- "snippets/footer.md"

```python
# a comment that looks like nothing special /// not a directive
x = "{* kept inside code *}"
```
"""


def test_directives_are_removed_and_their_text_kept() -> None:
    clean = strip_site_markup(PAGE)
    for gone in ("{*", "/// tip", "!!! note", ":::warning", "--8<--"):
        assert gone not in clean.split("```")[0], gone
    for kept in ("The defaults are restrictive.", "Wildcards exclude credentials.", "starlette.middleware.cors"):
        assert kept in clean
    assert '"{* kept inside code *}"' in clean  # fenced code is left exactly as written
    assert clean.count("\n") == PAGE.count("\n")  # a removed line leaves a blank line


def test_directive_lines_and_ordinary_lines() -> None:
    assert is_directive("/// note | 注意")
    assert is_directive("//// tab | `uvicorn`")
    assert is_directive("///")
    assert is_directive("{* ../../docs_src/app.py ln[1:3] *}")
    assert not is_directive("Use a path like /// in a sentence, or 3 ::: 4.")
    assert not is_directive("The result is {* not alone *} here")  # an inline include: the line stays
    assert strip_site_markup("The result is {* x *} here") == "The result is  here"


def test_answers_never_show_include_macros_or_admonition_fences() -> None:
    doc = {"chunk_id": "c1", "source": "cors.md", "title": "CORS", "text": PAGE}
    units = answer_units(PAGE)
    assert not [u for u in units if "{*" in u.split("code: ")[0] or u.startswith("///") or u.startswith(":::")]
    ans = extract_answer("How do I configure CORS?", [doc])
    assert "CORSMiddleware" in ans.answer and "{*" not in ans.answer and "///" not in ans.answer


def test_loader_strips_the_markup_before_chunking(tmp_path) -> None:
    (tmp_path / "cors.md").write_text(PAGE, encoding="utf-8")
    (doc,) = list(iter_documents([tmp_path]))
    assert "docs_src" not in doc.text.split("```")[0]
    assert "/// tip" not in doc.text and "The defaults are restrictive." in doc.text
    assert doc.metadata["title"] == "CORS"


def test_hugo_shortcodes_and_vitepress_containers() -> None:
    page = ('{{< note >}}\nA {{< glossary_tooltip text="Pod" term_id="pod" >}} runs containers.\n{{< /note >}}\n'
            '::: tip\nVitePress tip text.\n:::\n{{% code_sample file="pods/simple-pod.yaml" %}}\n')
    clean = strip_site_markup(page)
    assert "A Pod runs containers." in clean and "VitePress tip text." in clean
    assert "{{" not in clean and ":::" not in clean and "simple-pod" not in clean


def test_quoted_alerts_and_half_bold_sentences_read_as_text() -> None:
    from queryweave.tools.grounding.units import render, sectioned_units

    page = ("# Migration\n\n> [!TIP]\n> Vue Router 5 is a transition release.\n\n"
            "**将 / 别名为 /home，意味着 URL 仍然是 /home。但会被匹配为 /。**\n")
    shown = [render(u) for u, _ in sectioned_units(page)]
    assert shown == ["Vue Router 5 is a transition release.", "将 / 别名为 /home，意味着 URL 仍然是 /home。",
                     "但会被匹配为 /。"]


def test_clauses_a_semicolon_ends_stay_with_their_sentence() -> None:
    from queryweave.tools.grounding.units import CLAUSE_CHARS, sectioned_units

    page = ("2012年，该公司拆分成两家公司：一家名为甲品牌，主要在北美营运；另一家名为乙公司，经营国际市场。此后股价上涨。\n\n"
            "It keeps three copies; each lives on another disk. Restores take minutes.\n")
    units = [u for u, _ in sectioned_units(page)]
    assert units == ["2012年，该公司拆分成两家公司：一家名为甲品牌，主要在北美营运；另一家名为乙公司，经营国际市场。", "此后股价上涨。",
                     "It keeps three copies; each lives on another disk.", "Restores take minutes."]
    long = "；".join(["这是一段很长的描述文字，" * 4] * 4) + "。"  # clauses past the cap stay apart
    assert all(len(u) <= CLAUSE_CHARS for u, _ in sectioned_units(long)) and len(sectioned_units(long)) > 1


def test_character_references_read_as_their_characters_outside_code() -> None:
    page = ("# pnpm patch\n\n### --edit-dir &lt;dir>\n\nThe package that needs to be patched will be extracted to this "
            "directory.\n\n| Name | Type |\n| --- | --- |\n| items | Array&lt;string&gt; |\n\n"
            "Pass `Array&lt;T&gt;` as written &amp; check it.\n")
    docs = [{"chunk_id": "p", "source": "cli-patch.md", "title": "pnpm patch", "text": page}]
    assert render("--edit-dir &lt;dir> —") == "--edit-dir <dir> —"  # a heading shown before its sentence
    answer = extract_answer("What is the type of items?", docs).answer
    assert "items — Type: Array<string>" in answer and "&lt;" not in answer.split("Pass")[0]
    # a code span keeps what it holds, as Markdown shows it
    assert "Array&lt;T&gt; as written & check it" in extract_answer("How do I pass it as written and check it?", docs).answer
