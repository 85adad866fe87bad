"""A real stdio MCP server for the client tests (run as a subprocess with sys.executable)."""

from __future__ import annotations

import os
import sys

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

app = MCPServer("fixture")


@app.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@app.tool()
def echo(text: str) -> str:
    """Echo the text back."""
    return text


@app.tool()
def big(size: int) -> str:
    """Return `size` characters."""
    return "x" * size


@app.tool()
def env(name: str) -> str:
    """The value of an environment variable in the server."""
    return os.environ.get(name, "<unset>")


@app.tool()
def fail(message: str) -> str:
    """Raise an error with the message."""
    raise ToolError(message)


@app.tool()
async def sleep(seconds: float) -> str:
    """Sleep, then answer."""
    await anyio.sleep(seconds)
    return "woke"


@app.tool()
def die() -> str:
    """Exit the server process at once."""
    os._exit(3)


if __name__ == "__main__":
    if "--crash" in sys.argv:
        print("fixture refused to start: bad config", file=sys.stderr, flush=True)
        sys.exit(1)
    if "--http" in sys.argv:
        app.run("streamable-http", port=int(sys.argv[sys.argv.index("--http") + 1]))
    else:
        app.run()
