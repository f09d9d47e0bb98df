"""Held-out cmrc2018 questions: every third question of CMRC 2018's dev split, asked over the shared corpus.

The shared `retrieval/cmrc2018` corpus already holds the dev split's 848 passages (as distractors for the
1002 trial questions), so the dev questions can be answered from the same knowledge base without a new
ingest. This writes a BEIR folder (`corpus.jsonl` linked to the shared one, `queries.jsonl` with `answers`)
for `queryweave eval answers`:

    python bench/cmrc_dev_set.py cmrc2018_dev.json ../shared/data/retrieval/cmrc2018 OUT_DIR
    queryweave eval answers OUT_DIR --json

`cmrc2018_dev.json` is `squad-style-data/cmrc2018_dev.json` of github.com/ymcui/cmrc2018 (CC BY-SA 4.0).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def build(dev_json: Path, shared: Path, out: Path, every: int = 3) -> int:
    """Write `out/queries.jsonl` (every `every`-th dev question, gold answers deduplicated) and link the
    shared corpus; return the number of questions written."""
    data = json.loads(dev_json.read_text(encoding="utf-8"))["data"]
    questions = [q for article in data for paragraph in article["paragraphs"] for q in paragraph["qas"]]
    out.mkdir(parents=True, exist_ok=True)
    link = out / "corpus.jsonl"
    if not link.exists():
        link.symlink_to((shared / "corpus.jsonl").resolve())
    chosen = questions[::every]
    with (out / "queries.jsonl").open("w", encoding="utf-8") as f:
        for q in chosen:
            answers = list(dict.fromkeys(a["text"].strip() for a in q["answers"] if a["text"].strip()))
            f.write(json.dumps({"_id": q["id"], "text": q["question"], "answers": answers, "split": "dev"},
                               ensure_ascii=False) + "\n")
    return len(chosen)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    print(build(Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])), "questions")
