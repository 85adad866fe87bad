"""`[mcp]` in settings.toml: MCP servers (Claude Code's entry shape) and the timeouts, checked key by key.

Part of the settings model (`schema`); `sigit.extensions.mcp_client` starts the servers it describes.
"""

from collections.abc import Mapping
from typing import Annotated, Any, Literal, get_args

from pydantic import AfterValidator, ConfigDict, Field, with_config
from typing_extensions import TypedDict

from sigit.config.schema_keys import Key, Text, choices, finite

__all__ = ["MCP_TRANSPORTS", "McpServer", "McpTable", "McpTransport", "mcp_transport"]

McpTransport = Literal["stdio", "http", "sse", "streamable-http"]
MCP_TRANSPORTS: tuple[str, ...] = get_args(McpTransport)
_ENV_REFERENCE = "${"


def mcp_transport(entry: Mapping[str, Any]) -> str:
    """How a server entry (Claude Code's shape) is reached: its `type` (or `transport`), else `http`
    when it has a `url` and no `command`, else `stdio`; `streamable-http` is `http`."""
    kind = entry.get("type", entry.get("transport"))
    if kind is None:
        kind = "http" if "url" in entry and "command" not in entry else "stdio"
    return "http" if kind == "streamable-http" else str(kind)


@with_config(ConfigDict(extra="forbid"))
class McpServer(TypedDict, total=False):
    """`[mcp.servers.NAME]`: a local server started as a command, or a remote one at a URL.
    `${VAR}` and `${VAR:-default}` in strings are expanded when the server starts."""

    type: Annotated[McpTransport, Key(choices(MCP_TRANSPORTS))]
    transport: Annotated[McpTransport, Key(choices(MCP_TRANSPORTS))]
    command: Annotated[Text, Key("a non-empty command")]
    args: Annotated[list[str], Key("a list of strings")]
    env: Annotated[dict[str, str], Key("a table of strings")]
    url: Annotated[Text, Key("an http:// or https:// address")]
    headers: Annotated[dict[str, str], Key("a table of strings")]


def _server(entry: McpServer) -> McpServer:
    if mcp_transport(entry) == "stdio":
        if "command" not in entry:
            raise ValueError('a server needs `command` (or `type = "http"` with a `url`)')
    elif not entry.get("url", "").startswith(("http://", "https://", _ENV_REFERENCE)):
        raise ValueError(f"a server of type {mcp_transport(entry)} needs `url`, an http:// or https:// address")
    return entry


@with_config(ConfigDict(extra="forbid"))
class McpTable(TypedDict, total=False):
    """`[mcp]`: the servers and the timeouts."""

    servers: Annotated[dict[str, Annotated[McpServer, AfterValidator(_server)]], Key("a table of servers")]
    handshake_timeout_secs: Annotated[float, Field(gt=0), AfterValidator(finite), Key("seconds above 0")]
    call_timeout_secs: Annotated[float, Field(gt=0), AfterValidator(finite), Key("seconds above 0")]
