"""Which catalog a data dir uses (tools/stores/catalogs.py) and the pure helpers of the PostgreSQL catalog;
the SQLite catalog's `headings`, `first_chunk_texts` and literal `sources` prefixes. The PostgreSQL catalog
itself is tested against a running server in tests/test_servers_catalog.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from queryweave.config import Context
from queryweave.tools.stores import catalogs
from queryweave.tools.stores.catalog import Catalog, ChunkRecord
from queryweave.tools.stores.catalog_pg import like_prefix, redact_url


def test_like_prefix_escapes_wildcards():
    assert like_prefix("") == "%"
    assert like_prefix("docs/") == "docs/%"
    assert like_prefix("a_b%c\\d") == "a\\_b\\%c\\\\d%"


def test_redact_url_hides_only_the_password():
    assert redact_url("postgresql://qw:s3cr@t@db:5432/kb") == "postgresql://qw:***@db:5432/kb"
    assert redact_url("postgresql://qw@db/kb") == "postgresql://qw@db/kb"
    assert redact_url("postgresql://db/kb") == "postgresql://db/kb"


def test_default_kb_name_is_stable_per_dir_and_differs_between_dirs(tmp_path, monkeypatch):
    a, b = tmp_path / "x" / "kb", tmp_path / "y" / "kb"
    monkeypatch.chdir(tmp_path)
    assert catalogs.default_kb_name(a) == catalogs.default_kb_name("x/kb") == catalogs.default_kb_name(f"{a}/")
    assert catalogs.default_kb_name(a) != catalogs.default_kb_name(b)
    assert catalogs.default_kb_name(a).startswith("kb-")


@pytest.fixture()
def no_catalog_env(monkeypatch, tmp_path):
    for name in ("CATALOG_URL", "DATABASE_URL", "KB_NAME"):
        monkeypatch.delenv(f"QUERYWEAVE_{name}", raising=False)
    yield
    catalogs._CONFIGURED.pop(catalogs._key(tmp_path), None)


def test_settings_arguments_then_configure_then_environment(tmp_path, monkeypatch, no_catalog_env):
    pg = "postgresql://u@h/db"
    assert catalogs.settings(tmp_path) == ("", "")  # nothing set: SQLite in the data dir
    monkeypatch.setenv("QUERYWEAVE_DATABASE_URL", pg)
    assert catalogs.settings(tmp_path) == (pg, catalogs.default_kb_name(tmp_path))
    monkeypatch.setenv("QUERYWEAVE_CATALOG_URL", pg + "2")
    monkeypatch.setenv("QUERYWEAVE_KB_NAME", "team")
    assert catalogs.settings(tmp_path) == (pg + "2", "team")  # catalog_url wins over database_url
    catalogs.configure(tmp_path, "", "")
    assert catalogs.settings(tmp_path) == ("", "")  # what this process configured wins over the environment
    assert catalogs.settings(tmp_path, pg, "mine") == (pg, "mine")  # and explicit arguments over both
    assert catalogs.settings(tmp_path, pg) == (pg, catalogs.default_kb_name(tmp_path))
    with pytest.raises(ValueError, match="PostgreSQL URL"):
        catalogs.settings(tmp_path, "sqlite:///x.db")


def test_context_catalog_database_falls_back_to_database_url():
    assert Context(catalog_url="", database_url="").catalog_database == ""
    assert Context(catalog_url="", database_url="postgresql://a/b").catalog_database == "postgresql://a/b"
    assert Context(catalog_url="postgresql://c/d", database_url="postgresql://a/b").catalog_database == "postgresql://c/d"


def test_sqlite_without_url_and_has_catalog(tmp_path, no_catalog_env):
    assert not catalogs.has_catalog(tmp_path)
    cat = catalogs.open_catalog(tmp_path)
    assert isinstance(cat, Catalog) and (tmp_path / "catalog.sqlite").exists()
    cat.close()
    assert catalogs.has_catalog(tmp_path)
    assert not catalogs.has_catalog(tmp_path / "other", "postgresql://nobody@127.0.0.1:1/none")  # unreachable: False


def _doc(cat, source: str, title: str, headings: list[str | None]) -> None:
    chunks = [ChunkRecord(f"{source}#{i}", source, i, f"text {i} of {title}", h) for i, h in enumerate(headings)]
    cat.replace_document(source, "fp", title, {"title": title}, chunks)


def test_sqlite_headings_first_chunks_and_literal_prefixes(tmp_path: Path):
    cat = Catalog(tmp_path / "catalog.sqlite")
    _doc(cat, "b/two.md", "Two", ["Z", None, "A"])
    _doc(cat, "a_b/one.md", "One", ["A", "M"])
    _doc(cat, "axb/three.md", "Three", [])
    _doc(cat, "Docs/four.md", "Four", ["Z"])
    assert cat.headings() == ["Z", "A", "M"]  # first chunk (source, position) of each: Docs/, a_b/, b/ ...
    assert cat.first_chunk_texts() == [("Four", "text 0 of Four"), ("One", "text 0 of One"),
                                       ("Three", None), ("Two", "text 0 of Two")]
    assert cat.sources("a_b/") == ["a_b/one.md"]  # `_` is not a wildcard
    assert cat.sources("docs/") == [] and cat.sources("Docs/") == ["Docs/four.md"]  # case counts
    assert len(cat.sources()) == 4
    assert cat.describe() == {"path": str(tmp_path / "catalog.sqlite")}
