"""A table row of a Chinese props table is read as Chinese however long its type column runs in Latin letters."""

from __future__ import annotations

import numpy as np

from queryweave.tools.common.text import unit_language
from queryweave.tools.grounding.extractive import extract_answer

PROPS = ("# 开关 Switch\n\n## Props\n\n| 名称 | 类型 | 默认值 | 说明 |\n| --- | --- | --- | --- |\n"
         "| spin-props | `{ strokeWidth?: number, stroke?: string, scale?: number, radius?: number }` | `undefined` "
         "| 加载图标的属性 |\n"
         "| checked-value | `string \\| boolean \\| number` | `true` | 选中时对应的值 |\n"
         "| disabled | `boolean` | `false` | 是否禁用 |\n")


def _embed(texts: list[str]) -> np.ndarray:
    """The question first; the type-heavy row a shade closer to it than the row that answers, the rest far."""
    def vector(text: str) -> list[float]:
        cos = 0.91 if "strokeWidth" in text else 0.90 if "checked-value" in text else 0.80
        return [cos, float(np.sqrt(1 - cos * cos))]
    return np.array([[1.0, 0.0]] + [vector(t) for t in texts[1:]], dtype=np.float32)


def test_a_mixed_script_unit_is_in_its_passages_language() -> None:
    row = "spin-props | 类型: { strokeWidth?: number, stroke?: string, scale?: number } | 说明: 加载图标的属性"
    assert unit_language(row, "zh") == "zh"
    assert unit_language("Vite 使用 esbuild 预构建依赖", "zh") == "zh"
    assert unit_language("Error: Cannot find module 'vite'", "zh") == "en"  # English quoted on a Chinese page
    assert unit_language("这是中文句子", "en") == "zh"


def test_a_chinese_table_row_with_a_long_type_column_is_not_read_across_languages() -> None:
    docs = [{"chunk_id": "z", "source": "zh/switch.md", "title": "开关 Switch", "text": PROPS}]
    answer = extract_answer("开关打开时对应的值用什么来设置？", docs, max_sentences=1, embed=_embed).answer
    # read as English, the type-heavy row would be scored mostly by the embedding and win on a shade of cosine
    assert answer.startswith("checked-value")
