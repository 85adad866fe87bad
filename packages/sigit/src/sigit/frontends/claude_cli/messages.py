"""The JSON lines Claude Code writes, in the shapes the Agent SDKs' parsers require.

The Python SDK refuses an `assistant` message without `message.model`, a `thinking` block without
`signature`, a `result` without `duration_api_ms`, a `stream_event` without `uuid`; these builders
always write every field the SDKs read.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from ... import __version__
from ...events import TurnFinished
from ..usage import RESULT_SUBTYPES as RESULT_SUBTYPES  # re-exported: it lives beside claude_usage, for headless too
from ..usage import claude_usage


def mcp_state(state: str) -> str:
    """An MCP server's state (ours: connecting, connected, failed, closed) as Claude Code names it."""
    return {"connected": "connected", "failed": "failed"}.get(state, "pending")


def new_uuid() -> str:
    return str(uuid.uuid4())


def system_init(*, session_id: str, cwd: str, model: str, tools: list[str], permission_mode: str,
                mcp_servers: list[dict[str, str]], slash_commands: list[str], version: str) -> dict[str, Any]:
    return {
        "type": "system", "subtype": "init", "session_id": session_id, "uuid": new_uuid(), "cwd": cwd,
        "model": model, "tools": tools, "permissionMode": permission_mode, "mcp_servers": mcp_servers,
        "slash_commands": slash_commands, "apiKeySource": "none", "output_style": "default",
        "agents": [], "skills": [], "plugins": [], "claude_code_version": version, "sigit_version": __version__,
    }


def assistant(content: list[dict[str, Any]], *, model: str, session_id: str, message_id: str,
              usage: dict[str, int] | None = None) -> dict[str, Any]:
    return {
        "type": "assistant", "parent_tool_use_id": None, "session_id": session_id, "uuid": new_uuid(),
        "message": {
            "id": message_id, "type": "message", "role": "assistant", "model": model, "content": content,
            "stop_reason": None, "stop_sequence": None, "usage": _usage(usage or {}),
        },
    }


def text_block(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def thinking_block(text: str) -> dict[str, Any]:
    return {"type": "thinking", "thinking": text, "signature": ""}


def tool_use_block(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": arguments}


def tool_result(call_id: str, output: str, is_error: bool, *, session_id: str) -> dict[str, Any]:
    return {
        "type": "user", "parent_tool_use_id": None, "session_id": session_id, "uuid": new_uuid(),
        "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": call_id, "content": output, "is_error": is_error},
        ]},
        "tool_use_result": output,
    }


def stream_event(event: dict[str, Any], *, session_id: str) -> dict[str, Any]:
    return {"type": "stream_event", "uuid": new_uuid(), "session_id": session_id, "event": event,
            "parent_tool_use_id": None}


def result(finished: TurnFinished | None, *, duration_ms: int, session_id: str, error: str | None = None,
           denials: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The turn's `result`; `finished` None is a run that failed before or outside a turn (`error`)."""
    if finished is None:
        subtype, text, is_error = "error_during_execution", error or "", True
        usage: dict[str, int | float | bool] = {}
    else:
        subtype = RESULT_SUBTYPES.get(finished.stop_reason, "error_during_execution")
        is_error = subtype != "success"
        text = finished.text if not finished.error else f"{finished.text}\n{finished.error}".strip()
        usage = claude_usage(finished.usage)
    obj: dict[str, Any] = {
        "type": "result", "subtype": subtype, "is_error": is_error, "duration_ms": duration_ms,
        "duration_api_ms": duration_ms, "num_turns": finished.rounds if finished else 0, "result": text,
        "session_id": session_id, "total_cost_usd": 0.0, "usage": _usage(usage), "modelUsage": {},
        "permission_denials": denials or [], "uuid": new_uuid(),
        "stop_reason": finished.stop_reason if finished else "error",
    }
    if is_error:
        obj["errors"] = [text] if text else [subtype]
    return obj


def control_response(request_id: str, response: dict[str, Any] | None = None, *,
                     error: str | None = None) -> dict[str, Any]:
    if error is not None:
        return {"type": "control_response",
                "response": {"subtype": "error", "request_id": request_id, "error": error}}
    return {"type": "control_response",
            "response": {"subtype": "success", "request_id": request_id, "response": response or {}}}


def _usage(usage: Mapping[str, int | float | bool]) -> dict[str, int]:
    return {"input_tokens": int(usage.get("input_tokens", 0)), "output_tokens": int(usage.get("output_tokens", 0)),
            "cache_read_input_tokens": int(usage.get("cache_read_input_tokens", 0)),
            "cache_creation_input_tokens": 0}
