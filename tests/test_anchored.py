"""Anchored retrieval: when the ranked passages never name the setting asked about but the corpus does, the
answer is read from the passages that name it (`tools/retrieval/anchored.py`), not declined."""

from __future__ import annotations

from dataclasses import replace

from queryweave.nodes.common import knowledge_base
from queryweave.tools.retrieval.anchored import name_holders

ASYNCIO = {"chunk_id": "a", "source": "python/asyncio.md", "title": "Python asyncio basics",
           "text": "asyncio runs coroutines on an event loop in a single thread. The await keyword suspends a "
                   "coroutine until the awaited task finishes."}


def _runtime(ctx):
    class Runtime:
        context = ctx

    return Runtime()


def test_name_holders_hold_every_name_and_skip_the_excluded(ctx):
    kb = knowledge_base(ctx)
    held = name_holders(kb, ["Xmx"], "What does the Xmx flag set?")  # written twice in the JVM page
    assert held and all("-Xmx" in d["text"] for d in held)
    assert held[0]["source"].endswith("jvm-heap.md")
    assert name_holders(kb, ["Xmx", "LeakCanary"], "何时？") == []  # no passage holds both
    assert name_holders(kb, ["Xmx"], "x", exclude={d["chunk_id"] for d in held}) == []
    assert name_holders(kb, [], "What does the Xmx flag set?") == []


def test_one_name_mentioned_once_in_passing_anchors_nothing(ctx):
    kb = knowledge_base(ctx)
    assert name_holders(kb, ["PgBouncer"], "How many clients can PgBouncer take?") == []  # one passing mention
    both = name_holders(kb, ["PgBouncer", "max_connections"], "PgBouncer and max_connections?")
    assert both and both[0]["source"].endswith("postgres-pool.md")  # two names together are evidence


def test_an_answer_is_read_from_the_passages_that_name_the_setting_asked_about(ctx):
    from queryweave.nodes.generate import generate

    state = {"question": "What does the Xmx flag of the JVM set?", "documents": [ASYNCIO], "intent": "factual"}
    out = generate(state, _runtime(ctx))
    assert not out["abstained"] and "Xmx" in out["answer"], out["answer"]
    assert [c["source"].split("/")[-1] for c in out["citations"]] == ["jvm-heap.md"]
    off = generate(state, _runtime(replace(ctx, features="anchored=off")))
    assert off["abstained"] and "Xmx" in off["missing_terms"]


def test_a_name_the_corpus_never_holds_is_still_declined(ctx):
    from queryweave.nodes.generate import generate

    out = generate({"question": "What is the default of the lock_timeout setting?", "documents": [ASYNCIO],
                    "intent": "factual"}, _runtime(ctx))
    assert out["abstained"] and out["citations"] == []


def test_a_name_is_held_as_written():
    from queryweave.tools.retrieval.anchored import writes_all

    assert writes_all(["renderToString"], "import { renderToString } from 'vue/server-renderer'")
    assert not writes_all(["React"], "Components react to changes of their props.")
    assert not writes_all(["Go"], "Initially Pinia didn't go through any RFC process.")
    assert not writes_all(["cache"], "the cacheKey option")  # a whole word only
