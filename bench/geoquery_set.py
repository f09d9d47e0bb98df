"""Build a Spider-layout folder from multilingual GeoQuery: one database nothing here was tuned on.

Usage: python bench/geoquery_set.py MGEOQUERY_SPLIT_JSON GEOGRAPHY_SQLITE OUT_DIR
MGEOQUERY_SPLIT_JSON is `dataset/mgeoquery/{train,dev,test}.json` of github.com/psunlpgroup/XSemPLR (MIT;
GeoQuery's questions with their human Chinese translations, the SQL of Finegan-Dollak et al. 2018);
GEOGRAPHY_SQLITE is `data/geography-db.added-in-2020.sqlite` of github.com/jkkummerfeld/text2sql-data
(CC BY 4.0). Writes OUT_DIR/questions.jsonl (`id`, `db_id` "geo", `question_en`, `question_zh`,
`gold_sql`) and OUT_DIR/database/geo/geo.sqlite, so `queryweave eval sql OUT_DIR --baseline` scores it.
The Chinese questions come word-segmented ("堪萨斯 州 最大 的 城市"); the spaces between Chinese
characters are removed, as a user would type them. Every question names a place in Chinese (堪萨斯 for
'kansas'): the set measures how Chinese names reach an English database's values.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

_CJK = r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]"
_SPACE = re.compile(rf"(?<={_CJK})\s+|\s+(?={_CJK})")


def unsegment(text: str) -> str:
    """`text` without the spaces that touch a Chinese character or punctuation mark."""
    return _SPACE.sub("", text.strip())


def rows_of(split: list[dict]) -> list[dict]:
    """The questions.jsonl rows of one mGeoQuery split (those with an English and a Chinese question)."""
    out = []
    for i, r in enumerate(split):
        q = r.get("question", {})
        if q.get("en") and q.get("zh") and r.get("mr", {}).get("sql"):
            out.append({"id": i, "db_id": "geo", "question_en": q["en"].strip(), "question_zh": unsegment(q["zh"]),
                        "gold_sql": r["mr"]["sql"]})
    return out


def main(argv: list[str]) -> int:
    """Write the folder; print how many questions."""
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    rows = rows_of(json.loads(Path(argv[0]).read_text(encoding="utf-8")))
    out = Path(argv[2])
    (out / "database" / "geo").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(argv[1], out / "database" / "geo" / "geo.sqlite")
    with (out / "questions.jsonl").open("w", encoding="utf-8") as f:
        f.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    print(json.dumps({"questions": len(rows)}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
