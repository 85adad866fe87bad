"""`sigit mcp`: siGit as an MCP server, so another agent (Claude Code, Codex, Zed) hands it work.

stdio by default; `--port N` serves streamable HTTP on 127.0.0.1 instead (`/mcp`; 0 picks a free port,
and a line on stderr says which), behind a bearer token (`--no-auth`: none, with a warning). Only
protocol messages go to stdout; logs go to the log file (and stderr with --verbose). The flags are
`sigit -p`'s: the model, the permission mode (also the loosest a caller may ask for),
`--allow-tool`/`--deny-tool` rules, the sandbox, `--trust`. The server's roots are fixed at start
(`--cwd` and `--add-dir`): a call's `workspace` or `cwd` may only name a folder inside one.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path
from typing import Any

__all__ = ["build_parser", "capabilities", "run_mcp"]

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


def capabilities() -> dict[str, Any]:
    """What the server offers (`sigit doctor` shows it); the tool registry loads only when asked."""
    from .offered import capabilities as offered

    return offered()


def build_parser() -> argparse.ArgumentParser:
    from ...config.schema import PERMISSION_MODES
    from ...sandbox import MODES as SANDBOX_MODES

    parser = argparse.ArgumentParser(
        prog="sigit mcp",
        description="Serve siGit as an MCP server: run_task (a whole task on the local model) "
        "and sigit's file, search and command tools. stdio unless --port is given.",
    )
    parser.add_argument(
        "--port",
        type=int,
        default=None,
        help="serve streamable HTTP on 127.0.0.1:PORT/mcp instead of stdio (0: any free port, named on stderr)",
    )
    parser.add_argument(
        "--no-auth",
        action="store_true",
        help="with --port: accept requests without the bearer token (any local user reaches the tools)",
    )
    parser.add_argument(
        "--cwd",
        default=None,
        help="the workspace of calls that name none, and a root: a call's workspace must lie inside "
        "it or an --add-dir (default: here)",
    )
    parser.add_argument("--model", default=None, help="the model run_task uses unless a call names one")
    parser.add_argument(
        "--permission-mode",
        choices=PERMISSION_MODES,
        default=None,
        help="the mode tasks run in, and the loosest one a caller may ask for",
    )
    parser.add_argument(
        "--sandbox",
        choices=SANDBOX_MODES,
        default=None,
        metavar="MODE",
        help="where commands may write: read-only, workspace-write (the default) or off",
    )
    parser.add_argument(
        "--allow-tool",
        action="append",
        default=[],
        metavar="RULE",
        help="allow a tool or rule pattern without asking, e.g. 'run_command(pytest *)'",
    )
    parser.add_argument("--deny-tool", action="append", default=[], metavar="RULE")
    parser.add_argument(
        "--add-dir",
        action="append",
        default=[],
        metavar="DIR",
        help="let the file tools read DIR too, and let calls name a workspace inside it (repeatable)",
    )
    parser.add_argument(
        "--max-turns", type=int, default=24, help="rounds of tool calls per task (a call may ask for another number)"
    )
    parser.add_argument("--no-think", action="store_true", help="turn the model's thinking off")
    parser.add_argument(
        "--trust",
        action="store_true",
        help="trust the workspaces' project settings, hooks "
        "and MCP servers (otherwise only folders trusted with `sigit trust` get them)",
    )
    parser.add_argument("--download", action="store_true", help="let a task download its model if needed")
    parser.add_argument("--verbose", action="store_true", help="also show the log on stderr")
    return parser


def run_mcp(argv: list[str]) -> int:
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:
        return EXIT_OK if exc.code in (0, None) else EXIT_USAGE
    problem = _check(args)
    if problem is not None:
        print(f"sigit mcp: {problem}", file=sys.stderr)
        return EXIT_USAGE
    from ...logs import setup_logging

    setup_logging(verbose=args.verbose)
    try:
        asyncio.run(_serve(args))
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except OSError as exc:  # the port is taken, most often
        print(f"sigit mcp: {exc}", file=sys.stderr)
        return EXIT_ERROR
    return EXIT_OK


def _check(args: argparse.Namespace) -> str | None:
    if args.max_turns < 1:
        return "--max-turns must be at least 1"
    if args.port is not None and not 0 <= args.port <= 65535:
        return f"--port must be between 0 and 65535, not {args.port}"
    if args.no_auth and args.port is None:
        return "--no-auth applies to HTTP only (--port); stdio has no one else to keep out"
    args.cwd = os.path.abspath(args.cwd or os.getcwd())
    if not os.path.isdir(args.cwd):
        return f"--cwd {args.cwd} is not a directory"
    args.add_dir = [os.path.abspath(os.path.expanduser(d)) for d in args.add_dir]
    for directory in args.add_dir:
        if not os.path.isdir(directory):
            return f"--add-dir {directory} is not a directory"
    return None


async def _serve(args: argparse.Namespace) -> None:
    from ..host_args import host_options
    from .server import SigitMcp

    args.image = []
    roots = [Path(args.cwd).resolve(), *(Path(directory).resolve() for directory in args.add_dir)]
    frontend = SigitMcp(host_options(args), roots[0], roots=roots)
    server = frontend.server()
    try:
        if args.port is None:
            from mcp.server.stdio import stdio_server

            async with stdio_server() as (read, write):
                await server.run(read, write, server.create_initialization_options())
        else:
            from .http_transport import serve_http

            await serve_http(server, args.port, auth=not args.no_auth)
    finally:
        await frontend.close()
