"""`queryweave ask "..."`: run the graph on a question (optionally in a conversation thread)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from queryweave.cli.main import fail, print_json


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
    from queryweave.graph.run import run_question, shape
    from queryweave.tools.common.validation import clean_question, to_text

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


def __getattr__(name: str):
    """`run_question` and `shape` as before (imported on first use: `--help` does not load the graph)."""
    if name in {"run_question", "shape"}:
        from queryweave.graph import run as graph_run

        return getattr(graph_run, name)
    raise AttributeError(name)
