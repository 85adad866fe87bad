"""The `initialize` reply as plain JSON, so the first reply goes out before the ACP SDK is imported.

Importing the SDK (about a thousand pydantic models) takes around a second; the editor waits for
this reply, so `serve` answers it from here while the SDK loads in a thread. The server's
`initialize` handler returns the same data, validated.
"""

from __future__ import annotations

import json
from typing import Any

from ... import __version__

PROTOCOL_VERSION = 1  # acp.PROTOCOL_VERSION; a test keeps the two equal


def initialize_result(requested: int, *, image: bool = False) -> dict[str, Any]:
    """`image`: whether the session's model can see (known before it loads: its projector is there)."""
    return {
        "protocolVersion": min(requested, PROTOCOL_VERSION),
        "agentCapabilities": {
            "loadSession": True,
            "promptCapabilities": {"image": image, "audio": False, "embeddedContext": True},
            "mcpCapabilities": {"http": True, "sse": True},  # mcp_client: stdio, streamable HTTP, SSE
            "sessionCapabilities": {"list": {}, "fork": {}, "resume": {}},
        },
        "agentInfo": {"name": "sigit", "title": "siGit Code", "version": __version__},
        "authMethods": [],
    }


def model_sees(model: str | None) -> bool:
    """Whether the model this server will load takes images (its projector is there), before loading it."""
    from onde import default_model, model_can_see

    return model_can_see(model or default_model())


def version_problem(version: Any) -> str | None:
    """Why `protocolVersion` is unusable (it must be a non-negative integer), or None."""
    if isinstance(version, int) and not isinstance(version, bool) and 0 <= version <= 65535:
        return None
    return f"protocolVersion must be a non-negative integer (uint16), got {json.dumps(version)[:80]}"


def fast_initialize(
    message: dict[str, Any], *, image: bool = False
) -> tuple[dict[str, Any], dict[str, Any] | None] | None:
    """(reply, client capabilities) for an initialize request; None to leave it to the SDK.

    A protocolVersion that is not a non-negative integer gets its -32602 reply here (capabilities
    None: the client is not initialized); other malformed params are left to the SDK's validation.
    """
    if message.get("method") != "initialize" or "id" not in message:
        return None
    params = message.get("params")
    if not isinstance(params, dict) or "protocolVersion" not in params:
        return None  # the SDK's validation names what is missing
    problem = version_problem(params.get("protocolVersion"))
    if problem is not None:
        error = {"code": -32602, "message": "Invalid params", "data": {"protocolVersion": problem}}
        return {"jsonrpc": "2.0", "id": message["id"], "error": error}, None
    version = params["protocolVersion"]
    caps = params.get("clientCapabilities")
    if caps is not None and not isinstance(caps, dict):
        return None
    reply = {"jsonrpc": "2.0", "id": message["id"], "result": initialize_result(version, image=image)}
    return reply, caps or {}
