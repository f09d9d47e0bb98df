"""Synthetic hallucination pairs from documents alone (label-free check of the detector)."""

from __future__ import annotations

import random

from queryweave.eval.hallucination_synth import perturb, synthetic_pairs
from queryweave.tools.grounding.detector import groundedness

DOCS = [
    "The Eiffel Tower was completed in 1889 for the World's Fair held in Paris that year. "
    "It is 330 metres tall and was designed by the engineering company of Gustave Eiffel. "
    "About seven million people visit the tower every year, most of them from abroad. "
    "The tower was the tallest structure in the world until the Chrysler Building was finished.",
    "The Great Wall of China was listed as a World Heritage Site by UNESCO in 1987. "
    "Its Ming dynasty sections run for about 8,850 kilometres across northern China. "
    "Millions of tourists walk the restored stretches near Beijing every single year. "
    "Large parts of the wall have eroded and some have been taken apart for building stone.",
]


def test_pairs_are_balanced_and_the_planted_text_differs():
    pairs = synthetic_pairs(DOCS, per_document=3)
    assert len(pairs) == 12 and sum(label for _, _, label in pairs) == 6
    for (doc, right, r_label), (doc2, wrong, w_label) in zip(pairs[::2], pairs[1::2], strict=True):
        assert doc == doc2 and (r_label, w_label) == (0, 1) and right != wrong


def test_each_perturbation_plants_what_it_says():
    rng = random.Random(1)
    summary = ["The tower was completed in 1889 for the World's Fair held in Paris."]
    mine = DOCS[0].split(". ")
    other = DOCS[1].split(". ")
    wrong, kind = perturb(summary, mine, other, rng, "number")
    assert kind == "number" and "1889" not in wrong[0]
    wrong, kind = perturb(summary, mine, other, rng, "entity")
    assert kind == "entity" and wrong[0] != summary[0]
    wrong, kind = perturb(summary, mine, other, rng, "append")
    assert kind == "append" and wrong[0].startswith("The tower was completed in 1889")
    # the planted number is caught by the strict detector, the extractive summary is not
    right = groundedness(summary[0], [DOCS[0]])
    wrong_number = groundedness(perturb(summary, mine, other, random.Random(2), "number")[0][0], [DOCS[0]])
    assert right.grounded and not wrong_number.grounded
