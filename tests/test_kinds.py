"""What a question asks for (a command, a value, a name) and whether a unit states it."""

from __future__ import annotations

from queryweave.tools.common.text import tokenize
from queryweave.tools.grounding.kinds import asked_kind, attribute_field, code_name, states, states_asked


def test_the_kind_a_question_asks_for() -> None:
    assert asked_kind("What command lists the running containers?") == "code"
    assert asked_kind("What is the default max_connections?") == "value"
    assert asked_kind("PgBouncer 默认监听哪个端口？多少？") == "value"
    assert asked_kind("Which class renders Jinja2 templates?") == "name"
    assert asked_kind("这个设置叫什么？") == "name"
    assert asked_kind("Why does the build fail?") is None


def test_a_unit_writes_a_value_or_a_name() -> None:
    assert states_asked("Each pause lasts 500 ms.", "value")
    assert not states_asked("Each pause is short.", "value")
    assert states_asked("Use `AsyncClient` instead.", "name")
    assert not states_asked("Use the other client instead.", "name")


def test_a_name_or_code_the_question_holds_is_not_stated_again() -> None:
    asked = set(tokenize("Which class replaces TestClient in async tests?"))
    assert not states("The `TestClient` class is not for async tests.", "name", asked)
    assert states("The class that replaces it is `AsyncClient`.", "name", asked)
    assert not states("Set it in `db.json`.", "code", set(tokenize("What goes in db.json?")))
    assert not states("Set to `true` to enable it.", "name", set())  # a literal is no name


def test_a_heading_is_a_name_in_code_only_when_written_as_one() -> None:
    assert all(code_name(h) for h in ["ignoreDeadLinks", "server.fs.allow", "TRUSTED_HOSTS", "config.maxIpsCount"])
    assert not any(code_name(h) for h in ["Usage", "readonly", "Using Jinja2Templates", "v2.0", ""])


def test_the_attribute_field_is_found_under_the_same_heading_only() -> None:
    units = {(0, 0): "**Type:** `number`", (0, 1): "**Default:** `4096` (4 KiB)",
             (0, 2): "Assets smaller than this threshold are inlined.", (0, 3): "**Default:** `true`"}
    headings = {(0, 0): "build.assetsInlineLimit", (0, 1): "build.assetsInlineLimit",
                (0, 2): "build.assetsInlineLimit", (0, 3): "build.cssCodeSplit"}
    args = (units, 0, 2, (units[0, 2],), {(0, 2)}, headings)
    assert attribute_field("Up to what size are assets inlined by default?", *args) == 1
    assert attribute_field("Up to what size are assets inlined?", *args) is None  # no default asked for
    assert attribute_field("What type is the inline threshold?", *args) == 0  # any attribute a field line states
    other = {**headings, (0, 1): "build.cssCodeSplit"}
    assert attribute_field("What is the default inline size?", units, 0, 2, (units[0, 2],), {(0, 2)}, other) is None
