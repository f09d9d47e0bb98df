"""Loaders: metadata from front matter, documents and paths; stable sources; bad files skipped."""

from __future__ import annotations

import hashlib
import json
import logging

import pytest

from queryweave.tools.ingest.loaders import count_documents, file_fingerprint, iter_documents


def make_pdf(text: str, title: str | None = None) -> bytes:
    """A minimal one-page PDF showing `text` in Helvetica, with correct xref offsets."""
    stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode("latin-1")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R"
        b" /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    if title:
        objects.append(f"<< /Title ({title}) /Author (Ada) >>".encode("latin-1"))
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % off for off in offsets)
    info = b" /Info %d 0 R" % len(objects) if title else b""
    out += b"trailer\n<< /Size %d /Root 1 0 R%s >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, info, xref)
    return bytes(out)


@pytest.fixture()
def corpus(tmp_path):
    root = tmp_path / "kb"
    (root / "build" / "gradle").mkdir(parents=True)
    (root / "2021").mkdir()
    (root / ".hidden").mkdir()
    (root / "beir").mkdir()
    (root / "build" / "gradle" / "cache.md").write_text(
        "---\ntitle: Gradle 构建缓存\ndate: 2023-05-02\ntags: [gradle, cache]\nauthor: Li Wei\n"
        "difficulty: 2\nreviewers: [a, b]\nnested: {x: 1}\n---\n"
        "# 标题在正文\n\nGradle 的构建缓存可以复用任务输出，显著缩短构建时间。\n",
        encoding="utf-8",
    )
    (root / "build" / "gradle" / "notes-2019.md").write_text(
        "Intro line.\n\n# Gradle Notes\n\nGradle is a build tool for the JVM.\n", encoding="utf-8"
    )
    (root / "build" / "comma.md").write_text(
        "---\ntags: jvm, heap , gc\nyear: '2020'\n---\nHeap sizing for the JVM.\n", encoding="utf-8"
    )
    (root / "2021" / "plain.txt").write_text("Plain text about SQLite WAL mode.\n", encoding="utf-8")
    (root / "page.html").write_text(
        "<html lang='en'><head><title>HTTP Caching</title><meta name='author' content='Bo'>"
        "<meta name='keywords' content='http, cache'><style>.x{color:red}</style></head>"
        "<body><h1>Cache-Control</h1><p>Use max-age to set freshness.</p>"
        "<script>var secret = 1;</script><h2>ETag</h2><p>Validators avoid re-downloads.</p></body></html>",
        encoding="utf-8",
    )
    (root / "doc.pdf").write_bytes(make_pdf("Kubernetes pods share a network namespace.", "K8s Pods"))
    (root / "untitled.pdf").write_bytes(make_pdf("First line is the title"))
    rows = [
        {"_id": "d1", "title": "Aerodynamics", "text": "Boundary layer flow."},
        {"_id": "d2", "title": "", "text": "边界层流动的实验研究。"},
    ]
    (root / "beir" / "corpus.jsonl").write_text(
        "\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\nnot json\n", encoding="utf-8"
    )
    (root / ".hidden" / "secret.md").write_text("# Secret\n", encoding="utf-8")
    (root / ".dotfile.md").write_text("# Dot\n", encoding="utf-8")
    return root


def by_source(root):
    return {d.source: d for d in iter_documents([root])}


def test_sources_are_relative_sorted_and_skip_hidden(corpus):
    sources = [d.source for d in iter_documents([corpus])]
    assert sources == [
        "2021/plain.txt",
        "beir/corpus.jsonl#d1",
        "beir/corpus.jsonl#d2",
        "build/comma.md",
        "build/gradle/cache.md",
        "build/gradle/notes-2019.md",
        "doc.pdf",
        "page.html",
        "untitled.pdf",
    ]
    assert sources == [d.source for d in iter_documents([str(corpus)])]  # stable across runs and types


def test_markdown_front_matter_metadata(corpus):
    doc = by_source(corpus)["build/gradle/cache.md"]
    meta = doc.metadata
    assert meta["title"] == "Gradle 构建缓存"
    assert meta["year"] == 2023 and meta["date"] == "2023-05-02"
    assert meta["tags"] == ["gradle", "cache"]
    assert meta["author"] == "Li Wei" and meta["difficulty"] == 2
    assert meta["reviewers"] == ["a", "b"] and "nested" not in meta
    assert meta["content_type"] == "markdown" and meta["lang"] == "zh"
    assert meta["source"] == "build/gradle/cache.md"
    assert not doc.text.startswith("---") and doc.text.startswith("# 标题在正文")


def test_markdown_metadata_from_heading_and_path(corpus):
    docs = by_source(corpus)
    notes = docs["build/gradle/notes-2019.md"].metadata
    assert notes["title"] == "Gradle Notes" and notes["year"] == 2019
    assert notes["tags"] == ["build", "gradle"] and notes["lang"] == "en"
    comma = docs["build/comma.md"].metadata
    assert comma["tags"] == ["jvm", "heap", "gc"] and comma["year"] == 2020 and comma["title"] == "comma"


def test_text_html_pdf(corpus):
    docs = by_source(corpus)
    txt = docs["2021/plain.txt"]
    assert txt.metadata["year"] == 2021 and txt.metadata["content_type"] == "text"
    assert txt.metadata["title"] == "plain" and "tags" not in txt.metadata
    html = docs["page.html"]
    assert html.metadata["title"] == "HTTP Caching" and html.metadata["author"] == "Bo"
    assert html.metadata["tags"] == ["http", "cache"] and html.metadata["content_type"] == "html"
    assert "secret" not in html.text and "color" not in html.text
    assert "# Cache-Control" in html.text and "## ETag" in html.text and "max-age" in html.text
    pdf = docs["doc.pdf"]
    assert "Kubernetes pods share a network namespace." in pdf.text
    assert pdf.metadata["title"] == "K8s Pods" and pdf.metadata["author"] == "Ada"
    assert pdf.metadata["content_type"] == "pdf" and pdf.metadata["lang"] == "en"
    assert docs["untitled.pdf"].metadata["title"] == "First line is the title"


def test_beir_rows(corpus, caplog):
    with caplog.at_level(logging.WARNING):
        docs = by_source(corpus)
    d1, d2 = docs["beir/corpus.jsonl#d1"], docs["beir/corpus.jsonl#d2"]
    assert d1.metadata["doc_id"] == "d1" and d1.metadata["content_type"] == "beir"
    assert d1.metadata["title"] == "Aerodynamics" and d1.text == "Aerodynamics\n\nBoundary layer flow."
    assert (
        d2.metadata["lang"] == "zh" and d2.metadata["title"] == "d2" and d2.text == "边界层流动的实验研究。"
    )
    assert "corpus.jsonl:3" in caplog.text  # the bad row is reported, the good ones kept


def test_direct_file_and_count(corpus):
    docs = list(iter_documents([corpus / "build" / "comma.md"]))
    assert [d.source for d in docs] == ["comma.md"]
    assert count_documents([corpus]) == 10  # 7 files + 3 non-empty corpus rows (one is bad)
    assert count_documents([corpus, corpus / "page.html"]) == 10  # each file once


def test_bad_files_are_skipped_with_warnings(tmp_path, caplog):
    (tmp_path / "good.md").write_text("# Good\n\nfine", encoding="utf-8")
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.4\nthis is not a pdf at all")
    (tmp_path / "bad_yaml.md").write_text("---\ntitle: [unclosed\n---\nbody\n", encoding="utf-8")
    (tmp_path / "binary.txt").write_bytes(b"\x00\x01\x02\xff" * 50)
    (tmp_path / "garbage.txt").write_bytes(bytes(range(128, 256)) * 4)
    (tmp_path / "latin.txt").write_bytes("caf\xe9 au lait is a drink. ".encode("latin-1") * 3)
    (tmp_path / "gbk.txt").write_bytes("数据库连接池的默认大小。".encode("gbk"))
    (tmp_path / "image.png").write_bytes(b"\x89PNG\r\n")
    (tmp_path / "queries.jsonl").write_text('{"_id": "q1", "text": "a query"}\n', encoding="utf-8")
    (tmp_path / "empty.md").write_text("   \n", encoding="utf-8")
    with caplog.at_level(logging.WARNING):
        docs = {d.source: d for d in iter_documents([tmp_path, tmp_path / "missing"])}
    assert set(docs) == {"good.md", "latin.txt", "gbk.txt"}
    assert docs["gbk.txt"].text == "数据库连接池的默认大小。"
    assert "\ufffd" in docs["latin.txt"].text and "au lait" in docs["latin.txt"].text
    for name in (
        "broken.pdf",
        "bad_yaml.md",
        "binary.txt",
        "garbage.txt",
        "image.png",
        "empty.md",
        "missing",
    ):
        assert name in caplog.text, name
    assert "invalid YAML" in caplog.text
    assert "queries.jsonl" not in caplog.text  # a BEIR companion file is skipped quietly (info)


def test_file_fingerprint(tmp_path):
    path = tmp_path / "a.txt"
    path.write_bytes(b"hello")
    first = file_fingerprint(path)
    assert first == hashlib.sha256(b"hello").hexdigest()
    path.write_bytes(b"hello!")
    assert file_fingerprint(path) != first
