"""`queryweave serve [--host H] [--port P] [--workers N]`: the web app (LangServe endpoint, API and search page).

With `--workers N` (N > 1) uvicorn runs N worker processes on the one port; each builds the app with
`queryweave.server.app:app_factory` from the configuration this command hands down in the environment
(`QUERYWEAVE_SERVE_CONTEXT`). They share the stores of the data dir (catalog, BM25 index, Chroma) and the
conversation state (the SQLite checkpointer in the data dir, or PostgreSQL with `QUERYWEAVE_DATABASE_URL`),
so a thread started on one worker continues on any other (docs/deploy.md, "Several workers").
"""

from __future__ import annotations

import argparse
import json
import os
from dataclasses import asdict

from queryweave.cli.main import fail


def run(args: argparse.Namespace) -> int:
    """Start the server (blocks until interrupted)."""
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
