"""How often the result shape read from a question (`tools.sql.shape`) fits the gold result.

Usage: python bench/check_sql_shapes.py [--data DIR] [--show N]
(DIR defaults to ../shared/data/text2sql/spider next to the repo.) No model: each question's shape
is checked against the rows its gold query returns, per language and kind, and the misses are
split into gold queries that return nothing and shapes read wrongly (the first N of each shown).
"""

from __future__ import annotations

import argparse
import json
import sqlite3
from collections import Counter, defaultdict
from pathlib import Path

from queryweave.tools.sql.shape import question_shape

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "text2sql" / "spider"))
    ap.add_argument("--show", type=int, default=3)
    args = ap.parse_args()
    data = Path(args.data)
    rows = [json.loads(line) for line in (data / "questions.jsonl").read_text(encoding="utf-8").splitlines()]
    fits: Counter = Counter()
    misses: dict[tuple[str, str], list] = defaultdict(list)
    for r in rows:
        con = sqlite3.connect(f"file:{data / 'database' / r['db_id'] / (r['db_id'] + '.sqlite')}?mode=ro", uri=True)
        gold = con.execute(r["gold_sql"]).fetchall()
        con.close()
        for lang in ("en", "zh"):
            q = r.get(f"question_{lang}")
            if not q:
                continue
            shape = question_shape(q, lang)
            ok = shape.fits(gold)
            fits[lang, shape.kind, ok] += 1
            if not ok:
                misses[lang, "gold empty" if not gold else "read wrongly"].append((shape.kind, q, len(gold)))
    for lang in ("en", "zh"):
        total = sum(v for (lg, _, _), v in fits.items() if lg == lang)
        good = sum(v for (lg, _, ok), v in fits.items() if lg == lang and ok)
        kinds = {k: f"{fits[lang, k, True]}/{fits[lang, k, True] + fits[lang, k, False]}"
                 for k in ("count", "one", "top", "grouped", "rows")}
        print(f"{lang}: shape fits the gold result {good}/{total}  by kind {kinds}  misses: "
              f"gold empty {len(misses[lang, 'gold empty'])}, read wrongly {len(misses[lang, 'read wrongly'])}")
        for kind, q, n in misses[lang, "read wrongly"][: args.show]:
            print(f"   read {kind}, gold has {n} rows: {q}")


if __name__ == "__main__":
    main()
