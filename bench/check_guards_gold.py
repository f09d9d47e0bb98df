"""Gold queries of the shared sets through the SQL and Cypher guards (resource rules included).

Usage: python bench/check_guards_gold.py [SHARED_DATA_DIR]   (default ../shared/data next to the repo)
Prints pass / blocked counts per set and lists every blocked gold query with the reason; exit 1 when
any is blocked.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from queryweave.tools.cypher.guard import check_cypher
from queryweave.tools.sql.guard import check_sql

ROOT = Path(__file__).resolve().parent.parent


def _gold(path: Path, key: str) -> list[str]:
    return [json.loads(x)[key] for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def main() -> int:
    """Print the counts and the blocked queries."""
    data = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared" / "data"
    sets = [("SQL gold (text2sql/spider)", _gold(data / "text2sql" / "spider" / "questions.jsonl", "gold_sql"),
             check_sql),
            ("Cypher gold (text2cypher/movies)", _gold(data / "text2cypher" / "movies" / "questions.jsonl", "cypher"),
             check_cypher)]
    print(f"{'set':<34}{'queries':>8}{'pass':>7}{'blocked':>9}")
    blocked_any = False
    for name, queries, check in sets:
        verdicts = [(q, check(q)) for q in queries]
        blocked = [(q, v.reason) for q, v in verdicts if not v.allowed]
        blocked_any |= bool(blocked)
        print(f"{name:<34}{len(queries):>8}{len(queries) - len(blocked):>7}{len(blocked):>9}")
        for q, reason in blocked:
            print(f"  blocked: {q.replace(chr(10), ' ')[:120]}  ({reason})")
    return 1 if blocked_any else 0


if __name__ == "__main__":
    sys.exit(main())
