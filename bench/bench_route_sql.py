"""How often the graph's rules send a question to Text-to-SQL: database questions (Spider, English and
Chinese, each asked with its own database registered; and `bench/data/route_questions_blind.jsonl`, 12 + 12
questions per database on the nine shared Spider databases that have none, written blind by a helper
that saw only the data) and documentation questions (the sample answer
sets and the docs-site answer sets of `bench/data`, asked with each of the same databases registered,
where SQL is the wrong route).

Usage: python bench/bench_route_sql.py [SPIDER_DIR] [--limit 60]
No model is called: `route.structured_scores` is what the route node scores before it would ask one
(a score of 0.5 or more makes a structured route a candidate).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from queryweave.eval.spider import load_questions  # noqa: E402
from queryweave.nodes.route import structured_scores  # noqa: E402

THRESHOLD = 0.5


def to_sql(question: str, url: str) -> bool:
    ctx = SimpleNamespace(sql_url=url, graph_url=None)
    return structured_scores(ctx, question, True).get("sql", 0.0) >= THRESHOLD


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("spider", nargs="?", default=str(ROOT.parent / "shared/data/text2sql/spider"))
    ap.add_argument("--limit", type=int, default=60)
    args = ap.parse_args()
    spider = Path(args.spider)
    rows = load_questions(spider, args.limit)
    url = {r["db_id"]: str(spider / "database" / r["db_id"] / f"{r['db_id']}.sqlite") for r in rows}
    out: dict[str, float] = {}
    for lang in ("en", "zh"):
        hits = [to_sql(r[f"question_{lang}"], url[r["db_id"]]) for r in rows]
        out[f"spider {lang}: routed to SQL"] = round(sum(hits) / len(hits), 3)
    blind = [json.loads(x) for x in (ROOT / "bench/data/route_questions_blind.jsonl").read_text(encoding="utf-8")
             .splitlines() if x.strip()]
    for lang in ("en", "zh"):
        hits = [to_sql(r["question"], str(spider / "database" / r["db_id"] / f"{r['db_id']}.sqlite"))
                for r in blind if r["lang"] == lang]
        out[f"blind set {lang}: routed to SQL"] = round(sum(hits) / len(hits), 3)
    files = {"sample docs": sorted((ROOT / "samples/eval").glob("answers*.jsonl")),
             "docs sites": sorted((ROOT / "bench/data").glob("*_docs*answers*.jsonl"))}
    for name, paths in files.items():
        docs = [json.loads(x) for f in paths for x in f.read_text(encoding="utf-8").splitlines() if x.strip()]
        for lang in ("en", "zh"):
            qs = [d["question"] for d in docs if d.get("lang") == lang]
            wrong = [to_sql(q, u) for q in qs for u in sorted(set(url.values()))]
            out[f"{name} {lang} ({len(qs)} x {len(set(url.values()))} databases): routed to SQL"] = \
                round(sum(wrong) / len(wrong), 4)
    print(json.dumps(out, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
