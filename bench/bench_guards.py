"""False blocks of the SQL and Cypher guards on every gold query of the shared sets, and attack blocks.

Usage: python bench/bench_guards.py [SHARED_DATA_DIR]   (default ../shared/data next to the repo)
Prints a table: gold queries checked / falsely blocked, attacks checked / blocked.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from queryweave.tools.cypher.guard import check_cypher
from queryweave.tools.sql.guard import check_sql

ROOT = Path(__file__).resolve().parent.parent


def _lines(path: Path) -> list[str]:
    return [x.strip() for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def main() -> int:
    """Print the table; exit 1 when any gold query is blocked or any attack allowed."""
    data = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared" / "data"
    sql_gold = [json.loads(x)["gold_sql"] for x in _lines(data / "text2sql" / "spider" / "questions.jsonl")]
    cy_gold = [json.loads(x)["cypher"] for x in _lines(data / "text2cypher" / "movies" / "questions.jsonl")]
    rows = []
    false_sql = [q for q in sql_gold if not check_sql(q).allowed]
    false_cy = [q for q in cy_gold if not check_cypher(q).allowed]
    sql_attacks = _lines(ROOT / "tests" / "data" / "sql_attacks.txt")
    cy_attacks = _lines(ROOT / "tests" / "data" / "cypher_attacks.txt")
    missed_sql = [q for q in sql_attacks if check_sql(q).allowed]
    missed_cy = [q for q in cy_attacks if check_cypher(q).allowed]
    rows.append(("SQL gold (spider)", len(sql_gold), len(false_sql), "falsely blocked"))
    rows.append(("Cypher gold (movies)", len(cy_gold), len(false_cy), "falsely blocked"))
    rows.append(("SQL attacks", len(sql_attacks), len(sql_attacks) - len(missed_sql), "blocked"))
    rows.append(("Cypher attacks", len(cy_attacks), len(cy_attacks) - len(missed_cy), "blocked"))
    print(f"{'set':<22}{'queries':>9}{'count':>8}  what")
    for name, n, k, what in rows:
        print(f"{name:<22}{n:>9}{k:>8}  {what}")
    for q in false_sql + false_cy + missed_sql + missed_cy:
        print("  !", q.replace("\n", " ")[:120])
    return 1 if (false_sql or false_cy or missed_sql or missed_cy) else 0


if __name__ == "__main__":
    sys.exit(main())
