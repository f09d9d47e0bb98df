"""A LangChain cache for evaluation runs that keeps only deterministic (temperature 0) model calls.

The rows of one evaluation run share most of their prompts (every row that turns schema linking and
examples on opens with the same one); at temperature 0 the reply is a function of the prompt, so it
is asked once. Sampled calls (retries at 0.3, votes at 0.7) are never cached: each stays a sample.
`GreedyFileCache` keeps those replies in a SQLite file, so that a second run of the same model (a
changed repair, another set of rows) asks again only the prompts it has not seen: use one file per
model, since an OpenAI-compatible server's model name ("qwen") need not say which weights it serves.
"""

from __future__ import annotations

import re
from typing import Any

from langchain_community.cache import SQLiteCache
from langchain_core.caches import InMemoryCache

_CALL = re.compile(r"'temperature',\s*([0-9.eE+-]+)")
_MODEL = re.compile(r'"temperature":\s*([0-9.eE+-]+)')


def greedy(llm_string: str) -> bool:
    """Whether the call `llm_string` describes runs at temperature 0: the call's own arguments
    (after LangChain's `---`) override the model's; a temperature stated nowhere is not 0."""
    model, _, params = llm_string.rpartition("---") if "---" in llm_string else (llm_string, "", "")
    m = _CALL.search(params) or _MODEL.search(model)
    return m is not None and float(m.group(1)) == 0.0


class GreedyCache(InMemoryCache):
    """`InMemoryCache` for temperature-0 calls only."""

    def lookup(self, prompt: str, llm_string: str) -> Any:
        return super().lookup(prompt, llm_string) if greedy(llm_string) else None

    def update(self, prompt: str, llm_string: str, return_val: Any) -> None:
        if greedy(llm_string):
            super().update(prompt, llm_string, return_val)


class GreedyFileCache(SQLiteCache):
    """`SQLiteCache` (a file that outlives the run) for temperature-0 calls only."""

    def __init__(self, path: str) -> None:
        super().__init__(database_path=path)

    def lookup(self, prompt: str, llm_string: str) -> Any:
        return super().lookup(prompt, llm_string) if greedy(llm_string) else None

    def update(self, prompt: str, llm_string: str, return_val: Any) -> None:
        if greedy(llm_string):
            super().update(prompt, llm_string, return_val)
