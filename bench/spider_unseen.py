"""Build a Spider-layout folder of questions on the shared databases that no shared question uses.

Usage: python bench/spider_unseen.py MSPIDER_DEV_JSON OUT_DIR
MSPIDER_DEV_JSON is `dataset/mspider/dev.json` of github.com/psunlpgroup/XSemPLR (MIT; the Spider dev
questions with their CSpider Chinese wording). ../shared/data/text2sql/spider ships 19 databases but
questions on 10 of them; this writes OUT_DIR/questions.jsonl (`id`, `db_id`, `question_en`,
`question_zh`, `gold_sql`, as the shared file) for the other nine and links the shared `database/` and
`tables.json`, so `queryweave eval sql OUT_DIR --folds-by-database` scores databases nothing was chosen on.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

SPIDER = Path(__file__).resolve().parents[2] / "shared" / "data" / "text2sql" / "spider"


def unseen_rows(dev: list[dict], spider: Path = SPIDER) -> list[dict]:
    """The rows of `dev` on a database of `spider` that its questions.jsonl never names."""
    lines = (spider / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    used = {json.loads(line)["db_id"] for line in lines if line.strip()}
    present = {p.name for p in (spider / "database").iterdir() if p.is_dir()}
    return [{"id": i, "db_id": r["db_id"], "question_en": r["question"]["en"], "question_zh": r["question"]["zh"],
             "gold_sql": r["mr"]["sql"]} for i, r in enumerate(dev) if r["db_id"] in present - used]


def main(argv: list[str]) -> int:
    """Write the folder; print how many questions on which databases."""
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    rows = unseen_rows(json.loads(Path(argv[0]).read_text(encoding="utf-8")), SPIDER)
    out = Path(argv[1])
    out.mkdir(parents=True, exist_ok=True)
    with (out / "questions.jsonl").open("w", encoding="utf-8") as f:
        f.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    for name in ("database", "tables.json"):
        if not (out / name).exists():
            (out / name).symlink_to(SPIDER / name)
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["db_id"]] = counts.get(r["db_id"], 0) + 1
    print(json.dumps({"questions": len(rows), "databases": counts}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
