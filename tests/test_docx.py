"""Word documents are ingested as Markdown: headings, lists, tables and code in document order."""

from __future__ import annotations

import datetime as dt

import docx

from queryweave.tools.grounding.extractive import answer_units, render  # noqa: E402
from queryweave.tools.ingest.loaders import iter_documents  # noqa: E402


def _write(path):
    document = docx.Document()
    document.core_properties.author = "王磊"
    document.core_properties.created = dt.datetime(2024, 5, 6)
    document.add_heading("连接池运维手册", level=0)
    document.add_heading("默认参数", level=1)
    document.add_paragraph("连接池的默认大小为 20，空闲超时为 600 秒。")
    table = document.add_table(rows=3, cols=2)
    for row, (name, value) in zip(table.rows, [("参数", "默认值"), ("max_pool", "20"), ("idle_timeout", "600")],
                                  strict=True):
        row.cells[0].text, row.cells[1].text = name, value
    document.add_paragraph("检查步骤", style="List Bullet")
    document.add_paragraph("重启服务", style="List Bullet")
    code = document.add_paragraph()
    code.add_run("pool --check --verbose").font.name = "Consolas"
    document.add_paragraph("以上命令输出每个连接的状态。")
    document.save(path)


def test_a_word_document_reads_as_markdown_with_its_properties(tmp_path):
    _write(tmp_path / "手册.docx")
    (tmp_path / "broken.docx").write_bytes(b"PK\x03\x04 not really a zip")
    docs = list(iter_documents([tmp_path]))
    assert [d.source for d in docs] == ["手册.docx"]  # the broken file is skipped with a warning
    doc = docs[0]
    assert doc.metadata["title"] == "连接池运维手册" and doc.metadata["author"] == "王磊"
    assert doc.metadata["year"] == 2024 and doc.metadata["content_type"] == "docx" and doc.metadata["lang"] == "zh"
    text = doc.text
    assert text.index("# 连接池运维手册") < text.index("## 默认参数") < text.index("默认大小为 20")
    assert "| 参数 | 默认值 |" in text and "| idle_timeout | 600 |" in text
    assert "- 检查步骤\n- 重启服务" in text  # one list
    assert "```\npool --check --verbose\n```" in text
    # answers read the table's rows as "column: value"
    assert "idle_timeout — 默认值: 600" in [render(u) for u in answer_units(text)]
