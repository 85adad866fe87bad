"""`sigit acp`: the Agent Client Protocol on stdio, for Zed and other ACP editors.

Only protocol messages go to stdout (on a private duplicate of fd 1); logs go to stderr, or to the
file named by `SIGIT_ACP_LOG`. The server exits when stdin closes (at once, with 0, when it is at its end
before any request: `sigit acp < /dev/null`).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from typing import Any

__all__ = ["serve"]

EXIT_OK, EXIT_ERROR, EXIT_INTERRUPTED = 0, 1, 130


def serve(args: argparse.Namespace) -> int:
    from .transport import isolate_stdout, stdin_closed

    if stdin_closed():  # `sigit acp <&-`: no client can ever write; fd 0 would be reused below
        print("sigit: stdin is closed, so no ACP client can talk to `sigit acp`", file=sys.stderr)
        return EXIT_OK
    protocol_fd = isolate_stdout()
    _setup_logging(quiet=bool(getattr(args, "quiet", False)))
    try:
        asyncio.run(_serve(args, protocol_fd))
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except Exception:
        logging.getLogger("sigit.acp").exception("the ACP server failed")
        return EXIT_ERROR
    return EXIT_OK


def _setup_logging(*, quiet: bool) -> None:
    path = os.environ.get("SIGIT_ACP_LOG")
    handler: logging.Handler = logging.FileHandler(path) if path else logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.WARNING if quiet else logging.INFO)


def _load_server() -> Any:
    from acp.agent import connection  # the SDK's (not sigit's) agent package

    from ...app import SessionHost
    from ...options import HostOptions
    from .server import SigitAcpAgent

    return connection.AgentSideConnection, HostOptions, SessionHost, SigitAcpAgent


async def _serve(args: argparse.Namespace, protocol_fd: int) -> None:
    from .handshake import fast_initialize, model_sees
    from .transport import open_stdio

    loading = asyncio.ensure_future(asyncio.to_thread(_load_server))
    transport = await open_stdio(protocol_fd)
    first = await transport.receive()
    client_caps: dict[str, Any] | None = None
    if first is not None:
        fast = fast_initialize(first, image=model_sees(args.model))
        if fast is not None:  # answer at once; the SDK is still loading
            reply, client_caps = fast
            await transport.send(reply)
        else:
            transport.unread(first)
    connection_cls, host_options, host_cls, agent_cls = await loading
    if first is None:
        return
    host = host_cls(host_options(
        model=args.model,
        permission_mode=args.permission_mode,
        sandbox_mode=getattr(args, "sandbox", None),
        allow_tools=tuple(args.allow_tool or ()),
        deny_tools=tuple(args.deny_tool or ()),
        add_dirs=tuple(getattr(args, "add_dir", None) or ()),
        max_rounds=args.max_turns,
        thinking=False if getattr(args, "no_think", False) else None,
        trust=bool(getattr(args, "trust", False)),
        download=bool(getattr(args, "download", False)),
        offline=bool(getattr(args, "offline", False)),
        draft=getattr(args, "draft", None),
        runtime_options={"n_ctx": args.n_ctx} if getattr(args, "n_ctx", None) else {},
        keep_alive=getattr(args, "keep_alive", None),
    ))
    agent = agent_cls(host)
    if client_caps is not None:
        agent.set_client_capabilities(client_caps)
    conn = connection_cls(agent, transport, listening=False, use_unstable_protocol=True)
    try:
        await conn.listen()
        await transport.wait_answered(2.0)  # stdin closed: let requests already read finish
    finally:
        await agent.shutdown()
        await transport.wait_answered(3.0)
        await conn.close()
