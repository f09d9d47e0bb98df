"""Chunking: heading paths, paragraph and sentence boundaries in Chinese and English, overlap."""

from __future__ import annotations

from queryweave.tools.ingest.chunking import Chunk, chunk_text, headings

ZH_SENTENCES = [f"第{i}步是检查连接池的最大连接数配置" for i in range(30)]
EN_SENTENCES = [f"Step {i} checks the pool size setting." for i in range(30)]


def test_short_document_is_one_chunk():
    text = "# Gradle\n\nGradle caches task outputs.\n\n## Linux\n\nInstall with sdkman."
    chunks = chunk_text(text, max_chars=800)
    assert chunks == [Chunk(text=text, heading="Gradle", index=0)]
    assert chunk_text("   ") == []
    assert chunk_text("no headings here")[0].heading is None
    assert chunk_text("# Title\n## First part\n\nBody.")[0].heading == "Title"


def test_chinese_splits_on_chinese_punctuation_within_limit():
    text = "。".join(ZH_SENTENCES) + "。"
    chunks = chunk_text(text, max_chars=120, overlap=0)
    assert len(chunks) > 3
    assert all(len(c.text) <= 120 for c in chunks)
    assert all(c.text.endswith("。") for c in chunks)  # every cut falls after a full stop
    assert "".join(c.text for c in chunks) == text  # no overlap: the pieces rebuild the text
    assert [c.index for c in chunks] == list(range(len(chunks)))


def test_chinese_language_hint_prefers_chinese_punctuation():
    text = "！".join(ZH_SENTENCES) + "！ See also. Done."
    assert all(c.text.endswith(("！", ".")) for c in chunk_text(text, max_chars=100, overlap=0, lang="zh"))


def test_english_splits_on_sentences_with_overlap():
    text = " ".join(EN_SENTENCES)
    chunks = chunk_text(text, max_chars=150, overlap=60)
    assert len(chunks) > 3 and all(len(c.text) <= 150 for c in chunks)
    assert all(c.text.startswith("Step") and c.text.endswith(".") for c in chunks)
    for prev, nxt in zip(chunks, chunks[1:], strict=False):
        first_sentence = nxt.text.split(". ")[0] + "."
        assert first_sentence in prev.text  # the next chunk repeats the previous one's tail
    assert EN_SENTENCES[-1] in chunks[-1].text and chunks[0].text.startswith(EN_SENTENCES[0])


def test_chinese_overlap():
    text = "。".join(ZH_SENTENCES) + "。"
    chunks = chunk_text(text, max_chars=120, overlap=40)
    assert len(chunks) > 3
    for prev, nxt in zip(chunks, chunks[1:], strict=False):
        head = nxt.text.split("。")[0] + "。"
        assert head in prev.text  # the next chunk opens with a sentence from the previous one
        assert prev.text.split("。")[-2] + "。" in nxt.text


def test_paragraphs_before_sentences():
    para_a = "Alpha paragraph sentence one. Alpha sentence two."
    para_b = "Beta paragraph sentence one. Beta sentence two."
    chunks = chunk_text(f"{para_a}\n\n{para_b}", max_chars=len(para_a) + 5, overlap=0)
    assert [c.text for c in chunks] == [para_a, para_b]


def test_heading_paths_and_sections():
    body = " ".join(EN_SENTENCES[:8])
    text = (
        f"Preface text.\n\n# Install\n\n## Linux\n\n{body}\n\n## macOS\n\n{body}\n\n"
        f"```\n# not a heading\n```\n\n# Usage\n\nRun it.\n\n### Deep\n\nDeep text."
    )
    chunks = chunk_text(text, max_chars=400, overlap=0)
    by_heading = {}
    for chunk in chunks:
        by_heading.setdefault(chunk.heading, []).append(chunk.text)
    assert list(by_heading) == [None, "Install > Linux", "Install > macOS", "Usage", "Usage > Deep"]
    assert by_heading[None] == ["Preface text."]
    assert by_heading["Install > Linux"][0].startswith("# Install\n\n## Linux\n\nStep 0")
    assert "# not a heading" in by_heading["Install > macOS"][-1]
    assert by_heading["Usage > Deep"] == ["### Deep\n\nDeep text."]


def test_long_section_keeps_heading_on_first_piece_only():
    text = "## 内存泄漏排查\n\n" + "。".join(ZH_SENTENCES) + "。"
    chunks = chunk_text(text, max_chars=100, overlap=0)
    assert len(chunks) > 2 and all(c.heading == "内存泄漏排查" for c in chunks)
    assert chunks[0].text.startswith("## 内存泄漏排查\n\n第0步") and len(chunks[0].text) <= 100
    assert not any(c.text.startswith("##") for c in chunks[1:])


def test_headings_list():
    text = "# A\ntext\n## B ##\n```\n# code\n```\n   ### C\n#not heading\n"
    assert headings(text) == ["A", "B", "C"]


def test_heading_anchors_are_not_part_of_titles():
    from queryweave.tools.ingest.chunking import chunk_text, headings

    text = "# Deployment { #deploy }\n\nIntro text here.\n\n## Docker {#docker-setup}\n\nRun it in a container.\n"
    assert headings(text) == ["Deployment", "Docker"]
    assert {c.heading for c in chunk_text(text, max_chars=60)} <= {"Deployment", "Deployment > Docker"}
    assert headings("# 插件 %{#plugins}%\n\n正文。\n\n## 简介 %{#introduction}%\n") == ["插件", "简介"]  # Vue docs (zh)


def test_language_is_decided_on_prose_and_per_chunk(tmp_path):
    from queryweave.tools.ingest.loaders import iter_documents
    from queryweave.tools.ingest.pipeline import make_chunks

    code = "```python\n" + "\n".join(f"client = make_client(host='localhost', port={i})" for i in range(40)) + "\n```\n"
    zh = "# 使用客户端\n\n" + code + "\n" + "这个客户端默认连接本机，端口可以在配置文件里修改。连接失败时会自动重试三次。" * 4 + \
         "\n\n## English note\n\nThis section is for readers who do not read Chinese."
    (tmp_path / "client.md").write_text(zh, encoding="utf-8")
    doc = next(iter_documents([tmp_path]))
    assert doc.metadata["lang"] == "zh"  # its first screen is code, its prose is Chinese
    langs = {c.heading: c.metadata["lang"] for c in make_chunks(doc, max_chars=2000, overlap=0)}
    assert langs.get("使用客户端 > English note") == "en" and "zh" in langs.values()


def test_a_chunk_cut_inside_a_code_block_reopens_and_closes_it():
    code = "\n".join(f"  const value{i} = compute({i}) // 第{i}步" for i in range(40))
    text = f"## Setup\n\nIntro sentence about the setup.\n\n```js\n{code}\n```\n\nAfter the block comes prose."
    chunks = chunk_text(text, max_chars=400, overlap=50)
    assert len(chunks) > 2
    for c in chunks:
        fences = [line for line in c.text.splitlines() if line.lstrip().startswith("```")]
        assert len(fences) % 2 == 0, c.text  # every chunk reads as prose and code apart
    inner = [c for c in chunks if "value20 " in c.text][0]
    assert inner.text.startswith("```js") and inner.text.rstrip().endswith("```")
    assert chunks[-1].text.endswith("After the block comes prose.")


def test_a_block_that_shows_fences_inside_stays_one_block():
    from queryweave.tools.common.fences import fence_states

    page = ["Intro.", "````md", "```js{4}", "export default {}", "```", "````", "## After", "Text."]
    assert [open_ for _, open_ in fence_states(page)] == [None, "````", "````", "````", "````", None, None, None]
    text = "\n".join(page)
    assert headings("# Top\n\n" + text) == ["Top", "After"]
    long = "## Lines\n\nSee the example.\n\n````md\n```ts:line-numbers=2\n" + "\n".join(
        f"const line{i} = 'This is line {i}'" for i in range(2, 40)) + "\n```\n````\n\nAfter the example."
    for c in chunk_text(long, max_chars=300, overlap=0):
        states = fence_states(c.text.splitlines())
        assert states[-1][1] is None, c.text  # every chunk ends outside code


def test_no_sentence_ends_inside_a_code_span_or_a_value():
    from queryweave.tools.common.text import split_sentences

    zh = "添加 `?url` query 参数，可以确保资源始终作为单独的文件加载。下一句？"
    assert split_sentences(zh) == ["添加 `?url` query 参数，可以确保资源始终作为单独的文件加载。", "下一句？"]
    assert split_sentences("Run `a; b` first. Then go.") == ["Run `a; b` first.", "Then go."]
    assert split_sentences("Is it? Yes! It works; really.") == ["Is it?", "Yes!", "It works;", "really."]
    assert split_sentences('"Why?" He left.') == ['"Why?"', "He left."]
    assert split_sentences("能用吗?可以") == ["能用吗?", "可以"]  # an ASCII mark before Chinese still ends one


def test_no_sentence_ends_inside_a_title_or_a_short_quote_and_closing_marks_stay_with_their_sentence():
    from queryweave.tools.common.text import split_sentences

    album = "《卡拉OK.LIVE！‧台北‧我》是张雨生的第六张国语专辑。他在《CDTV×Sacas！》节目中第一次公开演唱。"
    assert split_sentences(album) == ["《卡拉OK.LIVE！‧台北‧我》是张雨生的第六张国语专辑。",
                                      "他在《CDTV×Sacas！》节目中第一次公开演唱。"]
    quote = "他说：“吾无汗马劳，徒以际会得此。”这句话是什么意思？（见《宋史》。）下一句。"
    assert split_sentences(quote) == ["他说：“吾无汗马劳，徒以际会得此。”", "这句话是什么意思？", "（见《宋史》。）", "下一句。"]
    # a quote of several long sentences is still split, each piece keeping its marks
    long = "“" + "这是一个很长的句子，" * 4 + "到此为止。" + "第二个很长的句子也在引号里面，" * 2 + "结束。”后文。"
    pieces = split_sentences(long)
    assert len(pieces) == 3 and pieces[1].endswith("结束。”") and pieces[2] == "后文。"


def test_each_chunk_of_a_long_table_keeps_its_header():
    from queryweave.tools.grounding.units import answer_units

    rows = "\n".join(f"| `opt_{i}` | Description of option number {i}, long enough to fill | `{i}` |" for i in range(30))
    text = f"# Config\n\nSome intro.\n\n| Setting | Description | Default |\n| --- | --- | --- |\n{rows}\n\nAfter it.\n"
    chunks = chunk_text(text, max_chars=800)
    inside = [c for c in chunks if "`opt_" in c.text]
    assert len(inside) >= 3
    assert all(c.text.startswith("| Setting | Description | Default |\n| --- |") for c in inside)
    last = inside[-1].text
    units = answer_units(last)
    assert any(u.startswith("opt_29") and "Default: 29" in u for u in units)  # not read under another row's cells
    assert not any("Setting | Description" in c.text for c in chunks if "`opt_" not in c.text)


def test_a_chunk_that_starts_at_the_header_gets_no_second_one():
    text = "# T\n\n" + "Intro sentence here. " * 60 + "\n\n| A | B |\n| --- | --- |\n| 1 | 2 |\n"
    chunks = chunk_text(text, max_chars=800)
    assert sum(c.text.count("| A | B |") for c in chunks) == 1
