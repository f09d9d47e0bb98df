"""`queryweave serve [--host H] [--port P]`: the web app (LangServe endpoint, API and search page)."""

from __future__ import annotations

import argparse

from queryweave.cli.main import fail


def run(args: argparse.Namespace) -> int:
    """Start the server (blocks until interrupted)."""
    try:
        import uvicorn

        from queryweave.server.app import create_app
    except ImportError as exc:
        return fail(f"serving needs the serve extra ({exc.name} is missing): pip install 'queryweave[serve]'")
    app = create_app(args.context)
    print(f"queryweave: serving {args.context.data_dir} on http://{args.host}:{args.port}/ "
          f"(LangServe at /queryweave, playground at /queryweave/playground/)", flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add `serve`."""
    p = sub.add_parser("serve", help="serve the API and the web page (LangServe + FastAPI)")
    p.add_argument("--host", default="127.0.0.1", help="interface to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"])
    p.set_defaults(func=run)
