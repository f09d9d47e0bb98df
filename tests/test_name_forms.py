"""Names the question writes one way and the corpus another (`tools/grounding/name_forms.py`): an acronym
spelt out, a plural, a part of an identifier — none of them a reason to decline. And what is no such form
stays unknown, so questions about things the corpus never names are still declined."""

from __future__ import annotations

import pytest

from queryweave.tools.grounding.name_forms import expands, is_acronym, spelt_otherwise, written_otherwise


@pytest.mark.parametrize("acronym, text", [
    ("QoS", "## Quality of service classes\nKubernetes assigns every Pod a class."),
    ("SSR", "Server-side rendering sends finished HTML."),
    ("HMR", "Vite ships hot module replacement out of the box."),
    ("TTL", "Every key has a time to live."),
    ("JVMs", "Size the heap of the Java Virtual Machine from the container's limit."),
])
def test_an_acronym_spelt_out_is_found(acronym, text):
    assert is_acronym(acronym)
    assert expands(acronym, text)


@pytest.mark.parametrize("acronym, text", [
    ("HPA", "This shows how pods are scheduled."),       # the initials come from stopwords
    ("QoS", "Quality matters, so the service is fast."),  # the words are not consecutive
    ("SSR", "Server rendering is quick."),                # one S too few
    ("CDN", ""),
])
def test_words_that_only_happen_to_share_initials_are_no_expansion(acronym, text):
    assert not expands(acronym, text)


@pytest.mark.parametrize("name", ["Vue", "HikariCP", "max_connections", "BestEffort", "IO"])
def test_names_that_are_no_acronyms(name):
    assert not is_acronym(name)


def test_a_plural_or_the_first_part_of_an_identifier_is_the_name():
    vocabulary = {"cdns", "browser", "tcpsocket", "socket", "redisson"}
    assert spelt_otherwise("cdn", vocabulary)
    assert spelt_otherwise("tcp", vocabulary)       # "tcpsocket" = "tcp" + the corpus word "socket"
    assert not spelt_otherwise("redis", vocabulary)  # "redisson": "son" is no corpus word of four letters
    assert not spelt_otherwise("kafka", vocabulary)


def test_written_otherwise_reads_identifiers_and_expansions_of_the_passages():
    probes = "探针可以是 `httpGet`、`tcpSocket`、`exec` 或 `grpc`。"
    assert written_otherwise("TCP", set(), [probes])
    assert written_otherwise("HTTP", set(), [probes])
    assert not written_otherwise("UDP", set(), [probes])
    assert written_otherwise("QoS", set(), ["## Quality of service classes"])
    assert not written_otherwise("QoS", set(), ["## Resource classes"])
    assert not written_otherwise("Redis", {"redisson"}, ["Redisson is a Java client."])


def test_a_ui_librarys_tag_is_the_component_the_docs_name():
    from queryweave.tools.grounding.name_forms import without_prefix

    assert [without_prefix(n) for n in ["n-menu", "el-table", "n-form-item"]] == ["menu", "table", "form-item"]
    # no tag prefix: a package name, class names, an identifier ("XPath" is no path, "JUnit" no unit)
    assert [without_prefix(n) for n in ["vue-router", "XPath", "JUnit", "NButton", "max_connections"]] == [None] * 5
    vocabulary = {"menu", "form", "item", "button", "picker", "time"}
    assert all(written_otherwise(n, vocabulary, []) for n in ["n-menu", "n-form-item", "n-time-picker"])
    assert not written_otherwise("XPath", vocabulary | {"path"}, [])
    # the rest must be corpus words: a component the docs never name stays unknown
    assert not written_otherwise("n-carousel", vocabulary, [])
