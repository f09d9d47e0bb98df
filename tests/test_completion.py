"""The completion of a chosen answer (`kinds.completed`): the heading that names the option asked for, and the
section's default field for a question that asks for a default."""

from __future__ import annotations

from queryweave.tools.grounding.extractive import extract_answer

SITE_CONFIG = ("# Site Config\n\n### ignoreDeadLinks\n\n- Type: `boolean | 'localhostLinks'`\n- Default: `false`\n\n"
               "When set to `true`, VitePress will not fail builds due to dead links.\n\n"
               "When set to `'localhostLinks'`, the build will fail on dead links, but won't check `localhost` links.\n\n"
               "### lastUpdated\n\n- Type: `boolean`\n\nWhether to show the last updated time of the page.\n")


def test_a_heading_that_is_a_name_in_code_is_shown_once_before_the_sentences_under_it() -> None:
    docs = [{"chunk_id": "s", "source": "site-config.md", "title": "Site Config", "text": SITE_CONFIG}]
    answer = extract_answer("My build keeps failing on broken links. Which site config option stops dead links "
                            "from failing the build?", docs).answer
    # the sentences name VitePress and 'localhostLinks', not the option they describe
    assert answer.startswith("ignoreDeadLinks — When set to true")
    assert answer.count("ignoreDeadLinks") == 1
    # a question that asks for no name gets no heading
    plain = extract_answer("What happens to the build on dead links when it is set to true?", docs).answer
    assert "ignoreDeadLinks —" not in plain


def test_a_heading_in_words_or_one_the_question_holds_is_not_added() -> None:
    page = ("### Usage\n\nThe `createApp` function returns an app instance.\n\n### ignoreDeadLinks\n\n"
            "When set to `true`, VitePress will not fail builds due to dead links.\n")
    docs = [{"chunk_id": "u", "source": "api.md", "title": "API", "text": page}]
    assert "Usage —" not in extract_answer("Which function returns an app instance?", docs).answer
    held = extract_answer("Which value of ignoreDeadLinks stops dead links from failing builds?", docs).answer
    assert "ignoreDeadLinks —" not in held


def test_a_table_row_is_not_given_its_sections_heading() -> None:
    page = ("### UploadListProps\n\n| Name | Description | Type |\n|---|---|---|\n"
            "| onAbort | Callback when an upload is aborted | (file) => void |\n")
    docs = [{"chunk_id": "t", "source": "upload.md", "title": "Upload", "text": page}]
    answer = extract_answer("Which callback runs when an upload is aborted?", docs).answer
    assert "onAbort" in answer and "UploadListProps —" not in answer


BUILD_OPTIONS = ("# Build Options\n\n## build.assetsInlineLimit\n\n- **Type:** `number`\n- **Default:** `4096` (4 KiB)\n\n"
                 "Imported or referenced assets that are smaller than this threshold will be inlined as base64 URLs "
                 "to avoid extra http requests.\n\nSet to `0` to disable inlining altogether.\n\n"
                 "## build.cssCodeSplit\n\n- **Type:** `boolean`\n- **Default:** `true`\n\n"
                 "Enable or disable CSS code splitting.\n")


def test_a_question_for_a_default_is_shown_with_the_default_field_of_the_section() -> None:
    docs = [{"chunk_id": "b", "source": "build-options.md", "title": "Build Options", "text": BUILD_OPTIONS}]
    answer = extract_answer("Small images end up as base64 data URLs in my bundle. Up to what size (the default "
                            "threshold) are assets inlined?", docs, max_sentences=1).answer
    assert "4096" in answer and "inlined as base64" in answer
    assert "true" not in answer  # the next section's default is another setting's
    # a question that asks for no default gets no default field
    plain = extract_answer("Why are small assets inlined as base64 URLs?", docs, max_sentences=1).answer
    assert "4096" not in plain


def test_a_default_field_in_chinese_is_found_too() -> None:
    page = ("## darkModeSwitchLabel\n\n- 类型：`string`\n- 默认值：`Appearance`\n\n"
            "用于自定义深色模式开关标签，该标签仅在移动端视图中显示。\n")
    docs = [{"chunk_id": "z", "source": "zh/default-theme-config.md", "title": "默认主题配置", "text": page}]
    answer = extract_answer("移动端的深色模式开关标签，默认文字是什么？", docs, max_sentences=1).answer
    assert "Appearance" in answer


def test_a_table_row_names_its_prop_and_gets_no_neighbouring_row() -> None:
    page = ("## Props\n\n| 名称 | 类型 | 默认值 | 说明 |\n| --- | --- | --- | --- |\n"
            "| spin-props | `{ strokeWidth?: number, stroke?: string }` | `undefined` | 加载图标的属性 |\n"
            "| checked-value | `string \\| boolean` | `true` | 选中时对应的值 |\n")
    docs = [{"chunk_id": "p", "source": "zh/switch.md", "title": "开关 Switch", "text": page}]
    answer = extract_answer("开关打开时对应的值用什么来设置？", docs, max_sentences=1).answer
    # "checked-value" is the name asked for: the row above, which writes a camelCase type, is not added to it
    assert answer.startswith("checked-value") and "spin-props" not in answer


def test_a_heading_that_lists_a_flag_and_its_alias_is_a_name_in_code() -> None:
    page = ("# pnpm update\n\n## Options\n\n### --latest, -L\n\nUpdate the dependencies to their latest stable version "
            "as determined by their latest tags, across major versions.\n\n### Usage, notes\n\nRun it in a workspace "
            "root to update every project.\n")
    docs = [{"chunk_id": "u", "source": "cli-update.md", "title": "pnpm update", "text": page}]
    answer = extract_answer("Which option makes the update jump across major versions to the latest tags?", docs,
                            max_sentences=1).answer
    assert answer.startswith("--latest, -L — Update the dependencies")
    # a heading that lists words is no name
    assert "Usage, notes —" not in extract_answer("Which option updates every project of a workspace root?", docs,
                                                  max_sentences=1).answer
