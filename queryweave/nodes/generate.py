"""`generate`: the answer with citations and a confidence score.

With an LLM: the numbered passages go into the prompt and the answer's [n] markers become the
citations. With `rules` (or when the LLM fails): an extractive answer of the best supporting
sentences, each cited. Either way only passages actually cited are returned as citations.
When the embedding endpoint is down the extractive answer is scored without the semantic term
(lexical only) and the turn is flagged `degraded` with the reason.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
from langchain_core.messages import HumanMessage, SystemMessage

from queryweave.config import context_of
from queryweave.models import call_text, get_chat_model, resolve_backend
from queryweave.nodes.common import knowledge_base, language_of, query_of, timed
from queryweave.prompts import pick
from queryweave.prompts.generate import NEAREST, NOT_ANSWERED_FOR, NOT_FOUND, NOTHING_ABOUT, SYSTEM
from queryweave.tools.common.text import detect_language, tokenize
from queryweave.tools.common.validation import fence_passages
from queryweave.tools.grounding.attributes import unstated_attributes
from queryweave.tools.grounding.attribution import vet_answer
from queryweave.tools.grounding.both import Verdict, both_verdict, verdict_text
from queryweave.tools.grounding.confidence import (
    AGREEMENT_IN_MIX,
    asks_explanation,
    fixed_mix,
    retrieval_agreement,
    scaled_similarity,
    type_match,
)
from queryweave.tools.grounding.confidence_weights import ABSTAIN_COVERAGE_BELOW
from queryweave.tools.grounding.coverage import (
    asking_text,
    decisive,
    missing_names,
    question_names,
    unknown_names,
    unsupported_identifiers,
    unsupported_names,
)
from queryweave.tools.grounding.coverage_gate import (
    GATED_COVERAGE_BELOW,
    KEEP_IF_SIMILARITY,
    SIMILARITY_MODEL,
)
from queryweave.tools.grounding.extractive import extract_answer
from queryweave.tools.grounding.name_forms import written_otherwise
from queryweave.tools.retrieval.anchored import name_holders, writes_all
from queryweave.tools.stores.embeddings import embedding_outage
from queryweave.tools.understanding.glossary import cross_terms

# Words of the request rather than its subject ("Which documents from 2021 explain max_connections?"):
# a passage need not contain them, and a year is usually a metadata filter.
REQUEST_WORDS = set(tokenize("document documents doc docs article articles page pages explain explains describe "
                             "describes mention mentions discuss discusses cover covers tell show list find "
                             "文档 文章 页面 介绍 讲解 说明 解释 提到 相关 哪些"))
_YEAR = re.compile(r"(?:19|20)\d{2}")
# Question words: what is asked, never what a passage says ("多少", "哪个", "how many"); a closed class of
# each language's grammar, not a list of any test set's words. Counting them made every question a word
# short that no passage could supply ("尤金袋鼠的体重大约是多少？" held 2 of 5 words, declined).
# "几" only with a measure word (a closed class) and 吗/呢 only at a clause's end: 几何, 几乎, 几内亚, 吗啡 are words.
_ASKING = re.compile(r"多少|几[个种类次年月日天岁位名条项件家人块倍届代号层级部集场期章分点秒周本首只张辆座所间门节处区股批份句台架艘颗粒]|哪一?[个些种年家位里儿款条项]?|什么|怎么样?|怎样|"
                     r"如何|为什么|为何|谁|[吗呢](?=[？?。！!，,；;\s]|$)|多[大久长高远]|"
                     r"\b(?:what|which|who|whom|whose|when|where|why|how|many|much)\b", re.I)
MIN_TERMS_FOR_CUT = 5
SENTENCES_FOR_INTENT = {"factual": 2, "reasoning": 3, "comprehensive": 5, "fuzzy": 3}
_MARK = re.compile(r"\[(\d{1,2})\]")


def _citation(n: int, doc: dict[str, Any]) -> dict[str, Any]:
    return {"n": n, "chunk_id": doc.get("chunk_id"), "source": doc.get("source"), "title": doc.get("title", ""),
            "text": doc.get("text", "")}


def _content_words(question: str) -> set[str]:
    """The question's words less request words and years."""
    return {t for t in tokenize(question) if t not in REQUEST_WORDS and not _YEAR.fullmatch(t)}


def coverage_terms(question: str) -> set[str]:
    """The question's content words that its passages should hold (question words, request words and years
    left out)."""
    return _content_words(_ASKING.sub(" ", question))


def coverage_cut_applies(question: str, evidence: list[str], across: bool = False) -> bool:
    """Whether the coverage cut can judge this answer: passages in the question's language (words are not
    compared across languages) and at least `MIN_TERMS_FOR_CUT` words besides request words and years (a
    share of three or four words moves by a third with one paraphrased word: "kill queries that run too
    long" for statement_timeout). The length counts question words, as it did before they left the share:
    the same questions are judged, only by the words a passage can hold. `across`: passages in the other
    language too (their words read through the glossary and the general dictionary), measured in
    `bench/fit_abstain_cut.py --across-languages`."""
    return (len(_content_words(question)) >= MIN_TERMS_FOR_CUT
            and (across or detect_language(" ".join(evidence)) == detect_language(question)))


def coverage_cut(ctx: Any, similarity: float | None) -> tuple[float, bool]:
    """(the coverage cut, whether the similarity gate keeps this answer anyway). With the embedding model the
    gate was chosen for and a similarity measured: the gated cut (`coverage_gate.GATED_COVERAGE_BELOW`,
    kept at `KEEP_IF_SIMILARITY` or closer); else the plain cut. `coverage_cut=off` switches both off (to fit
    them: bench/fit_abstain_cut.py), `similarity_gate=off` the gate."""
    if not ctx.feature("coverage_cut"):
        return 0.0, False
    if (similarity is not None and ctx.feature("similarity_gate")
            and knowledge_base(ctx).embedding_name == SIMILARITY_MODEL):
        return GATED_COVERAGE_BELOW, similarity >= KEEP_IF_SIMILARITY
    return ABSTAIN_COVERAGE_BELOW, False


def passage_coverage(question: str, evidence: list[str]) -> float:
    """Share of the question's words (`coverage_terms`) that the evidence holds, in either language."""
    terms = coverage_terms(question)
    held = set(tokenize(" ".join(evidence)))
    found = {t for t in terms if t in held or cross_terms({t}) & held}  # "默认" is held by "default"
    return round(len(found) / len(terms), 4) if terms else 0.0


def answer_features(question: str, answer: str, evidence: list[str], docs: list[dict[str, Any]],
                    coverage: float, names_missing: float) -> dict[str, float]:
    """The generation-side features of the confidence model (`tools/grounding/confidence.py`)."""
    return {"coverage": round(min(1.0, coverage), 4),
            "passage_coverage": passage_coverage(question, evidence),
            "agreement": round(retrieval_agreement(docs), 4),
            "type_match": type_match(question, _MARK.sub("", answer)),  # a "[1]" marker is no number
            "names_missing": round(names_missing, 4), "explain": float(asks_explanation(question))}


def _extract(ctx: Any, question: str, docs: list[dict[str, Any]], max_sentences: int, down: str | None) -> Any:
    """The extractive answer from `docs` (lexical scores only while the embedding endpoint is `down`)."""
    return extract_answer(question, docs, max_sentences=max_sentences, embed=None if down else embedder(ctx),
                          heading_terms=ctx.feature("heading_terms"), elaboration=ctx.feature("elaboration"))


def _evidence(doc: dict[str, Any]) -> str:
    """What a passage says, with its title and source (a page titled "HikariCP" names it)."""
    return f"{doc.get('title') or ''}\n{doc.get('source') or ''}\n{doc.get('text') or ''}"


def _unsupported(question: str, evidence: list[str], forms: bool) -> list[str]:
    """The question's names that no passage of the evidence mentions, as written or (`forms`) otherwise
    (`name_forms.written_otherwise`: "QoS" as "Quality of service")."""
    apart = unsupported_names(question, evidence)
    if not apart or not forms:
        return apart
    held = {t for text in evidence for t in tokenize(text)}
    return [n for n in apart if not written_otherwise(n, held, evidence)]


def _names_all(names: list[str], text: str) -> bool:
    """Whether `text` mentions every one of `names` (each name's tokens among the text's)."""
    held = set(tokenize(text))
    return all(set(tokenize(n)) <= held for n in names)


def _names_share(absent: list[str], question: str) -> float:
    names = question_names(question)
    return len(absent) / len(names) if names else 0.0


def yes_no_answer(question: str, verdict: Verdict, docs: list[dict[str, Any]], typed: str) -> dict[str, Any]:
    """The answer to a "both" question (`tools/grounding/both.py`): the verdict, each thing's defining
    sentences cited, and the usual confidence features over them."""
    used = list(dict.fromkeys(i for i, _ in verdict.evidence))
    text = verdict_text(verdict, question, [used.index(i) + 1 for i, _ in verdict.evidence])
    evidence = [_evidence(docs[i]) for i in used]
    terms = coverage_terms(question)
    said = set(tokenize(" ".join(t for _, t in verdict.evidence)))
    coverage = len({t for t in terms if t in said}) / len(terms) if terms else 0.0
    feats = answer_features(question, text, evidence, docs, coverage,
                            _names_share(unsupported_names(typed, evidence), typed))
    return {"answer": text, "citations": [_citation(n, docs[i]) for n, i in enumerate(used, 1)],
            "confidence": fixed_mix(feats), "abstained": False, "confidence_features": feats}


def answer_with_llm(llm: Any, question: str, docs: list[dict[str, Any]], lang: str) -> tuple[str | None, str | None]:
    """(answer text, error) from the LLM over numbered passages."""
    context = fence_passages(docs)  # passages are quoted data, never instructions
    result = call_text(llm, [SystemMessage(pick(SYSTEM, lang).format(context=context)), HumanMessage(question)])
    return result.value, result.error


def embedding_down(ctx: Any) -> str | None:
    """Why the knowledge base's embedding model is unavailable now (an endpoint cooling down after
    failing), else None."""
    return embedding_outage(knowledge_base(ctx).embeddings)


def embedder(ctx: Any):
    """Question + units -> vectors with the knowledge base's embedding model (query/passage aware)."""
    emb = knowledge_base(ctx).embeddings

    def embed(texts: list[str]) -> np.ndarray:
        return np.vstack([np.asarray(emb.embed_query(texts[0]))[None, :], np.asarray(emb.embed_documents(texts[1:]))])

    return embed


def abstention(question: str, docs: list[dict[str, Any]], lang: str, names: list[str],
               in_corpus: bool = False) -> dict[str, Any]:
    """The answer that declines: what is missing (when known) and the closest pages, none cited.
    `in_corpus`: the names occur in the corpus, but not in any passage that would answer."""
    titles = list(dict.fromkeys(d.get("title") or d.get("source") or "" for d in docs))[:3]
    template = NOT_ANSWERED_FOR if in_corpus else NOTHING_ABOUT
    text = pick(template, lang).format(names=", ".join(names)) if names else pick(NOT_FOUND, lang)
    if titles and any(titles):
        text += pick(NEAREST, lang).format(titles=("、" if lang == "zh" else "; ").join(t for t in titles if t))
    nearest = [{"source": d.get("source"), "title": d.get("title", "")} for d in docs[:3]]
    return {"answer": text, "citations": [], "confidence": 0.0, "abstained": True, "missing_terms": names,
            "nearest": nearest}


@timed("generate")
def generate(state: dict[str, Any], runtime: Any = None) -> dict[str, Any]:
    """Answer the query from the retrieved documents, with citations and confidence."""
    ctx = context_of(runtime)
    question = query_of(state)
    lang = language_of(state, ctx)
    docs = state.get("documents") or []
    backend = resolve_backend(ctx.model_settings())
    out: dict[str, Any] = {"backend": backend, "language": lang, "answer_units": []}
    if not docs:
        return out | abstention(question, docs, lang, [])
    # Names the user typed count, not those only in a screenshot's text (a pasted log names many things)
    # or in a transcript (speech recognition splits and misspells names: "HikariCP" heard as "Hikari CP").
    heard = " ".join(t for t in (state.get("image_text"), state.get("transcript")) if t)
    typed = " ".join(w for w in question.split() if w not in heard) if heard else question
    # A decline counts the absent names of the sentences that ask (among all the names typed): "I run it in
    # a Docker container. How often does it poll?" asks nothing about Docker, and a passage that answers
    # need not name it. (All the typed names still point to the passages to answer from.)
    asked = asking_text(typed)
    asked_names = set(question_names(asked))
    if ctx.feature("abstain"):
        bm25 = knowledge_base(ctx).bm25()
        vocabulary = getattr(bm25.retriever, "vocab_dict", None) or {}
        missing = [n for n in missing_names(typed, bm25.knows) if n in asked_names]
        if missing and ctx.feature("name_forms"):  # "QoS" spelt out, "CDN" as "CDNs", "TCP" in `tcpSocket`
            texts = [_evidence(d) for d in docs]
            missing = [n for n in missing if not written_otherwise(n, vocabulary, texts)]
        if decisive(missing, typed) or unknown_names(missing, vocabulary):
            return out | abstention(question, docs, lang, missing)
    llm = get_chat_model(ctx.model_settings()) if backend != "rules" else None
    if llm is not None:
        text, error = answer_with_llm(llm, question, docs, lang)
        cited: list[int] = []
        if text:
            cited, refused = vet_answer(text, question, [_evidence(d) for d in docs], ctx.feature("number_check"))
            if refused:
                text, error = None, refused
        if text:
            citations = [_citation(n, docs[n - 1]) for n in cited]
            conf = 0.5 * AGREEMENT_IN_MIX + 0.5 * (1.0 if citations else 0.2)  # (reflect recomputes it)
            evidence = [c["text"] for c in citations]
            terms = set(tokenize(question))
            said = len(terms & set(tokenize(text))) / len(terms) if terms else 0.0
            feats = answer_features(question, text, evidence, docs, said,
                                    _names_share(unsupported_names(typed, evidence), typed))
            return out | {"answer": text.strip(), "citations": citations, "confidence": round(conf, 3),
                          "abstained": not citations, "confidence_features": feats}
        out |= {"degraded": True, "degraded_reasons": [f"generate: LLM failed ({error}); answered extractively"]}
    if ctx.feature("yes_no") and (verdict := both_verdict(question, docs)) is not None:
        return out | yes_no_answer(question, verdict, docs, typed)  # "Are X and Y both Z?": yes or no, shown why
    max_sent = SENTENCES_FOR_INTENT.get(state.get("intent") or "", 3)
    down = embedding_down(ctx)
    ext = _extract(ctx, question, docs, max_sent, down)
    down = down or embedding_down(ctx)  # (or it failed just now: extract_answer fell back to lexical scores)
    if down:
        out |= {"degraded": True, "degraded_reasons": [*out.get("degraded_reasons", []),
                                                       f"generate: {down}; answer scored without embeddings"]}
    if not ext.answer:
        return out | abstention(question, docs, lang, [])
    evidence = [_evidence(c) for c in ext.citations]
    forms = ctx.feature("name_forms")
    apart = _unsupported(typed, evidence, forms) if ctx.feature("abstain") else []
    lacking = apart if decisive(apart, typed) else unsupported_identifiers(typed, evidence) if apart else []
    holders = [d for d in docs if lacking and _names_all(lacking, _evidence(d))]
    # The chosen sentences lack the name asked about, but other retrieved passages name it (a Chinese
    # question whose Chinese sentences outscored the English page about "HikariCP"): answer from those,
    # when that answer holds the kind of value asked for (a number for "多久", a name for "which").
    if holders and len(holders) < len(docs) and not ext.field:  # a field line of the setting asked about stays
        again = _extract(ctx, question, holders, max_sent, down)
        if again.answer and type_match(question, _MARK.sub("", again.answer)) > 0:  # and it holds the kind asked
            ext, evidence = again, [_evidence(c) for c in again.citations]
            apart = _unsupported(typed, evidence, forms)
    absent = [n for n in apart if n in asked_names]
    # the setting or function asked about that the answer's passages never name (read once, again only if the
    # answer is read anew below)
    setting = unsupported_identifiers(asked, evidence) if ctx.feature("abstain") else []
    lacked = absent if decisive(absent, typed) else setting
    if lacked and ctx.feature("anchored") and not ext.field:  # the corpus names it, the ranked passages do not: find those that do
        extra = name_holders(knowledge_base(ctx), lacked, question, exclude={d.get("chunk_id") for d in docs})
        again = _extract(ctx, question, extra, max_sent, down) \
            if extra else None
        # kept when its sentences (or their pages' titles and paths) name what was asked about ("Go" in a page
        # that only says "go through" answers nothing about Go) and hold the kind of value asked
        named = again and " ".join([again.answer, *(f"{c.get('title')} {c.get('source')}" for c in again.citations)])
        if again and again.answer and writes_all(lacked, named) \
                and type_match(question, _MARK.sub("", again.answer)) > 0:
            ext, evidence = again, [_evidence(c) for c in again.citations]
            apart = _unsupported(typed, evidence, forms)
            absent = [n for n in apart if n in asked_names]
            setting = unsupported_identifiers(asked, evidence) if ctx.feature("abstain") else []
    if decisive(absent, typed):  # the chosen sentences come from pages that never name what was asked about
        return out | abstention(question, docs, lang, absent, in_corpus=True)
    feats = answer_features(question, ext.answer, evidence, docs, ext.coverage, _names_share(apart, typed))
    if ext.similarity is not None:  # the embedding cosine of the question and its closest chosen unit
        feats["similarity"] = round(ext.similarity, 4)
        # off by default since the ninth session: chosen on answer sets where it gained, it lost on five of the
        # seven sets scored after that choice (bench/results_answers.md, "Ninth session")
        if ctx.feature("similarity_confidence", default=False) and knowledge_base(ctx).embedding_name == SIMILARITY_MODEL:
            feats["similarity_scaled"] = scaled_similarity(ext.similarity)  # a term of the confidence
    if ext.margin is not None:  # how far the best unit is ahead of the runner-up (recorded, not yet weighed)
        feats["margin"] = round(ext.margin, 4)
    if ext.best_rank is not None:  # the rank of the passage the best unit comes from (recorded, not weighed)
        feats["answer_rank"] = ext.best_rank
    if ctx.feature("abstain"):
        if setting:  # the setting or function asked about is named nowhere in the answer's passages
            return out | abstention(question, docs, lang, setting, in_corpus=True) | {"confidence_features": feats}
        if ctx.feature("attribute_check") and unstated_attributes(question, ext.answer):
            # "what is the default …" answered by sentences that never speak of a default: the knowledge
            # base describes the thing, not the attribute asked about
            return out | abstention(question, docs, lang, []) | {"confidence_features": feats}
        cut, keep = coverage_cut(ctx, feats.get("similarity"))
        # The share of the whole question's words the passages hold, or of its asking sentences', whichever is
        # higher (judged when those sentences have words enough): "We size everything in rem units on our
        # site." tells the asker's setting; a passage answering "Which transformer converts px to rem?" need
        # not hold it.
        covered, judged = feats["passage_coverage"], question
        if ctx.feature("asking_cut") and asked != typed:
            judged = asked
            feats["asked_coverage"] = passage_coverage(asked, evidence)
            covered = max(covered, feats["asked_coverage"])
        # A field line stating the asked attribute under the heading of the setting asked about ("preview.port —
        # Default: 4173" for "If I don't configure anything, which port does vite preview use?") answers however
        # many words of the asker's situation its passage lacks.
        keep = keep or (ext.field and ctx.feature("field_keeps"))
        if covered < cut and not keep and coverage_cut_applies(judged, evidence):
            return out | abstention(question, docs, lang, []) | {"confidence_features": feats}
    return out | {"answer": ext.answer, "citations": ext.citations, "confidence": fixed_mix(feats),
                  "abstained": False, "confidence_features": feats, "answer_units": ext.rendered}
