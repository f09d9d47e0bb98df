"""The coverage cut and its similarity gate: which cut applies, and when the gate keeps an answer."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from queryweave.nodes import generate
from queryweave.tools.grounding.confidence_weights import ABSTAIN_COVERAGE_BELOW
from queryweave.tools.grounding.coverage_gate import (
    GATED_COVERAGE_BELOW,
    KEEP_IF_SIMILARITY,
    SIMILARITY_MODEL,
)


class Ctx:
    def __init__(self, **features: bool) -> None:
        self.features = features

    def feature(self, name: str, default: bool = True) -> bool:
        return self.features.get(name, default)


@pytest.fixture
def kb_model(monkeypatch):
    def use(name: str) -> None:
        monkeypatch.setattr(generate, "knowledge_base", lambda ctx: SimpleNamespace(embedding_name=name))
    return use


def test_the_gate_applies_only_with_the_model_it_was_chosen_for(kb_model) -> None:
    kb_model(SIMILARITY_MODEL)
    assert generate.coverage_cut(Ctx(), KEEP_IF_SIMILARITY + 0.01) == (GATED_COVERAGE_BELOW, True)
    assert generate.coverage_cut(Ctx(), KEEP_IF_SIMILARITY - 0.05) == (GATED_COVERAGE_BELOW, False)
    assert generate.coverage_cut(Ctx(), None) == (ABSTAIN_COVERAGE_BELOW, False)  # embeddings down
    assert generate.coverage_cut(Ctx(similarity_gate=False), 0.99) == (ABSTAIN_COVERAGE_BELOW, False)
    assert generate.coverage_cut(Ctx(coverage_cut=False), 0.2) == (0.0, False)
    kb_model("some-other-model")  # another model's cosines are on another scale
    assert generate.coverage_cut(Ctx(), 0.99) == (ABSTAIN_COVERAGE_BELOW, False)
    assert GATED_COVERAGE_BELOW >= ABSTAIN_COVERAGE_BELOW  # the gate buys a stricter cut, never a looser one


def test_extractive_answers_carry_the_similarity_of_their_closest_unit() -> None:
    import numpy as np

    from queryweave.tools.grounding.extractive import extract_answer

    def embed(texts):  # the question and units as fixed unit vectors: unit "alpha" is the question's direction
        vecs = [np.array([1.0, 0.0]) if ("alpha" in t or i == 0) else np.array([0.6, 0.8]) for i, t in enumerate(texts)]
        return np.vstack(vecs)

    docs = [{"chunk_id": "a", "source": "a.md", "title": "T",
             "text": "The alpha setting limits retries. Other text about beta values here."}]
    ext = extract_answer("What does the alpha setting limit?", docs, max_sentences=1, embed=embed)
    assert "alpha" in ext.answer and ext.similarity == pytest.approx(1.0)
    assert extract_answer("What does the alpha setting limit?", docs, max_sentences=1).similarity is None
