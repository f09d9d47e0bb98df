"""Accuracy of query understanding on our own labelled set: intent, ambiguity, RAG necessity.

Usage: python bench/bench_intent.py [--llm] [--errors]
Reads bench/data/intent_labels.jsonl (142 queries, Chinese and English) and the knowledge-base titles in
bench/data/intent_topics.json. Columns: `rules` (rule layer alone), and with `--llm` (a model configured
through QUERYWEAVE_LLM / QUERYWEAVE_OPENAI_BASE_URL / ...): `llm` (the model on every query) and
`rules->llm` (the pipeline: the model only where the rules are not confident). Ambiguity has no LLM step.
A failed LLM call (timeout, no valid tool call) counts as that query's fallback (the rule answer for
intent, "retrieve" for necessity), as in the graph; the number of failed calls and the mean time of an
LLM call are printed, so a column made of fallbacks cannot pass for the model's answers.
`--errors` lists the rule layer's mistakes.

Small local models: keep `QUERYWEAVE_MAX_TOKENS` small (a structured answer needs < 100 tokens; a
0.5B model that rambles for 512 tokens on one core runs past the timeout) and set
`QUERYWEAVE_LLM_COOLDOWN=0`, so one slow call does not turn the following ones into fallbacks.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from queryweave.tools.common.text import detect_language, tokenize
from queryweave.tools.understanding.ambiguity import detect_ambiguity
from queryweave.tools.understanding.intent import IntentOutput, classify_intent
from queryweave.tools.understanding.necessity import NecessityOutput, needs_retrieval

DATA = Path(__file__).resolve().parent / "data"


def _acc(pairs: list[tuple[object, object]]) -> str:
    if not pairs:
        return "-"
    ok = sum(1 for pred, gold in pairs if pred == gold)
    return f"{ok / len(pairs):.3f} ({ok}/{len(pairs)})"


def _llm():
    try:
        from queryweave.config import Context
        from queryweave.models import call_structured, get_chat_model
        from queryweave.prompts.understanding import intent_messages, necessity_messages
    except ImportError as exc:  # the models module is not there yet
        print(f"LLM column skipped: {exc}")
        return None
    try:
        llm = get_chat_model(Context())
    except Exception as exc:  # misconfigured back-end
        print(f"LLM column skipped: {exc}")
        return None
    if llm is None:
        print("LLM column skipped: no model configured (QUERYWEAVE_LLM resolves to rules)")
        return None
    return llm, call_structured, intent_messages, necessity_messages


class _Calls:
    """LLM calls made, failed, and their total time."""

    def __init__(self) -> None:
        self.n, self.failed, self.seconds = 0, 0, 0.0
        self.errors: dict[str, int] = {}

    retries = 0

    def ask(self, call, model, schema, messages):
        """One structured call, counted; the parsed value or None."""
        t = time.perf_counter()
        out = call(model, schema, messages, retries=self.retries)
        self.seconds += time.perf_counter() - t
        self.n += 1
        if out.value is None:
            self.failed += 1
            kind = (out.error or "unknown").split(":")[0]
            self.errors[kind] = self.errors.get(kind, 0) + 1
        return out.value


def main() -> int:
    """Print the accuracy table (and the rule errors with --errors)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--llm", action="store_true", help="add LLM columns when a model is configured")
    ap.add_argument("--errors", action="store_true", help="list the rule layer's mistakes")
    ap.add_argument("--every", type=int, default=1, help="every N-th query only (an evenly spread subset)")
    ap.add_argument("--retries", type=int, default=0,
                    help="LLM retries per call (0: at temperature 0 a retry gives the same answer)")
    args = ap.parse_args()
    rows = [json.loads(x) for x in (DATA / "intent_labels.jsonl").read_text(encoding="utf-8").splitlines() if x.strip()]
    rows = rows[:: max(1, args.every)]
    titles = json.loads((DATA / "intent_topics.json").read_text(encoding="utf-8"))["titles"]
    vocab = {t for title in titles for t in tokenize(title)}
    llm = _llm() if args.llm else None

    res: dict[str, list[tuple[object, object]]] = {k: [] for k in (
        "intent", "intent_conf", "intent_llm", "intent_hybrid", "amb", "nec", "nec_vocab", "nec_conf", "nec_llm",
        "nec_hybrid")}
    per_lang: dict[str, list[tuple[object, object]]] = {"en": [], "zh": []}
    errors: list[str] = []
    calls = _Calls()
    calls.retries = args.retries
    rule_answers: list[tuple[object, object]] = []
    t0 = time.perf_counter()
    for r in rows:
        q, lang = r["text"], detect_language(r["text"])
        nec = needs_retrieval(q)
        res["nec"].append((nec.needs, r["needs_retrieval"]))
        nv = needs_retrieval(q, vocab)
        res["nec_vocab"].append((nv.needs, r["needs_retrieval"]))
        if nec.confident:
            res["nec_conf"].append((nec.needs, r["needs_retrieval"]))
        if nec.needs != r["needs_retrieval"]:
            errors.append(f"necessity  {q!r}: rules {nec.needs} ({nec.reason}), gold {r['needs_retrieval']}")
        amb = detect_ambiguity(q, titles)
        res["amb"].append((amb.ambiguous, r["ambiguous"]))
        if amb.ambiguous != r["ambiguous"]:
            errors.append(f"ambiguity  {q!r}: rules {amb.ambiguous} ({amb.reason}), gold {r['ambiguous']}")
        if r["intent"]:
            it = classify_intent(q)
            res["intent"].append((it.intent, r["intent"]))
            per_lang[lang].append((it.intent, r["intent"]))
            if it.confident:
                res["intent_conf"].append((it.intent, r["intent"]))
            if it.intent != r["intent"]:
                errors.append(f"intent     {q!r}: rules {it.intent} (confident={it.confident}), gold {r['intent']}")
        rule_answers.append((nec, it if r["intent"] else None))
    elapsed = time.perf_counter() - t0
    if llm is not None:  # one task after the other: the server reuses the prompt prefix they share
        model, call, intent_messages, necessity_messages = llm
        kb_topics = "technical documentation: " + ", ".join(titles[:20])
        for r, (nec, _it) in zip(rows, rule_answers, strict=True):
            q, lang = r["text"], detect_language(r["text"])
            out = calls.ask(call, model, NecessityOutput, necessity_messages(q, lang, kb_topics))
            pred = out.needs_retrieval if out is not None else True
            res["nec_llm"].append((pred, r["needs_retrieval"]))
            res["nec_hybrid"].append((nec.needs if nec.confident else pred, r["needs_retrieval"]))
        for r, (_nec, it) in zip(rows, rule_answers, strict=True):
            if it is None:
                continue
            q, lang = r["text"], detect_language(r["text"])
            io = calls.ask(call, model, IntentOutput, intent_messages(q, lang))
            ipred = io.intent if io is not None else it.intent
            res["intent_llm"].append((ipred, r["intent"]))
            res["intent_hybrid"].append((it.intent if it.confident else ipred, r["intent"]))

    table = [
        ("intent (4 classes)", _acc(res["intent"]), _acc(res["intent_llm"]), _acc(res["intent_hybrid"])),
        ("  intent, English", _acc(per_lang["en"]), "", ""),
        ("  intent, Chinese", _acc(per_lang["zh"]), "", ""),
        ("  intent where rules confident", _acc(res["intent_conf"]), "", ""),
        ("ambiguity", _acc(res["amb"]), "(rules only)", ""),
        ("necessity", _acc(res["nec"]), _acc(res["nec_llm"]), _acc(res["nec_hybrid"])),
        ("  necessity with KB vocabulary", _acc(res["nec_vocab"]), "", ""),
        ("  necessity where rules confident", _acc(res["nec_conf"]), "", ""),
    ]
    amb_tp = sum(1 for p, g in res["amb"] if p and g)
    amb_pos, amb_gold = sum(1 for p, _ in res["amb"] if p), sum(1 for _, g in res["amb"] if g)
    w = max(len(t[0]) for t in table)
    print(f"{len(rows)} labelled queries; rules took {1000 * elapsed / len(rows):.2f} ms/query")
    print(f"{'metric':<{w}}  {'rules':<16}  {'llm':<16}  rules->llm")
    for name, a, b, c in table:
        print(f"{name:<{w}}  {a:<16}  {b:<16}  {c}")
    print(f"ambiguity precision {amb_tp}/{amb_pos}, recall {amb_tp}/{amb_gold}")
    if llm is not None:
        print(f"LLM calls: {calls.n}, failed (fallback used) {calls.failed} {calls.errors or ''}, "
              f"{1000 * calls.seconds / max(1, calls.n):.0f} ms per call")
    if args.errors:
        print("\n".join(["", "rule errors:"] + errors))
    return 0


if __name__ == "__main__":
    sys.exit(main())
