"""Extractive answers that need the unit beside them: a consequence shown after its cause, a command asked for
shown although the sentence repeats the question's own code."""

from __future__ import annotations

from queryweave.tools.grounding.antecedent import opens_on_before, restates, with_antecedents
from queryweave.tools.grounding.extractive import extract_answer

MEADOW = ("玉山箭竹的地下茎在每年四、五月间萌发新芽，箭竹笋由地表发育延伸为竹，老的竹干此时也展露新叶。"
          "所以到了七、八月间，整个玉山箭竹草原呈现一片「碧草如茵」的景致。草原上还有许多高山花卉。")

CLEAN = """## clean

```bash
$ hexo clean
```

Cleans the cache file (`db.json`) and generated files (`public`).

## list

Lists all routes.
"""


def _doc(text: str) -> dict:
    return {"chunk_id": "c1", "source": "p.md", "title": "", "text": text}


def test_a_consequence_is_shown_after_its_cause() -> None:
    out = extract_answer("「碧草如茵」景致形成的原因是什么？", [_doc(MEADOW)], max_sentences=1)
    assert "萌发新芽" in out.answer and "碧草如茵" in out.answer, out.answer
    assert out.answer.index("萌发新芽") < out.answer.index("碧草如茵")


def test_a_sentence_that_opens_on_its_own_gets_nothing_added() -> None:
    out = extract_answer("草原上还有什么？", [_doc(MEADOW)], max_sentences=1)
    assert "萌发新芽" not in out.answer and "高山花卉" in out.answer, out.answer


def test_pointing_back_counts_only_when_a_reason_is_asked() -> None:
    assert opens_on_before("因此，次磷酸被列为易制毒化学品。", "次磷酸受什么管制？")
    assert opens_on_before("As a result, the build fails.", "What happens?")
    assert opens_on_before("This keeps the cache warm.", "Why is the cache warm?")
    assert not opens_on_before("This keeps the cache warm during deploys of large sites.", "What keeps the cache warm?")
    # a sentence that only restates the question and points back: its answer is the sentence before
    assert opens_on_before("This keeps the cache warm.", "What keeps the cache warm?")
    assert not opens_on_before("所有的竹子都会开花。", "为什么竹子会开花？")


def test_the_unit_before_must_stand_under_the_same_heading_and_not_be_shown() -> None:
    units = {(0, 0): "Cause here.", (0, 1): "Therefore it fails."}
    item = (1.0, 0.5, 0, 1, ("Therefore it fails.",), "Therefore", "")
    same = with_antecedents([item], units, {(0, 0): "a", (0, 1): "a"}, "What fails?")
    assert same[0][4] == ("Cause here.", "Therefore it fails.")
    other = with_antecedents([item], units, {(0, 0): "a", (0, 1): "b"}, "What fails?")
    assert other[0][4] == ("Therefore it fails.",)
    cause = (1.0, 0.5, 0, 0, ("Cause here.",), "Cause", "")
    both = with_antecedents([cause, item], units, {(0, 0): "a", (0, 1): "a"}, "What fails?")
    assert [x[4] for x in both] == [("Cause here.",), ("Therefore it fails.",)]


def test_a_command_question_gets_the_command_when_the_sentence_only_repeats_its_code() -> None:
    out = extract_answer("Which command deletes db.json and the generated public folder?", [_doc(CLEAN)],
                         max_sentences=1)
    assert "hexo clean" in out.answer and "Cleans the cache" in out.answer, out.answer


def test_a_unit_that_restates_the_question_and_points_back_gets_the_one_before() -> None:
    assert restates("这次事件在动物学中是一次突破性的发现。", "1995年12月，在动物学中的一次突破性发现是什么？")
    assert restates("印度野驴与非洲野驴有些分别。", "印度野驴与非洲野驴的分别是什么？")
    assert not restates("The default page size is 4096.", "What is the default page size?")  # a number is new
    assert not restates("两个命令的作用是相同的。", "这两个命令效果有区别吗？")
    assert opens_on_before("这次事件在动物学中是一次突破性的发现。", "在动物学中的一次突破性发现是什么？")
    text = "1995年12月，生物学家找到一种新品种的生物：环口动物门。这次事件在动物学中是一次突破性的发现。"
    out = extract_answer("1995年12月，在动物学中的一次突破性发现是什么？", [_doc(text)], max_sentences=1)
    assert "环口动物门" in out.answer, out.answer


def test_a_row_or_a_name_the_question_lacks_is_no_restatement() -> None:
    question = "我们的产品面向香港用户，要用繁体中文的语言包，antd/locale 下对应的文件名是什么？"
    assert not restates("繁体中文（中国香港） | 文件名: zh_HK", question)
    assert not restates("繁体中文（中国香港）的文件名是 zh_HK。", question)
    assert restates("繁体中文的语言包在 antd/locale 下。", question)


def test_a_consequence_shown_with_the_unit_after_it_still_gets_its_cause() -> None:
    # the consequence is chosen alone, then shown with the unit after it (which leans on it): the item now
    # stands at that next unit, and the cause before its first piece is still shown
    units = {(0, 0): "1791年，一宗投机案让许多市民遭到财产损失。",
             (0, 1): "在此背景下，各家经纪商决定协商制定公共管理条例。",
             (0, 2): "1817年，交易者联盟草拟出管理处条例。"}
    headings = dict.fromkeys(units, "")
    item = (1.0, 1.0, 0, 2, (units[0, 1], units[0, 2]), units[0, 2][:60], units[0, 1][:60])
    out = with_antecedents([item], units, headings, "决定协商制定公共管理条例的背景是什么？")
    assert out[0][4] == (units[0, 0], units[0, 1], units[0, 2])
