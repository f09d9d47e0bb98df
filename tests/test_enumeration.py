"""A list an answer sentence opens is shown to its end: announced counts, runs of ordinals, clauses cut at a
semicolon, and "the following" with no colon."""

from __future__ import annotations

from queryweave.tools.grounding.enumeration import continuation, with_continuations
from queryweave.tools.grounding.extractive import extract_answer

TOWNSHIP = ("乡里制是中国古代农村社会基层组织体系。乡里制的特点主要有以下三点：第一，职官与长者并用。"
            "既设立行政官吏，又注意发挥地方长老作用。第二，刑禁与教化并施。对居民进行教育感化。"
            "第三，秩序制和晋升制于一体。乡里组织在唐末瓦解。")


def _doc(text: str) -> dict:
    return {"chunk_id": "c1", "source": "p.md", "title": "", "text": text}


def test_an_announced_list_is_shown_to_its_last_point() -> None:
    out = extract_answer("乡里制的特点是什么？", [_doc(TOWNSHIP)], max_sentences=1)
    assert "第一，职官与长者并用" in out.answer and "第三，秩序制和晋升制于一体" in out.answer, out.answer
    assert "刑禁与教化并施" in out.answer and "唐末瓦解" not in out.answer, out.answer


def test_a_run_of_ordinals_ends_where_no_next_one_comes() -> None:
    following = ["既设立官吏。", "第二，刑禁。", "对居民。", "第三，秩序。", "乡里组织瓦解。", "其他。"]
    assert continuation("第一，职官与长者并用。", following) == following[:4]
    assert continuation("其职能有四个方面：一是教化；二是户籍；", ["三是治安；四是荐官。", "瓦解。"]) == ["三是治安；四是荐官。"]
    # the unit holds its whole list: nothing is added
    assert continuation("其职能有两个方面：一是教化；二是户籍。", ["瓦解。"]) == []


def test_a_list_that_does_not_end_within_the_limits_adds_nothing() -> None:
    assert continuation("有以下五点：第一，甲。", ["第二，乙。", "第三，丙。", "别的。", "又一句。"]) == []
    long = ["第二，" + "长" * 700 + "。"]
    assert continuation("第一，甲。", long + ["第三，丙。"]) == []


def test_a_clause_cut_at_its_semicolon_and_the_following_without_colon_take_the_next_unit() -> None:
    assert continuation("拆分成两家公司：一家名为希尔夏；", ["另一家名为布兰德斯。", "后来。"]) == ["另一家名为布兰德斯。"]
    assert continuation("It was released in 2000; its code is public;", ["Other."]) == []  # two clauses, no list
    assert continuation("code: export default { a: 1 };", ["Other."]) == []
    assert continuation("是指三个人陷入了类似以下的状况。", ["如其中两人爱上同一个人。", "又一句。"]) == ["如其中两人爱上同一个人。"]
    assert continuation("Run the following.", ["npm install", "next"]) == ["npm install"]
    assert continuation("The default is 100.", ["Other."]) == []
    assert continuation("Try the following:", ["npm install"]) == []  # a colon's next unit is shown already


def test_continuations_stay_under_the_heading_and_are_not_repeated() -> None:
    units = {(0, 0): "两家：一家名为甲；", (0, 1): "另一家名为乙。"}
    item = (1.0, 0.5, 0, 0, ("两家：一家名为甲；",), "一家", "")
    assert with_continuations([item], units, {(0, 0): "a", (0, 1): "a"})[0][4] == ("两家：一家名为甲；", "另一家名为乙。")
    assert with_continuations([item], units, {(0, 0): "a", (0, 1): "b"})[0][4] == ("两家：一家名为甲；",)
    shown = (0.9, 0.5, 0, 1, ("另一家名为乙。",), "另一家", "")
    out = with_continuations([item, shown], units, {(0, 0): "a", (0, 1): "a"})
    assert [x[4] for x in out] == [("两家：一家名为甲；",), ("另一家名为乙。",)]


def test_code_and_a_following_thing_written_in_the_sentence_add_nothing() -> None:
    assert continuation("类型定义如下： declare function useRouteData(): { route: Route; };", ["注意：此处 API 可能还会调整。"]) == []
    assert continuation("Ex: const info = Modal.info({ title: 'Info' }); info.close();", ["config's details:"]) == []
    assert continuation("we use the following regex ([^/]+) to extract params from URLs", [". This works"]) == []
    assert continuation("The following two `run` calls are equivalent.", ["code: $ flask run --debug"]) == [
        "code: $ flask run --debug"]


def test_a_unit_that_only_restates_the_question_is_shown_with_the_next() -> None:
    text = "印度野驴是亚洲野驴亚种。印度野驴与非洲野驴有些分别。牠们的毛多呈沙色。它们栖息在荒漠。"
    out = extract_answer("印度野驴与非洲野驴的分别是什么？", [_doc(text)], max_sentences=1)
    assert "有些分别" in out.answer and "毛多呈沙色" in out.answer and "荒漠" not in out.answer, out.answer
    stated = extract_answer("印度野驴是什么？", [_doc(text)], max_sentences=1)
    assert "亚种" in stated.answer and "有些分别" not in stated.answer, stated.answer


def test_runs_end_at_their_last_point_and_counts_are_announced() -> None:
    run = ["说明。", *(f"第{n}，项。" for n in "二三四五六七八九十")]
    assert continuation("第一，甲。", run) == []  # longer than the limit: whole or not at all
    assert continuation("首先，甲。", ["其次，乙。", "最后，丙。", "别的。"]) == ["其次，乙。", "最后，丙。"]
    assert continuation("主要有以下三点。", ["第一，甲。", "第二，乙。", "第三，丙。", "别的。"]) == [
        "第一，甲。", "第二，乙。", "第三，丙。"]
    assert continuation("拆分成三家公司：一家名为甲；", ["第二家名为乙；", "第三家名为丙。", "别的。"]) == [
        "第二家名为乙；", "第三家名为丙。"]
    assert continuation("第一，下午2点开会。", ["第二，乙。", "第三，丙。", "别的。"]) == ["第二，乙。", "第三，丙。"]


def test_ordinary_sentences_announce_nothing() -> None:
    for unit in ("He won the title the following year.", "猫躲在床下面。", "儿童年龄在5岁以下。"):
        assert continuation(unit, ["Next."]) == [], unit
    assert continuation("配置如下。", ["code: a = 1"]) == ["code: a = 1"]
