"""Option tables read as field lines: the row of the setting asked about answers "what is its default", and
the setting the user says is left unset is the one asked about (`tools/grounding/fields.py`)."""

from __future__ import annotations

from queryweave.tools.grounding.extractive import extract_answer
from queryweave.tools.grounding.fields import row_field, row_name, unset_names

OPTIONS = """## Options

| 参数 | 说明 | 类型 | 默认值 |
| --- | --- | --- | --- |
| cacheKey | 请求的唯一标识。相同 `cacheKey` 的数据全局同步（`cacheTime`、`staleTime` 参数会使该机制失效） | `string` | - |
| cacheTime | 设置缓存数据回收时间。默认缓存数据 5 分钟后回收 | `number` | `300000` |
| staleTime | 缓存数据保持新鲜时间 | `number` | `0` |
"""


def test_the_names_left_unset():
    assert unset_names("useRequest 设置了 cacheKey 但没配 cacheTime，缓存默认多久会被回收？") == {"cachetime"}
    assert unset_names("If I don't set cacheTime, after how many ms is it dropped?") == {"cachetime"}
    assert unset_names("Without passing `wait`, how long does it debounce?") == {"wait"}
    assert unset_names("我没设置 build.outDir，产物在哪？") == {"build.outdir"}
    assert unset_names("I started it without putting PORT in .env") == set()  # "putting" is no setting
    assert unset_names("What is the default cacheTime?") == set()


def test_a_row_is_a_field_of_the_setting_it_names():
    row = "cacheTime | 说明: 设置缓存数据回收时间 | 类型: `number` | 默认值: `300000`"
    assert row_name(row) == "cacheTime" and row_name("a plain sentence") is None
    assert row_field("cacheTime 默认是多少？", row)
    assert not row_field("staleTime 默认是多少？", row)  # another setting's row
    assert not row_field("cacheTime 是做什么的？", row)  # no attribute asked


def test_the_row_of_the_setting_left_unset_answers_its_default():
    doc = {"chunk_id": "c", "source": "cache.md", "title": "缓存", "text": OPTIONS}
    out = extract_answer("useRequest 设置了 cacheKey 但没配 cacheTime，缓存默认多久会被回收？", [doc], max_sentences=1)
    assert "300000" in out.answer and out.answer.startswith("cacheTime"), out.answer
    assert out.field


def test_a_row_without_a_value_for_the_attribute_is_no_field():
    assert not row_field("What is the default of cacheKey?", "cacheKey | Description: the key | Type: `string` | Default: -")
    assert row_field("What is the default of staleTime?", "staleTime | Description: fresh time | Type: `number` | Default: `0`")


def test_a_quantity_asked_needs_a_number_in_the_row():
    row = "minimumIdle | Default: same as maximumPoolSize | Meaning: idle connections kept ready"
    assert row_field("What is the default minimumIdle?", row)
    assert not row_field("超过 minimumIdle 的空闲连接默认多久会被关掉？", row)


def test_a_part_of_a_name_is_not_the_rows_name():
    row = "interval | 说明: 变化时间间隔（毫秒） | 类型: `number` | 默认值: `1000`"
    assert not row_field("I set retryCount but left retryInterval empty. What is its default?", row)
    assert row_field("What is the default interval?", row)


def test_a_code_span_with_a_pipe_makes_no_row():
    assert row_name("The `value` prop takes `string | number` and defaults to an empty string.") is None
    assert row_name("value | Type: `string | number` | Default: `''`") == "value"
