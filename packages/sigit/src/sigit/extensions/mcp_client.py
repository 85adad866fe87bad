"""MCP client: connects to the configured MCP servers and offers their tools as `mcp__<server>__<tool>`.

Servers come from the project's `.mcp.json` (Claude Code's format), `[mcp.servers.NAME]` tables in
settings (which override `.mcp.json` by name), and servers an ACP client passes in. Transports:
stdio (`command`, `args`, `env`), streamable HTTP (`type = "http"`, `url`, `headers`), SSE
(`type = "sse"`) and, for servers a frontend builds, a relay (`mcp_relay.py`). Each server lives in
its own task that holds the SDK's session context open, so the context is entered and left in one
task (anyio's rule); tool calls go through the session from any task. A server that fails to start
or dies is reported in `status()`; the others keep working, and a call to a dead server is an error
result, never an exception.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import os
import re
import tempfile
from collections.abc import Mapping, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Final, Literal, cast

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from sigit.config.paths import project_root
from sigit.config.schema_mcp import McpTable, mcp_transport
from sigit.errors import UsageError
from sigit.fileio import read_bounded
from sigit.offline import REASON, is_loopback_url
from sigit.tools.base import PreparedCall, Tool, ToolArgs, ToolContext, ToolOutput, decode_arguments, truncate
from sigit.tools.subjects import UNKNOWN

from .mcp_relay import Relay, relay_transport

log = logging.getLogger(__name__)

MCP_JSON: Final = ".mcp.json"
TOOL_PREFIX: Final = "mcp__"
HANDSHAKE_TIMEOUT: Final = 8.0
CALL_TIMEOUT: Final = 120.0
RESULT_LIMIT: Final = 30_000
CLOSE_TIMEOUT: Final = 6.0
STDERR_TAIL: Final = 2_000

Transport = Literal["stdio", "http", "sse", "relay"]
State = Literal["connecting", "connected", "failed", "closed"]

_NAME_RE = re.compile(r"[^A-Za-z0-9_-]")
_VAR_RE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


class McpConfigError(UsageError, ValueError):
    """A server entry that cannot be used; the message names where it came from."""


@dataclass(frozen=True)
class McpServerConfig:
    name: str
    transport: Transport
    command: str = ""
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    url: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)
    source: str = ""
    relay: Relay | None = field(default=None, compare=False)
    """`relay` transport: how messages reach a server in another process's memory (Claude Agent SDK apps)."""


@dataclass(frozen=True)
class ServerStatus:
    """One line of `/mcp`."""

    name: str
    transport: Transport
    state: State
    error: str | None
    tool_names: tuple[str, ...]
    source: str = ""


# ---------------------------------------------------------------- configuration


def parse_server(
    name: str, raw: Any, source: str, environ: Mapping[str, str] | None = None
) -> McpServerConfig:
    """One server entry in Claude Code's shape; `${VAR}` and `${VAR:-default}` are expanded."""
    where = f"{source}: server `{name}`"
    env_vars = os.environ if environ is None else environ
    if not isinstance(name, str) or not name.strip():
        raise McpConfigError(f"{source}: a server needs a non-empty name")
    if not isinstance(raw, Mapping):
        raise McpConfigError(f"{where} must be a table/object, got {type(raw).__name__}")
    kind = cast(Transport, mcp_transport(raw))
    if kind not in ("stdio", "http", "sse"):
        raise McpConfigError(f'{where}: `type` must be "stdio", "http" or "sse", got {kind!r}')

    def text(value: Any, key: str) -> str:
        if not isinstance(value, str):
            raise McpConfigError(f"{where}: `{key}` must be a string, got {type(value).__name__}")
        return _expand(value, env_vars)

    def table(key: str) -> dict[str, str]:
        value = raw.get(key, {})
        if not isinstance(value, Mapping):
            raise McpConfigError(f"{where}: `{key}` must be a table of strings, got {type(value).__name__}")
        return {str(k): text(v, f"{key}.{k}") for k, v in value.items()}

    if kind == "stdio":
        command = raw.get("command")
        if not isinstance(command, str) or not command.strip():
            raise McpConfigError(f"{where} needs `command` (or `type = \"http\"` with a `url`)")
        args = raw.get("args", [])
        if not isinstance(args, list):
            raise McpConfigError(f"{where}: `args` must be a list of strings, got {type(args).__name__}")
        return McpServerConfig(
            name, "stdio", text(command, "command"), tuple(text(a, "args") for a in args), table("env"),
            source=source,
        )
    raw_url = raw.get("url")
    url = _expand(raw_url, env_vars) if isinstance(raw_url, str) else raw_url
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        raise McpConfigError(f"{where} needs `url`, an http:// or https:// address, got {url!r}")
    return McpServerConfig(name, kind, url=url, headers=table("headers"), source=source)


def _expand(value: str, environ: Mapping[str, str]) -> str:
    return _VAR_RE.sub(lambda m: environ.get(m[1], m[2] if m[2] is not None else m[0]), value)


def parse_servers(raw: Any, source: str) -> tuple[list[McpServerConfig], list[str]]:
    """A `{name: entry}` table; each bad entry becomes a warning instead of stopping the rest."""
    if not isinstance(raw, Mapping):
        return [], [f"{source}: the servers must be a table of name -> server, got {type(raw).__name__}"]
    servers: list[McpServerConfig] = []
    warnings: list[str] = []
    for name, entry in raw.items():
        try:
            servers.append(parse_server(name, entry, source))
        except McpConfigError as exc:
            warnings.append(f"{exc} (server ignored)")
    return servers, warnings


def load_mcp_json(path: Path) -> tuple[list[McpServerConfig], list[str]]:
    """Servers in a `.mcp.json`: `{"mcpServers": {...}}`. A missing file is no servers."""
    try:
        data = json.loads(read_bounded(path).decode("utf-8"))  # a repository's file: maybe a FIFO
    except FileNotFoundError:
        return [], []
    except (OSError, UnicodeDecodeError) as exc:
        return [], [f"{path}: cannot read: {exc}"]
    except json.JSONDecodeError as exc:
        return [], [f"{path}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"]
    if not isinstance(data, dict) or "mcpServers" not in data:
        return [], [f'{path}: expected an object with "mcpServers"']
    return parse_servers(data["mcpServers"], str(path))


def settings_servers(settings_mcp: McpTable | Mapping[str, Any]) -> tuple[list[McpServerConfig], list[str]]:
    """`[mcp.servers.NAME]` tables from settings, which the settings model checked key by key; what
    is left to say is about `${VAR}` expansion (a URL that is not http(s) once expanded)."""
    return parse_servers(settings_mcp.get("servers", {}), "settings [mcp.servers]")


def acp_servers(raw: Sequence[Any]) -> tuple[list[McpServerConfig], list[str]]:
    """ACP `McpServer` shapes (dicts or pydantic models): stdio with `env: [{name, value}]`, or http."""
    servers: list[McpServerConfig] = []
    warnings: list[str] = []
    for item in raw:
        if isinstance(item, McpServerConfig):  # built by a frontend (a relay to an SDK app's server)
            servers.append(item)
            continue
        entry = item.model_dump() if hasattr(item, "model_dump") else item
        if not isinstance(entry, Mapping):
            warnings.append(f"ACP client: an MCP server must be an object, got {type(entry).__name__}")
            continue
        entry = dict(entry)
        for key in ("env", "headers"):
            value = entry.get(key)
            if isinstance(value, list):
                pairs = [pair for pair in value if isinstance(pair, Mapping)]
                entry[key] = {str(pair.get("name")): pair.get("value", "") for pair in pairs}
        name = entry.pop("name", "")
        try:
            servers.append(parse_server(name, entry, "ACP client", environ={}))
        except McpConfigError as exc:
            warnings.append(f"{exc} (server ignored)")
    return servers, warnings


def tool_name_for(server: str, tool: str) -> str:
    """`mcp__<server>__<tool>` with characters outside `[A-Za-z0-9_-]` replaced by `_`."""
    return f"{TOOL_PREFIX}{_NAME_RE.sub('_', server)}__{_NAME_RE.sub('_', tool)}"


# ---------------------------------------------------------------- results


def result_text(result: Any, limit: int = RESULT_LIMIT) -> str:
    """A CallToolResult as text for the model, capped at `limit` characters."""
    parts: list[str] = []
    for block in getattr(result, "content", None) or []:
        kind = getattr(block, "type", "")
        if kind == "text":
            parts.append(str(block.text))
        elif kind in ("image", "audio"):
            size = len(getattr(block, "data", ""))
            parts.append(f"[{kind}: {getattr(block, 'mime_type', '?')}, {size} base64 chars]")
        elif kind == "resource":
            resource = block.resource
            body = getattr(resource, "text", None)
            parts.append(body if isinstance(body, str) else f"[resource {resource.uri}]")
        elif kind == "resource_link":
            parts.append(f"[resource link: {block.uri}]")
        else:
            parts.append(f"[{kind or type(block).__name__} content]")
    structured = getattr(result, "structured_content", None)
    if not parts and structured is not None:
        parts.append(json.dumps(structured, ensure_ascii=False, indent=2, default=str))
    return cap(("\n".join(parts)) or "(no output)", limit)


def cap(text: str, limit: int = RESULT_LIMIT) -> str:
    return truncate(text, limit, lambda kept: f"\n[output truncated: {len(text) - kept} more characters]")


def clean_schema(schema: Any) -> dict[str, Any]:
    """A server's input schema without the `title` noise pydantic servers add (small models read it)."""
    if not isinstance(schema, Mapping):
        return {"type": "object", "properties": {}}
    cleaned: dict[str, Any] = _strip_titles(dict(schema))
    cleaned.setdefault("type", "object")
    if cleaned.get("type") == "object":
        cleaned.setdefault("properties", {})
    return cleaned


def _strip_titles(node: Any) -> Any:
    if isinstance(node, list):
        return [_strip_titles(item) for item in node]
    if not isinstance(node, Mapping):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "title" and isinstance(value, str):
            continue
        if key in ("properties", "$defs", "definitions", "patternProperties") and isinstance(value, Mapping):
            out[key] = {name: _strip_titles(prop) for name, prop in value.items()}
        else:
            out[key] = _strip_titles(value)
    return out


# ---------------------------------------------------------------- tools


async def _unused_run(args: ToolArgs, ctx: ToolContext) -> ToolOutput:
    return ToolOutput("MCP tools are run through invoke()", is_error=True)


@dataclass(frozen=True, eq=False)
class McpTool(Tool[ToolArgs]):
    """A registrable Tool whose schema comes from the server and whose call goes to it."""

    server: str = ""
    remote_name: str = ""
    input_schema: Mapping[str, Any] = field(default_factory=dict)
    connection: _ServerConnection | None = None

    def parameters_schema(self) -> dict[str, Any]:
        return clean_schema(self.input_schema)

    def prepare(self, raw_args: Any, ctx: ToolContext) -> PreparedCall | ToolOutput:
        """The server validates the arguments; what a call touches is unknown, so it is never
        treated as read-only and no path or command rule can vouch for it."""
        arguments = decode_arguments(self.name, raw_args)
        if isinstance(arguments, ToolOutput):
            return arguments
        return PreparedCall(self, arguments, ToolArgs(), UNKNOWN, self.title(arguments))

    async def execute(self, call: PreparedCall, ctx: ToolContext) -> ToolOutput:
        if self.connection is None:
            message = f"{self.name}: not connected to MCP server {self.server!r}"
            return ToolOutput(message, True, title=self.name)
        remote = asyncio.ensure_future(self.connection.call(self.remote_name, call.arguments))
        if ctx.cancel is not None:
            stop = asyncio.ensure_future(ctx.cancel.wait())
            await asyncio.wait({remote, stop}, return_when=asyncio.FIRST_COMPLETED)
            stop.cancel()
            if not remote.done():
                remote.cancel()
                with contextlib.suppress(BaseException):
                    await remote
                return ToolOutput(f"{self.name}: cancelled by the user", True, title=call.title)
        output = await remote
        output.title = call.title
        return output


# ---------------------------------------------------------------- connections


class _ServerConnection:
    """One server: a task holding the transport and session open until `close()`."""

    def __init__(self, config: McpServerConfig, cwd: Path, handshake_timeout: float, call_timeout: float):
        self.config = config
        self.cwd = cwd
        self.handshake_timeout = handshake_timeout
        self.call_timeout = call_timeout
        self.state: State = "connecting"
        self.error: str | None = None
        self.tools: list[McpTool] = []
        self.session: ClientSession | None = None
        self._ready = asyncio.Event()
        self._closing = asyncio.Event()
        self._stderr: IO[str] | None = None
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"mcp server {self.config.name}")

    async def wait_ready(self) -> None:
        try:
            await asyncio.wait_for(self._ready.wait(), self.handshake_timeout + 1)
        except TimeoutError:
            self._fail(f"no answer to the handshake within {self.handshake_timeout:g} s")

    def status(self) -> ServerStatus:
        names = tuple(tool.name for tool in self.tools) if self.state == "connected" else ()
        return ServerStatus(
            self.config.name, self.config.transport, self.state, self.error, names, self.config.source
        )

    async def call(self, tool: str, arguments: dict[str, Any]) -> ToolOutput:
        session = self.session
        if self.state != "connected" or session is None:
            why = f": {self.error}" if self.error else ""
            return ToolOutput(f"MCP server {self.config.name!r} is not available{why}", is_error=True)
        try:
            result = await session.call_tool(tool, arguments, read_timeout_seconds=self.call_timeout)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream) as exc:
            self._fail(f"the server is gone ({type(exc).__name__})")
            return ToolOutput(f"MCP server {self.config.name!r} stopped: {self.error}", is_error=True)
        except TimeoutError:
            return ToolOutput(
                f"MCP tool {tool} on {self.config.name!r} did not answer within {self.call_timeout:g} s",
                is_error=True,
            )
        except Exception as exc:
            message = _describe(exc)
            if _looks_closed(message):
                self._fail(f"the server is gone: {message}{await self._stderr_tail()}")
                return ToolOutput(f"MCP server {self.config.name!r} stopped: {self.error}", is_error=True)
            return ToolOutput(f"MCP tool {tool} on {self.config.name!r} failed: {message}", is_error=True)
        return ToolOutput(result_text(result), is_error=bool(getattr(result, "is_error", False)))

    async def close(self) -> None:
        self._closing.set()
        if self._task is not None and not self._task.done():
            try:
                await asyncio.wait_for(asyncio.shield(self._task), CLOSE_TIMEOUT)
            except (TimeoutError, Exception):
                self._task.cancel()
                with contextlib.suppress(BaseException):
                    await self._task
        if self.state == "connected":
            self.state = "closed"
        if self._stderr is not None:
            self._stderr.close()

    def _fail(self, error: str) -> None:
        if self.state in ("connecting", "connected"):
            self.state = "failed"
            self.error = error
            self.session = None
            log.warning("MCP server %s: %s", self.config.name, error)
        self._ready.set()

    async def _run(self) -> None:
        try:
            with anyio.CancelScope() as scope:
                scope.deadline = anyio.current_time() + self.handshake_timeout
                async with AsyncExitStack() as stack:
                    read, write = await stack.enter_async_context(await self._transport())
                    session = await stack.enter_async_context(ClientSession(read, write))
                    await session.initialize()
                    listing = await self._list_tools(session)
                    scope.deadline = math.inf
                    self._connected(session, listing)
                    await self._closing.wait()
            if scope.cancelled_caught and self.state == "connecting":
                self._fail(f"no answer to the handshake within {self.handshake_timeout:g} s")
        except Exception as exc:
            self._fail(_describe(exc) + await self._stderr_tail())
        finally:
            self._ready.set()

    async def _transport(self) -> contextlib.AbstractAsyncContextManager[Any]:
        config = self.config
        if config.transport == "stdio":
            self._stderr = await asyncio.to_thread(tempfile.TemporaryFile, "w+", encoding="utf-8")
            params = StdioServerParameters(
                command=config.command, args=list(config.args), env=dict(config.env) or None, cwd=self.cwd
            )
            return stdio_client(params, errlog=self._stderr)
        if config.transport == "relay" and config.relay is not None:
            return relay_transport(config.relay)
        if config.transport == "sse":
            return sse_client(config.url, headers=dict(config.headers) or None)
        return _http_transport(config.url, dict(config.headers))

    async def _list_tools(self, session: ClientSession) -> list[Any]:
        tools: list[Any] = []
        listing = await session.list_tools()
        tools.extend(listing.tools)
        pages = 0
        while listing.next_cursor and pages < 50:
            from mcp.types import PaginatedRequestParams

            listing = await session.list_tools(params=PaginatedRequestParams(cursor=listing.next_cursor))
            tools.extend(listing.tools)
            pages += 1
        return tools

    def _connected(self, session: ClientSession, listing: list[Any]) -> None:
        self.session = session
        self.tools = [
            McpTool(
                name=tool_name_for(self.config.name, tool.name),
                description=_description(tool, self.config.name),
                params=ToolArgs,
                run=_unused_run,
                read_only=False,  # mutating unless an allow rule says otherwise
                kind="other",
                subagent_ok=False,
                server=self.config.name,
                remote_name=tool.name,
                input_schema=dict(tool.input_schema or {}),
                connection=self,
            )
            for tool in listing
        ]
        self.state = "connected"
        self._ready.set()

    async def _stderr_tail(self) -> str:
        handle = self._stderr
        if handle is None:
            return ""

        def tail() -> str:
            with contextlib.suppress(Exception):
                handle.flush()
                handle.seek(0)
                return handle.read()[-STDERR_TAIL:].strip()
            return ""

        text = await asyncio.to_thread(tail)
        return f"; server stderr: {text}" if text else ""


@contextlib.asynccontextmanager
async def _http_transport(url: str, headers: dict[str, str]) -> Any:
    async with (
        create_mcp_http_client(headers=headers or None) as client,
        streamable_http_client(url, http_client=client) as streams,
    ):
        yield streams


def _description(tool: Any, server: str) -> str:
    text = (getattr(tool, "description", None) or "").strip()
    return f"{text}\n(from MCP server {server})" if text else f"Tool {tool.name} from MCP server {server}."


def _describe(exc: BaseException) -> str:
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(_describe(inner) for inner in exc.exceptions)
    if isinstance(exc, FileNotFoundError):
        return f"command not found: {exc.filename or exc}"
    if isinstance(exc, OSError) and exc.strerror:
        return f"{exc.strerror}{f': {exc.filename}' if exc.filename else ''}"
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _looks_closed(message: str) -> bool:
    lowered = message.lower()
    return "connection closed" in lowered or "closedresource" in lowered or "brokenresource" in lowered


# ---------------------------------------------------------------- manager


class McpManager:
    """All MCP servers of a session. `start()` once, `tools()` to register, `close()` at the end."""

    def __init__(self, *, handshake_timeout: float = HANDSHAKE_TIMEOUT, call_timeout: float = CALL_TIMEOUT,
                 offline: bool = False):
        self.handshake_timeout = handshake_timeout
        self.offline = offline
        """Only local servers start (stdio, or http/sse at a loopback address): see `sigit.offline`."""
        self.call_timeout = call_timeout
        self.cwd = Path.cwd()
        self._servers: dict[str, _ServerConnection] = {}

    async def start(
        self, cwd: Path, settings_mcp: Mapping[str, Any] | None = None, *, project_file: bool = True
    ) -> list[str]:
        """Connect to the servers in settings and, with `project_file` (a trusted folder), in
        `<project root>/.mcp.json`; returns warnings."""
        self.cwd = Path(os.path.abspath(cwd))
        from_json: list[McpServerConfig] = []
        warnings: list[str] = []
        if project_file:
            root = await asyncio.to_thread(project_root, self.cwd)
            from_json, warnings = await asyncio.to_thread(load_mcp_json, root / MCP_JSON)
        from_settings, more = settings_servers(settings_mcp or {})
        merged = {server.name: server for server in (*from_json, *from_settings)}
        return warnings + more + await self._connect(list(merged.values()))

    async def add_servers(self, servers: Sequence[Any]) -> list[str]:
        """Servers an ACP client passed (stdio or http shapes); a name in use is replaced."""
        configs, warnings = acp_servers(servers)
        return warnings + await self._connect(configs)

    def tools(self) -> list[McpTool]:
        """Tools of the connected servers; a name already taken (after sanitizing) is skipped."""
        tools: dict[str, McpTool] = {}
        for conn in self._servers.values():
            if conn.state == "connected":
                for tool in conn.tools:
                    tools.setdefault(tool.name, tool)
        return list(tools.values())

    def status(self) -> list[ServerStatus]:
        return [conn.status() for conn in self._servers.values()]

    async def close(self) -> None:
        servers, self._servers = list(self._servers.values()), {}
        await asyncio.gather(*(conn.close() for conn in servers), return_exceptions=True)

    async def _connect(self, configs: Sequence[McpServerConfig]) -> list[str]:
        fresh: list[_ServerConnection] = []
        refused: list[str] = []
        if self.offline:
            remote = [c for c in configs if c.transport in ("http", "sse") and not is_loopback_url(c.url)]
            refused = [f"MCP server {c.name} ({c.url}) not started: {REASON}, which allows only local servers "
                       "(stdio, or http at a loopback address)" for c in remote]
            configs = [c for c in configs if c not in remote]
        for config in configs:
            old = self._servers.pop(config.name, None)
            if old is not None:
                await old.close()
            conn = _ServerConnection(config, self.cwd, self.handshake_timeout, self.call_timeout)
            self._servers[config.name] = conn
            conn.start()
            fresh.append(conn)
        await asyncio.gather(*(conn.wait_ready() for conn in fresh))
        failed = [conn for conn in fresh if conn.state == "failed"]
        return refused + [f"MCP server {conn.config.name!r} failed to start: {conn.error}" for conn in failed]


def format_status(statuses: Sequence[ServerStatus]) -> str:
    """The text of `/mcp`."""
    if not statuses:
        return "No MCP servers configured (add them to .mcp.json or [mcp.servers.NAME] in settings)."
    lines: list[str] = []
    for status in statuses:
        lines.append(f"{status.name} ({status.transport}): {status.state}")
        if status.error:
            lines.append(f"  error: {status.error}")
        lines.extend(f"  {name}" for name in status.tool_names)
    return "\n".join(lines)
