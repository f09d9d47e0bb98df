"""The systems `eval answers` compares: a plain extractive baseline, the pipeline, a naive RAG chain.

- `baseline(kb)`: the top BM25 passage's sentence that shares the most question tokens — what a user
  gets from "search, then show the best line"; never abstains; confidence = the BM25 score.
- `pipeline(ctx)`: the whole graph with the run's configuration (clarification off: nobody answers it).
- `naive(kb, llm)`: one LangChain prompt over the same hybrid retriever's top passages ("answer from the
  context or say you don't know"), the chain a RAG engineer writes first.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from queryweave.eval.answers import AnswerItem, Outcome, System, looks_abstained, timed
from queryweave.tools.common.text import split_sentences, tokenize


def baseline(kb: Any) -> System:
    """Best-overlap sentence of the top BM25 passage."""
    def run(item: AnswerItem) -> Outcome:
        hits = kb.bm25_search(item.question, 1)
        if not hits:
            return Outcome("", [], 0.0, True, 0.0)
        chunk = kb.catalog.get_chunks([hits[0][0]]).get(hits[0][0])
        text = chunk.text if chunk is not None else ""
        q = set(tokenize(item.question))
        sentences = split_sentences(text) or [text]
        best = max(sentences, key=lambda s: len(q & set(tokenize(s))))
        return Outcome(best, [text], float(hits[0][1]), False, 0.0)

    return timed(run)


def pipeline(ctx: Any) -> System:
    """The graph, one fresh thread per question."""
    from queryweave.graph.builder import graph

    features = ",".join(f for f in [ctx.features, "clarify=off"] if f)
    run_ctx = replace(ctx, features=features)

    def run(item: AnswerItem) -> Outcome:
        out = graph.invoke({"question": item.question}, context=run_ctx)
        cited = [c.get("text", "") for c in out.get("citations") or []]
        answer = str(out.get("answer") or "")
        # an extractive answer quotes the passages: a quoted "客户端脚本不知道要连接到哪里" declines nothing,
        # so the text is read for a refusal only when a model wrote it
        written = out.get("backend") not in (None, "rules")
        abstained = bool(out.get("abstained")) or not cited or (written and looks_abstained(answer))
        return Outcome(answer, cited, out.get("confidence"), abstained, 0.0, out.get("confidence_features") or None)

    return timed(run)


NAIVE_PROMPT = ("Answer the question using only the context below. If the context does not contain the "
                "answer, say \"I don't know\". Answer in the language of the question.\n\n"
                "Context:\n{context}\n\nQuestion: {question}")


def naive(kb: Any, llm: Any, k: int = 5) -> System:
    """One prompt over the top-k hybrid passages (LangChain prompt | model | parser)."""
    from langchain_core.output_parsers import StrOutputParser
    from langchain_core.prompts import ChatPromptTemplate

    chain = ChatPromptTemplate.from_messages([("human", NAIVE_PROMPT)]) | llm | StrOutputParser()

    def run(item: AnswerItem) -> Outcome:
        hits = kb.hits(kb.hybrid_search(item.question, k))
        texts = [h.chunk.text for h in hits]
        try:
            answer = chain.invoke({"context": "\n\n".join(texts), "question": item.question})
        except Exception as exc:  # noqa: BLE001 - a failed call is a declined answer, not a crash
            answer = f"I don't know ({type(exc).__name__})"
        return Outcome(answer, texts, None, looks_abstained(answer), 0.0)

    return timed(run)
