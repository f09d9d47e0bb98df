"""reStructuredText pages (Sphinx sites) are ingested as Markdown, Sphinx's own markup read as a site shows it."""

from __future__ import annotations

from queryweave.tools.grounding.extractive import answer_units, render
from queryweave.tools.ingest.loaders import iter_documents
from queryweave.tools.ingest.rst import parse_rst

PAGE = """Connection pools
================

.. currentmodule:: pool

.. toctree::
   :maxdepth: 2

   intro

The pool keeps connections open. See :func:`pool.connect` and :ref:`the tuning guide <tuning>`.

Settings
--------

.. function:: connect(url, timeout=30)

   Open a connection to *url*.

   :param timeout: seconds to wait, default ``30``

.. versionadded:: 2.1
   The ``timeout`` argument.

.. note::

   Pools are per process.

.. code-block:: python

   pool = connect("sqlite://")

=========  ========
Option     Default
=========  ========
max_size   10
idle       600
=========  ========

.. autofunction:: pool.close
"""


def test_sphinx_markup_reads_as_the_site_shows_it():
    text, meta = parse_rst(PAGE)
    assert meta["title"] == "Connection pools" and text.startswith("# Connection pools")
    assert "## Settings" in text
    assert "See `pool.connect` and the tuning guide." in text  # roles as their text, no ":func:"
    assert "# `connect(url, timeout=30)`\n\nOpen a connection to url." in text  # the signature heads its text
    assert "- **param timeout:** seconds to wait, default `30`" in text
    assert "New in version 2.1: The `timeout` argument." in text
    assert "Pools are per process." in text
    assert '```python\npool = connect("sqlite://")\n```' in text
    assert "| max_size | 10 |" in text
    assert "toctree" not in text and "maxdepth" not in text and "autofunction" not in text and "intro" not in text
    assert "max_size — Default: 10" in [render(u) for u in answer_units(text)]


def test_rst_files_are_loaded_and_a_broken_page_still_loads_its_text(tmp_path):
    (tmp_path / "pool.rst").write_text(PAGE, encoding="utf-8")
    (tmp_path / "odd.rst").write_text("Title\n===\n\n.. unknown-thing:: x\n\nStill *read*.\n\n`unclosed\n",
                                      encoding="utf-8")
    docs = {d.source: d for d in iter_documents([tmp_path])}
    assert docs["pool.rst"].metadata["content_type"] == "rst" and docs["pool.rst"].metadata["title"] == "Connection pools"
    assert "Still read." in docs["odd.rst"].text  # docutils reports what it cannot parse and goes on
