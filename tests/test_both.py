"""Yes/no "both" questions answered by reading each thing's defining sentences (`tools/grounding/both.py`)."""

from __future__ import annotations

from queryweave.tools.grounding.both import both_verdict, parse, verdict_text

DOCS = [
    {"title": "Kestrel Lane", "text": "Kestrel Lane\n\nKestrel Lane (born 1970) is a Welsh film director and "
                                       "screenwriter. She directed four features about coastal towns."},
    {"title": "Odo Varga", "text": "Odo Varga is a Hungarian film director and producer. His first film won a "
                                    "prize in Pécs. He later taught at the film academy."},
    {"title": "Marlow Tide", "text": "Marlow Tide is a Welsh novelist and poet. Her novels are set on the coast "
                                      "of Ceredigion, and two of them were adapted for radio."},
    {"title": "风铃草", "text": "风铃草是桔梗科风铃草属的植物，原产于南欧。花呈钟形，多为蓝紫色。"},
    {"title": "薰衣草", "text": "薰衣草是唇形科的小灌木，原产于地中海沿岸。花呈紫蓝色，可提取精油。"},
]


def test_parse_the_both_forms_and_leave_same_value_questions():
    assert parse("Are Kestrel Lane and Odo Varga both film directors?") == ("Kestrel Lane", "Odo Varga",
                                                                          "film directors")
    assert parse("Are both writers, Kestrel Lane and Marlow Tide, Welsh authors?") == ("Kestrel Lane", "Marlow Tide",
                                                                                     "Welsh authors")
    assert parse("风铃草和薰衣草都是唇形科植物吗？") == ("风铃草", "薰衣草", "唇形科植物")
    assert parse("Are Kestrel Lane and Odo Varga both from the same country?") is None  # a value compared
    assert parse("What did Kestrel Lane direct?") is None


def test_yes_when_both_defining_sentences_hold_the_property_no_when_one_lacks_it():
    yes = both_verdict("Are Kestrel Lane and Odo Varga both film directors?", DOCS)
    assert yes is not None and yes.yes and [i for i, _ in yes.evidence] == [0, 1]
    assert verdict_text(yes, "Are Kestrel Lane and Odo Varga both film directors?", [1, 2]).startswith("Yes. Kestrel")
    no = both_verdict("Are Kestrel Lane and Marlow Tide both film directors?", DOCS)
    assert no is not None and not no.yes and set(no.missing) == {"film", "director"}
    welsh = both_verdict("Are Kestrel Lane and Odo Varga both Welsh directors?", DOCS)
    assert welsh is not None and not welsh.yes and welsh.missing == ["welsh"]
    zh = both_verdict("风铃草和薰衣草都是唇形科植物吗？", DOCS)
    assert zh is not None and not zh.yes
    assert verdict_text(zh, "风铃草和薰衣草都是唇形科植物吗？", [1, 2]).startswith("不是。")


def test_no_verdict_without_a_passage_for_each_thing():
    assert both_verdict("Are Kestrel Lane and Ivo Stern both film directors?", DOCS) is None
    assert both_verdict("Are Kestrel Lane and Odo Varga both film directors?", DOCS[:1]) is None


def test_the_answer_cites_each_things_passage_with_confidence_features():
    from queryweave.nodes.generate import yes_no_answer

    question = "Are Kestrel Lane and Odo Varga both film directors?"
    docs = [dict(d, chunk_id=f"c{i}", source=f"{i}.md") for i, d in enumerate(DOCS)]
    out = yes_no_answer(question, both_verdict(question, docs), docs, question)
    assert out["answer"].startswith("Yes.") and "[1]" in out["answer"] and "[2]" in out["answer"]
    assert [c["source"] for c in out["citations"]] == ["0.md", "1.md"] and not out["abstained"]
    assert out["confidence_features"]["coverage"] > 0.5 and 0 < out["confidence"] <= 1
