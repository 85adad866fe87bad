"""Streamable HTTP on 127.0.0.1 only (the SDK's app, with its DNS-rebinding protection, on uvicorn),
behind a bearer token.

Any local user can reach a port on 127.0.0.1, and every tool runs with siGit's user's rights (a
`read_file` of a 0600 file included), so a request must carry `Authorization: Bearer TOKEN`, as
Jupyter does: the token is generated once, kept in `<state dir>/mcp-token` (0600, in a 0700 folder),
and printed on stderr the run it is made, with the lines that register the server in Claude Code and
Codex. A request without it, or with another, gets 401. `--no-auth` turns the check off, with a
warning (the server still listens on loopback only).
"""

from __future__ import annotations

import asyncio
import hmac
import os
import re
import secrets
import socket
import stat
import sys
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any, Final

import uvicorn
from mcp.server.lowlevel import Server

HOST = "127.0.0.1"
TOKEN_FILE: Final = "mcp-token"
_TOKEN_RE = re.compile(r"[A-Za-z0-9_-]{32,128}")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


def token_path() -> Path:
    from ...config.paths import state_dir

    return state_dir() / TOKEN_FILE


def load_or_create_token(path: Path) -> tuple[str, bool]:
    """(the token, whether it was made now). A token file that is not a private regular file of this
    user (a link, group- or world-readable, another owner) or holds no token is replaced: whoever
    could read it may know the old one."""
    existing = _read_token(path)
    if existing is not None:
        return existing, False
    token = secrets.token_urlsafe(32)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, (token + "\n").encode("ascii"))
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return token, True


def _read_token(path: Path) -> str | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid() or info.st_mode & 0o077:
            return None
        text = os.read(fd, 256).decode("ascii", "replace").strip()
    finally:
        os.close(fd)
    return text if _TOKEN_RE.fullmatch(text) else None


class BearerAuth:
    """ASGI middleware: an HTTP request without `Authorization: Bearer <token>` gets 401."""

    def __init__(self, app: App, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode("ascii")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not self._authorised(scope):
            body = b'{"error": "unauthorized: send the bearer token of `sigit mcp` (Authorization: Bearer ...)"}'
            await send({
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"www-authenticate", b'Bearer realm="sigit"'),
                ],
            })
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)

    def _authorised(self, scope: Scope) -> bool:
        given = [value for name, value in scope.get("headers", []) if name.lower() == b"authorization"]
        if len(given) != 1:
            return False
        scheme, _, credential = bytes(given[0]).strip().partition(b" ")
        return scheme.lower() == b"bearer" and hmac.compare_digest(b"Bearer " + credential.strip(), self.expected)


def registration_lines(url: str, token: str, path: Path) -> list[str]:
    """What stderr says the run a token is made: where it is, and how Claude Code and Codex send it."""
    return [
        f"sigit mcp: requests need a bearer token; it was generated now and is kept in {path} (0600):",
        f"  {token}",
        "sigit mcp: register this server in Claude Code with",
        f'  claude mcp add --transport http --header "Authorization: Bearer {token}" sigit {url}',
        "sigit mcp: in Codex, `export SIGIT_MCP_TOKEN=$(cat " + str(path) + ")` and in ~/.codex/config.toml:",
        f'  [mcp_servers.sigit] url = "{url}", bearer_token_env_var = "SIGIT_MCP_TOKEN"',
    ]


async def serve_http(server: Server[Any], port: int, *, auth: bool = True) -> None:
    """Serve until interrupted; once listening, stderr names the URL (the port 0 chose) and where the
    token is (the whole token and how to register it, the run it is made)."""
    app: App = server.streamable_http_app(host=HOST)
    token: str | None = None
    made = False
    path = token_path()
    if auth:
        token, made = load_or_create_token(path)
        app = BearerAuth(app, token)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((HOST, port))
    bound = sock.getsockname()[1]
    # a call waiting for an answer (2026-07-28) keeps its task until the answer or its expiry: shutdown does
    # not wait for it (the session close cancels it)
    web = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on", timeout_graceful_shutdown=2))
    serving = asyncio.ensure_future(web.serve(sockets=[sock]))
    while not web.started and not serving.done():
        await asyncio.sleep(0.05)
    if web.started:
        url = f"http://{HOST}:{bound}/mcp"
        lines = [f"sigit mcp: serving MCP on {url}"]
        if token is None:
            lines.append("sigit mcp: warning: --no-auth: any local user, and any program running as one, can call "
                         "siGit's tools with your rights (read your files, run commands)")
        elif made:
            lines += registration_lines(url, token, path)
        else:
            lines.append(f"sigit mcp: requests need the bearer token kept in {path} (Authorization: Bearer ...)")
        print("\n".join(lines), file=sys.stderr, flush=True)
    try:
        await serving
    finally:
        sock.close()
