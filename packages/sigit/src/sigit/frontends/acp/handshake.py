"""The `initialize` reply as plain JSON, so the first reply goes out before the ACP SDK is imported.

Importing the SDK (about a thousand pydantic models) takes around a second; the editor waits for
this reply, so `serve` answers it from here while the SDK loads in a thread. The server's
`initialize` handler returns the same data, validated.
"""

from __future__ import annotations

from typing import Any

from ... import __version__

PROTOCOL_VERSION = 1  # acp.PROTOCOL_VERSION; a test keeps the two equal


def initialize_result(requested: int) -> dict[str, Any]:
    return {
        "protocolVersion": min(requested, PROTOCOL_VERSION),
        "agentCapabilities": {
            "loadSession": True,
            "promptCapabilities": {"image": False, "audio": False, "embeddedContext": True},
            "mcpCapabilities": {"http": False, "sse": False},
            "sessionCapabilities": {"list": {}, "fork": {}, "resume": {}},
        },
        "agentInfo": {"name": "sigit", "title": "siGit Code", "version": __version__},
        "authMethods": [],
    }


def fast_initialize(message: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """(reply, client capabilities) for a well-formed initialize request; None to leave it to the SDK."""
    if message.get("method") != "initialize" or "id" not in message:
        return None
    params = message.get("params")
    if not isinstance(params, dict):
        return None
    version = params.get("protocolVersion")
    if not isinstance(version, int) or isinstance(version, bool) or not 0 <= version <= 65535:
        return None
    caps = params.get("clientCapabilities")
    if caps is not None and not isinstance(caps, dict):
        return None
    reply = {"jsonrpc": "2.0", "id": message["id"], "result": initialize_result(version)}
    return reply, caps or {}
