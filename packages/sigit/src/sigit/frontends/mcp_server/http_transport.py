"""Streamable HTTP on 127.0.0.1 only (the SDK's app, with its DNS-rebinding protection, on uvicorn)."""

from __future__ import annotations

import asyncio
import socket
import sys
from typing import Any

import uvicorn
from mcp.server.lowlevel import Server

HOST = "127.0.0.1"


async def serve_http(server: Server[Any], port: int) -> None:
    """Serve until interrupted; once listening, one line on stderr names the URL (the port 0 chose)."""
    app = server.streamable_http_app(host=HOST)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((HOST, port))
    bound = sock.getsockname()[1]
    web = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    serving = asyncio.ensure_future(web.serve(sockets=[sock]))
    while not web.started and not serving.done():
        await asyncio.sleep(0.05)
    if web.started:
        print(f"sigit mcp: serving MCP on http://{HOST}:{bound}/mcp", file=sys.stderr, flush=True)
    try:
        await serving
    finally:
        sock.close()
