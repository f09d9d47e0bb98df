"""Reader for BEIR-style folders: corpus.jsonl, queries.jsonl, qrels.tsv (header row)."""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path


@dataclass
class BeirSet:
    """A BEIR-style dataset: corpus rows, queries and graded judgements."""

    name: str
    corpus_path: Path
    queries: dict[str, str]
    qrels: dict[str, dict[str, float]]


def load_beir(folder: str | Path) -> BeirSet:
    """Load queries and qrels (the corpus is ingested from `corpus.jsonl` by the normal loader)."""
    folder = Path(folder)
    corpus = folder / "corpus.jsonl"
    for needed in (corpus, folder / "queries.jsonl", folder / "qrels.tsv"):
        if not needed.exists():
            raise FileNotFoundError(f"not a BEIR-style folder: {needed} is missing")
    queries = {}
    with open(folder / "queries.jsonl", encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                row = json.loads(line)
                queries[str(row["_id"])] = row["text"]
    qrels: dict[str, dict[str, float]] = {}
    with open(folder / "qrels.tsv", encoding="utf-8") as fh:
        reader = csv.reader(fh, delimiter="\t")
        next(reader, None)
        for row in reader:
            if len(row) >= 3:
                qrels.setdefault(row[0], {})[row[1]] = float(row[2])
    queries = {q: t for q, t in queries.items() if q in qrels}
    return BeirSet(folder.name, corpus, queries, qrels)
