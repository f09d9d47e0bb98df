"""`queryweave ask "..."`: run the graph on a question (optionally in a conversation thread)."""

from __future__ import annotations

import argparse
import sys
import uuid
from pathlib import Path
from typing import Any

from queryweave.cli.main import fail, print_json
from queryweave.graph.context import Context
from queryweave.tools.validation import clean_question, to_text


def run_question(ctx: Context, question: str | None, thread_id: str | None = None,
                 resume: str | None = None, image: str | None = None, audio: str | None = None,
                 audio_language: str | None = None) -> dict[str, Any]:
    """Invoke the graph with the SQLite/PostgreSQL checkpointer; returns the output plus `thread_id`."""
    from langgraph.types import Command

    from queryweave.graph.builder import build_graph
    from queryweave.graph.checkpoint import make_checkpointer

    thread_id = thread_id or uuid.uuid4().hex[:12]
    graph = build_graph(checkpointer=make_checkpointer(ctx))
    config = {"configurable": {"thread_id": thread_id}}
    if resume is not None:
        payload: Any = Command(resume=resume)
    else:
        payload = {"question": question or ""}
        if image:
            payload["image"] = image
        if audio:  # transcribed by the `speech` node (tools/media/speech.py)
            payload["audio"] = audio
            if audio_language:
                payload["audio_language"] = audio_language
    result = dict(graph.invoke(payload, config=config, context=ctx))
    interrupts = result.pop("__interrupt__", None)
    if interrupts:
        value = interrupts[0].value if hasattr(interrupts[0], "value") else interrupts[0]
        result["clarification"] = value
        result.setdefault("answer", "")
    if not result.get("backend"):  # a pause before any answering node still says which back-end runs
        from queryweave.models import resolve_backend

        result["backend"] = resolve_backend(ctx)
    result["thread_id"] = thread_id
    return result


def shape(result: dict[str, Any]) -> dict[str, Any]:
    """The stable JSON shape of `ask --json`."""
    citations = [{"chunk_id": c.get("chunk_id"), "source": c.get("source"), "title": c.get("title", ""),
                  "text": c.get("text", "")} for c in result.get("citations") or []]
    out = {
        "answer": result.get("answer", ""),
        "citations": citations,
        "intent": result.get("intent"),
        "route": result.get("route"),
        "k": result.get("k"),
        "confidence": result.get("confidence"),
        "backend": result.get("backend"),
        "timings": result.get("timings") or {},
        "resolved_query": result.get("resolved_query"),
        "needs_retrieval": result.get("needs_retrieval", True),
        "thread_id": result.get("thread_id"),
        "degraded": bool(result.get("degraded")),
    }
    for key in ("clarification", "sql", "cypher", "rows", "verdicts", "strategy", "attempts", "degraded_reasons",
                "transcript"):
        if result.get(key):
            out[key] = result[key]
    return out


def print_human(out: dict[str, Any]) -> None:
    """Readable output for a terminal."""
    if out.get("clarification"):
        c = out["clarification"]
        print(c.get("question", ""))
        for i, opt in enumerate(c.get("options", []), 1):
            print(f"  {i}. {opt}")
        print(f"(resume with: queryweave ask --thread {out['thread_id']} --resume \"<choice>\")")
        return
    print(out["answer"])
    for i, c in enumerate(out["citations"], 1):
        where = f" ({c['source']})" if c.get("source") and c["source"] != c.get("title") else ""
        print(f"  [{i}] {c['title'] or c['source'] or c['chunk_id']}{where}")
    print(f"-- intent={out['intent']} route={out['route']} k={out['k']} confidence={out['confidence']} "
          f"backend={out['backend']} thread={out['thread_id']}")


def run(args: argparse.Namespace) -> int:
    """Answer one question."""
    question = args.question
    if question == "-":
        stdin = getattr(sys.stdin, "buffer", sys.stdin)  # bytes: invalid UTF-8 becomes U+FFFD, no crash
        question = to_text(stdin.read())
    media = bool(args.image or args.audio)
    if args.audio and args.resume is None:  # say what is missing before the graph runs
        from queryweave.tools.media.speech import speech_status

        if not Path(args.audio).expanduser().is_file():
            return fail(f"audio file not found: {args.audio}")
        if (missing := speech_status()) is not None:
            return fail(missing)
    if args.resume is None and not (question and question.strip()) and not media:
        return fail("empty question: give the question as an argument (or '-' to read stdin)")
    if args.resume is not None and not args.thread:
        return fail("--resume needs --thread ID (the thread that asked for clarification)")
    if args.resume is not None:
        args.resume = clean_question(args.resume)
    else:  # control characters, invalid UTF-8 (surrogate-escaped argv bytes) and the length limit
        question = clean_question(question, allow_empty=media)
    result = run_question(args.context, question, args.thread, args.resume, args.image, args.audio,
                          args.audio_language)
    out = shape(result)
    print_json(out) if args.json else print_human(out)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add `ask`."""
    p = sub.add_parser("ask", help="ask a question")
    p.add_argument("question", nargs="?", default=None, help="the question ('-' reads stdin)")
    p.add_argument("--thread", default=None, help="conversation thread id (memory across turns)")
    p.add_argument("--resume", default=None, help="answer to a clarification question (with --thread)")
    p.add_argument("--image", default=None, help="an image whose text (OCR) joins the question")
    p.add_argument("--audio", default=None, metavar="FILE",
                   help="a spoken question (wav/mp3/ogg/webm; needs the voice extra): its transcript joins the question")
    p.add_argument("--audio-language", default=None, choices=["zh", "en"], help="the audio's language (else detected)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run)
