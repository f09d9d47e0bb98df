"""Sampled model calls that a run can repeat: the temperature, and a seed per call when one is given.

Voting and retries sample the model at a temperature above zero. Without a seed the endpoint's own
random state decides what is drawn, and that state is not a run's to choose: a llama.cpp server that
was restarted draws the same samples again for the same sequence of requests, so two runs meant as
independent draws can be one draw twice, while two runs on a server that kept running differ even from
identical code. `Seeds(base)` gives each sampled call of one question the seeds `base`, `base + 1`, …
in the order they are made: the same base repeats a run, another base draws anew (OpenAI, vLLM,
llama.cpp and Ollama's OpenAI-compatible endpoints take `seed`).
"""

from __future__ import annotations

from typing import Any


class Seeds:
    """The seeds of one question's sampled calls (`None`: the endpoint chooses)."""

    def __init__(self, base: int | None) -> None:
        self.base = base
        self.used = 0

    def bind(self, llm: Any, temperature: float) -> Any:
        """`llm` bound to sample at `temperature`, with the next seed when there is a base; the model
        itself when it cannot be bound (it then samples nothing different)."""
        kwargs: dict[str, Any] = {"temperature": temperature}
        if self.base is not None:
            kwargs["seed"] = self.base + self.used
            self.used += 1
        try:
            return llm.bind(**kwargs)
        except Exception:
            return llm
