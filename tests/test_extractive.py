"""Extractive answers (the rules back-end's answerer): units, cross-language question words, code blocks."""

from __future__ import annotations

from queryweave.tools.common.text import tokenize
from queryweave.tools.grounding.extractive import answer_units, extract_answer, render
from queryweave.tools.grounding.units import sectioned_units
from queryweave.tools.understanding.glossary import cross_terms

POSTGRES = """# PostgreSQL max_connections

`max_connections` sets how many concurrent client connections a PostgreSQL server accepts. The
default is **100** (initdb may choose a lower value). Changing it requires a server restart.

## Checking usage

```sql
SHOW max_connections;
SELECT state, count(*) FROM pg_stat_activity GROUP BY state;
```
"""

HIKARI = """| Setting | Default | Meaning |
|---|---|---|
| maximumPoolSize | 10 | most connections the pool opens |
| connectionTimeout | 30000 ms | longest wait for a connection |
"""


def _doc(text: str, n: int = 1) -> dict:
    return {"chunk_id": f"c{n}", "source": f"doc{n}.md", "title": "", "text": text}


def test_code_block_is_one_unit_not_prose() -> None:
    units = answer_units(POSTGRES)
    code = [u for u in units if u.startswith("code: ")]
    assert len(code) == 1 and "SHOW max_connections;" in code[0] and "pg_stat_activity" in code[0]
    assert not any(u.startswith("SHOW") for u in units)


def test_table_rows_carry_their_header() -> None:
    units = answer_units(HIKARI)
    assert any("maximumPoolSize" in u and "Default: 10" in u for u in units)


def test_glossary_maps_both_ways() -> None:
    assert set(tokenize("default")) <= cross_terms({"默认"})
    assert "默认" in cross_terms(set(tokenize("default")))
    assert cross_terms({"postgresql"}) == set()


def test_chinese_question_finds_english_default_without_embeddings() -> None:
    # No embedding model: only the glossary can connect 默认 to "default".
    ans = extract_answer("PostgreSQL 的 max_connections 默认是多少？", [_doc(POSTGRES)], max_sentences=2)
    assert "100" in ans.answer
    assert ans.citations and ans.citations[0]["source"] == "doc1.md"


def test_sentences_are_spaced_by_script_not_by_question_language() -> None:
    # a Chinese question answered from English sentences: "[1] The", not "[1]The"
    docs = [_doc("PostgreSQL max_connections is the connection limit of a server."),
            _doc("The default max_connections of PostgreSQL is 100, set in postgresql.conf.", 2)]
    ans = extract_answer("PostgreSQL 的 max_connections 默认是多少？", docs, max_sentences=2)
    assert len(ans.sentences) == 2 and "] The default" in ans.answer and "]The" not in ans.answer
    zh = {"chunk_id": "z", "source": "z.md", "title": "",
          "text": "长城是中国古代的防御工程，全长约8851.8千米。长城于1987年被列入世界文化遗产名录，是中国古代的工程。"}
    ans = extract_answer("中国古代的长城工程？", [zh], max_sentences=2)
    assert len(ans.sentences) == 2 and "千米。[1]长城" in ans.answer and ans.answer.endswith("工程。[1]")


def test_a_unit_that_leans_on_the_sentence_before_is_shown_with_it() -> None:
    # "The default is **100**" names neither max_connections nor PostgreSQL: the sentence before does.
    ans = extract_answer("What is the default max_connections in PostgreSQL?", [_doc(POSTGRES)], max_sentences=1)
    assert "accepts. The default is 100" in ans.answer  # both sentences, emphasis marks removed
    assert "**" not in ans.answer and "`" not in ans.answer


def test_rendered_units_are_clean_text() -> None:
    assert render("maximumPoolSize | Default: 10 | Meaning: most connections") == (
        "maximumPoolSize — Default: 10; Meaning: most connections")
    assert render('See <font color="red">the</font> [docs](https://x.org/a?b=1) for **more**.') == (
        "See the docs (https://x.org/a?b=1) for more.")
    assert render("code: docker run -p 8080:80 app") == "`docker run -p 8080:80 app`"


def test_value_question_prefers_the_unit_with_a_value() -> None:
    ans = extract_answer("What is the default max_connections?", [_doc(POSTGRES)], max_sentences=1)
    assert "100" in ans.answer


def test_code_answers_only_questions_that_ask_for_commands() -> None:
    plain = extract_answer("What does max_connections set?", [_doc(POSTGRES)], max_sentences=1)
    assert "pg_stat_activity" not in plain.answer
    how = extract_answer("Which command shows max_connections and pg_stat_activity usage?",
                         [_doc(POSTGRES)], max_sentences=1)
    assert "`SHOW max_connections;" in how.answer


def test_a_sentence_that_continues_the_one_before_keeps_its_subject():
    # "The default is 100" only says "default"; its subject (max_connections) is in the sentence before it.
    text = ("`max_connections` sets how many concurrent client connections a PostgreSQL server accepts. The "
            "default is **100** (initdb may choose a lower value). Some slots are held back: "
            "`superuser_reserved_connections` (default 3) keeps connections free, so roles can open at most "
            "`max_connections - 3` with the defaults.")
    out = extract_answer("What is the default max_connections in PostgreSQL?",
                         [{"chunk_id": "c1", "source": "pg.md", "text": text}], max_sentences=2)
    assert "default is 100" in out.answer and "**" not in out.answer, out.answer


PASSIFLORA = ("大果西番莲（学名：Passiflora quadrangularis）是西番莲属的植物中，果实最大的一种。它是分布于热带美洲的一种"
              "多年生植物。其叶柄有四到六个腺体。它的根部可用来当作催吐剂与麻醉药品。大果西番莲有时候会在温室中种植。")


def test_a_pages_title_counts_for_every_sentence_of_it() -> None:
    """Sentences that speak of the page's subject as 它 / 其 answer questions that name it."""
    doc = {"chunk_id": "p", "source": "p.md", "title": "大果西番莲", "text": PASSIFLORA}
    for question, fact in (("大果西番莲的根部有什么作用？", "催吐剂"), ("大果西番莲的叶柄有什么特点？", "腺体")):
        assert fact in extract_answer(question, [doc], max_sentences=2).answer
        assert fact not in extract_answer(question, [doc], max_sentences=2, topic_terms=False).answer


def test_the_title_does_not_make_another_page_answer() -> None:
    other = {"chunk_id": "o", "source": "o.md", "title": "温室种植", "text": "温室可以延长植物的生长季节。"}
    doc = {"chunk_id": "p", "source": "p.md", "title": "大果西番莲", "text": PASSIFLORA}
    out = extract_answer("大果西番莲的根部有什么作用？", [other, doc], max_sentences=2)
    assert [c["source"] for c in out.citations] == ["p.md"]


def test_a_table_cell_with_code_in_its_text_keeps_the_span_whole() -> None:
    table = ("| Setting | Default |\n|---|---|\n| `minimumIdle` | same as `maximumPoolSize` |\n"
             "| `idleTimeout` | `600000` |\n")
    shown = [render(u) for u in answer_units(table)]
    assert "minimumIdle — Default: same as maximumPoolSize" in shown
    assert "idleTimeout — Default: 600000" in shown
    assert not any("`" in s for s in shown)


CORS_ARGS = """The following arguments are supported:

* `allow_credentials` - Indicate that cookies should be supported for cross-origin requests. Defaults to `False`.
* `expose_headers` - Indicate any response headers that should be made accessible to the browser. Defaults to `[]`.
* `max_age` - Sets a maximum time in seconds for browsers to cache CORS responses. Defaults to `600`.
"""


def test_a_short_list_item_is_one_unit_so_its_value_stays_with_its_name() -> None:
    units = answer_units(CORS_ARGS)
    assert any(u.startswith("`max_age`") and u.endswith("Defaults to `600`.") for u in units)
    ans = extract_answer("If I don't set max_age, how long will browsers cache the preflight response?",
                         [_doc(CORS_ARGS)], max_sentences=1)
    assert "600" in ans.answer and "max_age" in ans.answer


def test_a_long_list_item_is_still_cut_into_sentences() -> None:
    long_item = "* " + " ".join(f"Sentence number {i} says something long enough about pools." for i in range(8))
    assert len(answer_units(long_item)) == 8


def test_a_question_for_a_name_in_code_prefers_the_unit_that_writes_one() -> None:
    text = ("To render templates you pass the request and a context dictionary to the template engine. "
            "Create a `Jinja2Templates` object pointing at the templates directory to render templates.")
    ans = extract_answer("Which class do I use to render templates?", [_doc(text)], max_sentences=1)
    assert "Jinja2Templates" in ans.answer
    # the same sentences, asked for no name in code: the plainer sentence may win, the boost is what differs
    from queryweave.tools.grounding.kinds import ASKS_IDENTIFIER as _ASKS_IDENTIFIER
    assert _ASKS_IDENTIFIER.search("哪个函数可以把模型转成 dict？")
    assert not _ASKS_IDENTIFIER.search("Which company created Kotlin?")


def test_words_the_glossary_lacks_cross_languages_through_the_dictionary() -> None:
    from queryweave.tools.understanding.glossary import _PAIRS, dictionary_terms

    assert "函数" not in _PAIRS and "function" in cross_terms({"函数"})
    assert "客户端" in cross_terms({"client"})
    assert cross_terms({"默认"}) == cross_terms({"默认"}) and "default" in cross_terms({"默认"})  # glossary first
    assert not dictionary_terms("qwzx")  # an unknown word has no translation


def test_an_english_question_finds_the_chinese_sentence_by_dictionary_words(monkeypatch) -> None:
    zh = "# 安全\n\n比较两种认证方式。\n\n密码校验应使用常量时间的函数。"
    question = "Which function checks the password?"
    ans = extract_answer(question, [_doc(zh)], max_sentences=1)
    assert "常量时间的函数" in ans.answer  # 函数 = function, 密码 = password, 校验 = check: the dictionary's
    monkeypatch.setattr("queryweave.tools.understanding.glossary.dictionary_terms", lambda t: frozenset())
    assert "常量时间的函数" not in extract_answer(question, [_doc(zh)], max_sentences=1).answer


def test_a_unit_and_its_translation_are_not_both_shown(monkeypatch) -> None:
    en = ("* `max_age` - Sets a maximum time in seconds for caching responses. Defaults to `600`.\n"
          "* `max_entries` - Sets the maximum number of cached responses. Defaults to `100`.\n")
    zh = "* `max_age` - 设定缓存响应的最长时间，单位是秒。默认为 `600`。\n"
    question = "What is the default max_age in seconds?"
    ans = extract_answer(question, [_doc(en, 1), _doc(zh, 2)], max_sentences=2)
    assert "600" in ans.answer and "默认为" not in ans.answer  # the same fact once, in the question's language
    monkeypatch.setattr("queryweave.tools.grounding.extractive.is_translation", lambda a, b: False)
    assert "默认为" in extract_answer(question, [_doc(en, 1), _doc(zh, 2)], max_sentences=2).answer


def test_sentences_that_share_names_but_not_numbers_are_no_translation() -> None:
    from queryweave.tools.grounding.extractive import is_translation

    assert is_translation(("从 JDK 9 开始默认垃圾回收器是 G1。",), ("G1 is the default collector since JDK 9.",))
    assert not is_translation(("JDK 11 起 G1 更快。",), ("G1 is the default collector since JDK 9.",))
    assert not is_translation(("G1 is the default.",), ("G1 is the default collector since JDK 9.",))  # one language


def test_italics_are_rendered_as_plain_text_and_arithmetic_is_not() -> None:
    assert render("FastAPI 为每个*路径操作*使用一个唯一 ID") == "FastAPI 为每个路径操作使用一个唯一 ID"
    assert render("Use the *path operation* decorator") == "Use the path operation decorator"
    assert render("compute 2*3*4 or a * b") == "compute 2*3*4 or a * b"


def test_markup_inside_code_spans_is_kept_and_bare_tags_are_no_units() -> None:
    assert render("Pass these props to `<TransitionGroup>`: <b>tag</b>") == "Pass these props to <TransitionGroup>: tag"
    assert render("Use the preset: <!-- prettier-ignore --> below.") == "Use the preset: below."
    assert render("See [`createRouter`](./api.md).") == "See createRouter."
    docs = [{"chunk_id": "a", "source": "a.md", "title": "Links",
             "text": "<HomeSponsors />\n\nThe RouterLink component renders an anchor tag by default."}]
    ext = extract_answer("What does the RouterLink component render by default?", docs)
    assert "anchor tag" in ext.answer and not ext.answer.startswith(("[", " ["))


def test_an_answer_that_names_nothing_asked_for_is_shown_with_the_neighbour_that_does() -> None:
    text = ("FastAPI uses a unique ID for each path operation, for operation IDs and for model names. "
            "You can customize this function. "
            "Then pass the custom function to FastAPI with the `generate_unique_id_function` parameter.")
    docs = [{"chunk_id": "a", "source": "a.md", "title": "Generate clients", "text": text}]
    q = "Which FastAPI parameter customizes the unique ID of each path operation?"
    ext = extract_answer(q, docs, max_sentences=1)
    assert "generate_unique_id_function" in ext.answer
    assert ext.answer.index("unique ID for each") < ext.answer.index("generate_unique_id_function")
    # a question that asks for no name gets no neighbour
    plain = extract_answer("What is the unique ID of each path operation used for?", docs, max_sentences=1)
    assert "generate_unique_id_function" not in plain.answer
    # nor one whose chosen sentence already names something new
    named = [{"chunk_id": "b", "source": "b.md", "title": "Guards",
              "text": "The `beforeEach` guard runs on every navigation. It is registered on the router."}]
    assert "registered" not in extract_answer("Which guard runs on every navigation?", named, max_sentences=1).answer


def test_a_fenced_block_shown_inside_a_longer_fence_is_one_code_unit() -> None:
    text = "Add the marker after the language:\n\n````md\n```ts:line-numbers=2\nconst line2 = 'x'\n```\n````\n\nThat is all."
    units = answer_units(text)
    assert units[0] == "Add the marker after the language:" and units[-1] == "That is all."
    assert len(units) == 3 and units[1].startswith("code: ```ts:line-numbers=2")



def test_images_are_no_text():
    assert render("Stable: [![npm package](https://img.shields.io/npm/v/x.svg)](https://npmjs.org/x)") == "Stable:"
    assert render("See ![logo](logo.png) the guide.") == "See the guide."
    assert render("Read [the guide](https://x.dev/guide).") == "Read the guide (https://x.dev/guide)."


def test_a_name_asked_for_is_shown_from_the_heading_the_sentence_stands_under() -> None:
    page = ("# Cache\n\n### readonly\n\nWhen enabled, the cache will only be read from disk and never written to, "
            "which is useful for CI environments where you want to use a pre-warmed cache.\n\n### version\n\n"
            "Cache version. Different versions of caches are isolated from each other.\n")
    docs = [{"chunk_id": "c", "source": "cache.md", "title": "Cache", "text": page}]
    answer = extract_answer("On CI I want to reuse a pre-warmed cache and never write to it. Which cache setting "
                            "does that?", docs).answer
    assert answer.startswith("readonly — When enabled")
    # a short unit leans only on a sentence under its own heading: "Cache version." does not borrow it
    assert "Cache version" not in answer
    # no name asked for: no heading is added
    plain = extract_answer("What happens to a pre-warmed cache on CI when it is only read?", docs).answer
    assert "readonly —" not in plain


def test_the_question_language_goes_first_when_the_passages_speak_it() -> None:
    zh = "## extensionAlias\n\nRspack 在解析 import './foo.js' 时，会依次尝试解析 './foo.ts' 和 './foo.js'。\n"
    en = ("## extensionAlias\n\nWith extensionAlias, Rspack resolving import './foo.js' tries './foo.ts' and then "
          "'./foo.js'.\n")
    docs = [{"chunk_id": "z", "source": "zh/resolve.md", "title": "Resolve", "text": zh},
            {"chunk_id": "e", "source": "en/resolve.md", "title": "Resolve", "text": en}]
    answer = extract_answer("How does Rspack resolve import './foo.js' when only './foo.ts' exists?", docs,
                            max_sentences=1).answer
    assert answer.startswith("With extensionAlias, Rspack")
    # only the other language holds anything: it is still the answer
    assert extract_answer("How does Rspack resolve import './foo.js'?", docs[:1]).answer.startswith("Rspack 在解析")


_ENOSPC = ("## ENOSPC Error (Linux)\n\nSometimes when running the command `$ hexo server` it returns an error:\n\n"
           "```\nError: watch ENOSPC ...\n```\n\nIt can be fixed by running `$ npm dedupe` or, if that doesn't help, "
           "try the following in the Linux console:\n\n```\n$ echo fs.inotify.max_user_watches=524288 | sudo tee -a "
           "/etc/sysctl.conf\n```\n\nThis will increase the limit.")


def test_a_neighbour_added_for_the_name_asked_brings_the_command_its_colon_introduces():
    answer = extract_answer("`hexo server` dies with 'Error: watch ENOSPC'. Which kernel parameter does the fix increase?",
                            [{"chunk_id": "a", "source": "t.md", "title": "Troubleshooting", "text": _ENOSPC}]).answer
    assert "try the following in the Linux console" in answer and "fs.inotify.max_user_watches" in answer


def test_a_unit_ending_in_a_colon_at_a_passage_end_borrows_what_follows_from_an_overlapping_passage():
    from queryweave.tools.grounding.extractive import _continuations

    cut = [("Run the following:", "Build")]
    whole = [("Run the following:", "Build"), ("code: npm run build", "Build"), ("It writes dist/.", "Build")]
    assert _continuations([cut, whole], ["build.md", "build.md"]) == {("build.md", "Run the following:"): "code: npm run build"}
    assert _continuations([cut], ["build.md"]) == {}
    # another page that says "Run the following:" lends nothing to this one
    assert ("build.md", "Run the following:") not in _continuations([cut, whole], ["build.md", "deploy.md"])


def test_a_code_line_writing_the_setting_asked_about_is_no_noise() -> None:
    page = ("# Troubleshooting\n\n## Dev server crashes with ENOSPC\n\nLinux has a default limit of around 8,192 file "
            "watchers, and a large project can exceed it.\n\nIncrease the system file watcher limit:\n\n```shell\n"
            "$ sudo sysctl fs.inotify.max_user_watches=524288\n```\n\nThe watcher then sees every file of the project.\n")
    docs = [{"chunk_id": "t", "source": "guide/troubleshooting.md", "title": "Troubleshooting", "text": page}]
    asked = extract_answer("What value do the docs suggest for fs.inotify.max_user_watches?", docs).answer
    assert "524288" in asked, asked
    assert asked.count("sudo sysctl") == 1, asked  # shown once, not again after the colon that introduces it
    # a question naming no setting still prefers words to a bare code line
    plain = extract_answer("Why does the dev server crash on Linux with too many files?", docs).answer
    assert plain.startswith("Linux has a default limit of around 8,192"), plain


def test_a_code_line_writing_the_setting_asked_about_answers_a_value_question() -> None:
    page = ("# Troubleshooting\n\nLinux allows around 8,192 watched files per user by default, and a large project "
            "can exceed that value.\n\n```shell\n$ sudo sysctl fs.inotify.max_user_watches=524288\n```\n\nRestart the dev server "
            "afterwards.\n")
    docs = [{"chunk_id": "t", "source": "guide/troubleshooting.md", "title": "Troubleshooting", "text": page}]
    question = "Which value should fs.inotify.max_user_watches be raised to for a large project?"
    asked = extract_answer(question, docs, max_sentences=1)  # the best unit alone
    assert "524288" in asked.answer, asked.answer


def test_a_code_line_is_no_translation_of_the_sentence_that_explains_it() -> None:
    from queryweave.tools.grounding.extractive import is_translation

    code = ("code: org.gradle.parallel=true org.gradle.caching=true",)
    prose = ("`org.gradle.caching` 打开构建缓存，`org.gradle.parallel` 打开并行构建。",)
    assert not is_translation(code, prose) and not is_translation(prose, code)
    doc = {"chunk_id": "c1", "source": "gradle.md", "title": "Faster Gradle builds",
           "text": "# Faster Gradle builds\n\n```properties\norg.gradle.parallel=true\norg.gradle.caching=true\n```\n\n"
                   "`org.gradle.caching` 打开构建缓存，`org.gradle.parallel` 打开并行构建。\n"}
    ans = extract_answer("Show the code that turns on org.gradle.caching and org.gradle.parallel.", [doc],
                         max_sentences=2)
    assert "org.gradle.caching=true" in ans.answer and "打开构建缓存" in ans.answer  # both: neither dropped


ROOM = """# Android Room 与 SQLite

Room 是 Android Jetpack 中的持久化库，它是对 SQLite 的一层抽象。

## 三个核心组件

- `@Entity`：数据表对应的实体类；
- `@Dao`：数据访问接口，在方法上用注解声明 SQL；
- `@Database`：数据库类，列出实体和版本号。

## 日志模式

Room 默认的日志模式是 `JournalMode.AUTOMATIC`。WAL 的原理见《SQLite write-ahead logging》。
"""


def test_the_heading_a_unit_stands_under_counts_for_ranking() -> None:
    # the items under "## 三个核心组件" do not repeat "核心组件": only their heading says what they are
    question = "Room 有哪几个核心组件？"
    docs = [{"chunk_id": "c1", "source": "room.md", "title": "Android Room 与 SQLite", "text": ROOM}]
    plain = extract_answer(question, docs, max_sentences=2)
    headed = extract_answer(question, docs, max_sentences=2, heading_terms=True)
    assert "@Entity" in headed.answer and "@Dao" in headed.answer
    assert "@Entity" not in plain.answer
    # the confidence's margin is read without the heading's terms: an item only its heading sets apart is
    # not taken for far ahead of the page's other units (with them it would lead by most of its score)
    one = ROOM.replace("- `@Dao`：数据访问接口，在方法上用注解声明 SQL；\n- `@Database`：数据库类，列出实体和版本号。\n", "")
    single = extract_answer(question, [docs[0] | {"text": one}], max_sentences=2, heading_terms=True)
    assert "@Entity" in single.answer and "@Dao" not in single.answer
    assert single.margin is not None and single.margin < 0.2


def test_link_and_comment_syntax_inside_a_code_span_is_code() -> None:
    assert render("Write `@[code{1-10}](../foo.js)` in the page.") == "Write @[code{1-10}](../foo.js) in the page."
    assert render("Keep `<!-- more -->` as the excerpt marker.") == "Keep <!-- more --> as the excerpt marker."
    assert render("See [`createRouter`](./api.md) and [the guide](./g.md).") == "See createRouter and the guide."


def test_a_short_code_block_after_a_label_line_is_shown_as_code() -> None:
    page = ("## 导入代码块\n\n如果你只想导入这个文件的一部分：\n\n```md\n<!-- 仅导入第 1 行至第 10 行 -->\n\n"
            "@[code{1-10}](../foo.js)\n```\n")
    [(unit, _where)] = sectioned_units(page)
    assert unit.startswith("如果你只想导入这个文件的一部分：")
    assert render(unit) == "如果你只想导入这个文件的一部分： <!-- 仅导入第 1 行至第 10 行 --> @[code{1-10}](../foo.js)"


def test_a_bold_mark_left_alone_by_a_cut_is_dropped_and_arithmetic_is_not() -> None:
    assert render("可以用 JSON 序列化 state，**这样你可以把性能提高很多。") == "可以用 JSON 序列化 state，这样你可以把性能提高很多。"
    assert render("**Note: calling cancel does not stop the request") == "Note: calling cancel does not stop the request"
    assert render("waits 1000 * 2 ** retryCount ms") == "waits 1000 * 2 ** retryCount ms"
    assert render("a **bold** word") == "a bold word"
