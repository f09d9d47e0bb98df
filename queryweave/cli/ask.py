"""`queryweave ask "..."`: run the graph on a question (optionally in a conversation thread)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from queryweave.cli.main import fail, print_json
from queryweave.graph.run import run_question, shape
from queryweave.tools.common.validation import clean_question, to_text


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
    if args.resume is None and not (question and question.strip()) and not args.image:
        return fail("empty question: give the question as an argument (or '-' to read stdin)")
    if args.resume is not None and not args.thread:
        return fail("--resume needs --thread ID (the thread that asked for clarification)")
    if args.resume is not None:
        args.resume = clean_question(args.resume)
    else:  # control characters, invalid UTF-8 (surrogate-escaped argv bytes) and the length limit
        question = clean_question(question, allow_empty=bool(args.image))
    result = run_question(args.context, question, args.thread, args.resume, args.image)
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
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run)
