"""How much an example pool that may show the question's own database inflates Text-to-SQL scores.

Usage: python bench/bench_sql_pool_leak.py
No model: a "model" that copies the SQL of the nearest worked example (`tools.common.examples.nearest`)
is scored by execution on the shared Spider set. In-sample, the pool holds every other question (same
database allowed); leave-one-database-out, only the other databases' pairs. The gap is what
`queryweave eval sql --folds-by-database` keeps out of its figures.
"""

from __future__ import annotations

import sys
from pathlib import Path

from queryweave.eval.execution import orders, same_results
from queryweave.eval.spider import load_questions
from queryweave.tools.common.examples import Example, nearest
from queryweave.tools.sql.database import SqlDatabase

SPIDER = Path(__file__).resolve().parents[2] / "shared" / "data" / "text2sql" / "spider"


def main() -> int:
    """Print copy-the-nearest-example accuracy with both pools, per language."""
    rows = load_questions(SPIDER)
    dbs: dict[str, SqlDatabase] = {}
    for r in rows:
        if r["db_id"] not in dbs:
            dbs[r["db_id"]] = SqlDatabase(str(SPIDER / "database" / r["db_id"] / f"{r['db_id']}.sqlite"),
                                          max_rows=100000)
    for lang in ("en", "zh"):
        pool = [Example(r[f"question_{lang}"], r["gold_sql"], r["db_id"]) for r in rows]
        for mode in ("in-sample (own database allowed)", "leave-one-database-out"):
            ok = 0
            for i, r in enumerate(rows):
                cands = [e for j, e in enumerate(pool) if j != i and (mode.startswith("in") or e.source != r["db_id"])]
                ex = nearest(r[f"question_{lang}"], cands, 1)[0]
                gold, pred = dbs[r["db_id"]].run(r["gold_sql"]), dbs[r["db_id"]].run(ex.query)
                ok += pred.error is None and not gold.error and same_results(pred.rows, gold.rows,
                                                                               orders(r["gold_sql"]))
            print(f"{lang}  {mode:<34} {ok}/{len(rows)} = {ok / len(rows):.3f}")
    for db in dbs.values():
        db.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
