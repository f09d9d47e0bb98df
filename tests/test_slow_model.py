"""Slow local models: timeouts follow the observed latency, and a slow-but-alive endpoint is not put
into a cool-down, while a dead one still is. Against a loopback OpenAI-compatible fake whose delay
changes between calls (times scaled down: configured timeout 0.5 s, calls of 0.8-1.2 s)."""

from __future__ import annotations

import time
from types import SimpleNamespace

import pytest
from fake_openai import fake_openai
from pydantic import BaseModel

from queryweave import models


class Verdict(BaseModel):
    """A schema whose every field has a default (the fake sends `{}` as tool arguments)."""

    ok: bool = True


@pytest.fixture(autouse=True)
def _fresh_state():
    for table in (models._COOLDOWN, models._LATENCY, models._ALIVE):
        table.clear()
    yield
    for table in (models._COOLDOWN, models._LATENCY, models._ALIVE):
        table.clear()


def _model(url: str, timeout: float = 0.5):
    return models._openai(url, "fake", timeout)


def test_slow_but_alive_endpoint_gets_longer_timeouts_and_no_cool_down():
    with fake_openai(mode="slow", delay_s=0.1) as fake:
        llm = _model(fake.url)
        assert models.call_text(llm, "hi").value  # first observations: fast enough
        assert models.call_structured(llm, Verdict, "hi").value == Verdict()
        results = []
        for delay in (0.8, 1.2):  # the model slows down past the configured 0.5 s
            fake.delay_s = delay
            results.append(models.call_text(llm, "hi"))
        fake.delay_s = 0.9
        structured = models.call_structured(llm, Verdict, "hi")
    assert [r.error for r in results] == [None, None] and all(r.value for r in results)
    assert structured.value == Verdict()
    assert models._cooling(llm) is None
    assert 1.2 < models._timeout_for(llm) <= 600


def test_dead_endpoint_still_cools_down():
    with fake_openai(mode="slow", delay_s=3.0) as fake:
        llm = _model(fake.url)
        first = models.call_text(llm, "hi")
        hits = fake.hits["/v1/chat/completions"]
        t = time.monotonic()
        second = models.call_text(llm, "hi")
        skipped_in = time.monotonic() - t
    assert first.value is None and "Timeout" in first.error
    assert second.value is None and "LLM endpoint unavailable" in second.error and skipped_in < 0.1
    assert hits <= 2  # one timed-out call (the client's own retry), not retried with a longer wait


def test_endpoint_that_dies_after_working_cools_down(monkeypatch):
    monkeypatch.setenv("QUERYWEAVE_LLM_TIMEOUT_FACTOR", "2")
    with fake_openai(mode="slow", delay_s=0.05) as fake:
        llm = _model(fake.url, timeout=0.3)
        assert models.call_text(llm, "hi").value
        fake.delay_s = 5.0  # hangs from now on
        dead = models.call_text(llm, "hi")
        after = models.call_text(llm, "hi")
    assert dead.value is None and "Timeout" in dead.error
    assert after.value is None and "LLM endpoint unavailable" in after.error


def test_timeout_is_max_of_configured_and_k_times_p90_within_the_cap(monkeypatch):
    llm = SimpleNamespace(request_timeout=60.0)
    assert models._timeout_for(llm) is None  # nothing observed: the client's configured timeout
    for seconds in [10.0] * 9 + [40.0]:
        models._observe(llm, seconds, ok=True)
    assert models._timeout_for(llm) == 120.0  # 3 x p90 (40 s)
    monkeypatch.setenv("QUERYWEAVE_LLM_TIMEOUT_CAP", "90")
    assert models._timeout_for(llm) == 90.0
    fast = SimpleNamespace(request_timeout=60.0)
    models._observe(fast, 1.0, ok=True)
    assert models._timeout_for(fast) == 60.0  # never below the configured timeout
    assert models._timeout_for(SimpleNamespace()) is None  # models without a request timeout: untouched
