"""Answers to the control requests an SDK sends: `initialize`, `interrupt`, `set_permission_mode`,
`set_model`, `mcp_status`, `get_context_usage`. Anything else is an error response."""

from __future__ import annotations

import asyncio
import os
from typing import Any, Protocol

from ...app import DONT_ASK, AgentSession, SessionHost
from ...errors import UsageError
from ...extensions import CommandSet, discover_commands
from .detect import CLAUDE_MODES
from .flags import ClaudeArgs, claude_mode_name
from .hooks import HOOK_EVENTS, SdkHooks
from .messages import mcp_state
from .setup import Setup, is_claude_model


class ControlledRun(Protocol):
    """What the control requests read and change of the run that receives them (`run.ClaudeRun`)."""

    args: ClaudeArgs
    setup: Setup
    host: SessionHost
    hooks: SdkHooks
    session: AgentSession | None
    """The open session (None until it opens); `set_model` replaces it."""

    def cancel(self) -> None: ...

    def claude_mode(self, session: AgentSession) -> str: ...

    def set_mode(self, session: AgentSession, mode: str) -> str: ...


async def answer_control_request(run: ControlledRun, session: AgentSession, request: dict[str, Any]) -> dict[str, Any]:
    """The `response` object for one request; raises (an error response) for what cannot be done."""
    subtype = request.get("subtype")
    if subtype == "initialize":
        return await initialize(run, session, request)
    if subtype == "interrupt":
        run.cancel()
        return {}
    if subtype == "set_permission_mode":
        mode = request.get("mode")
        if not isinstance(mode, str):
            raise UsageError("set_permission_mode needs a `mode`")
        return {"mode": run.set_mode(run.session or session, mode)}
    if subtype == "set_model":
        return await _set_model(run, request.get("model"))
    if subtype == "mcp_status":
        live = run.session or session
        statuses = live.mcp.status() if live.mcp is not None else []
        return {"mcpServers": [_server(s) for s in statuses]}
    if subtype == "get_context_usage":
        return context_usage(run.session or session)
    raise UsageError(f"Unsupported control request subtype: {subtype}")


async def initialize(run: ControlledRun, session: AgentSession | None, request: dict[str, Any]) -> dict[str, Any]:
    """Register the app's hooks and say what we offer; before the session is open (the model may take
    minutes to load), the commands and the model come from the settings files."""
    run.hooks.register(request.get("hooks"))
    if session is not None:
        commands, model, mode = session.commands, session.session.model, run.claude_mode(session)
    else:
        commands, model = await asyncio.to_thread(_before_open, run)
        mode = "dontAsk" if run.args.permission_mode == DONT_ASK else claude_mode_name(
            run.setup.host_options.permission_mode or "default")
    return {
        "commands": [{"name": c.name, "description": c.description, "argumentHint": c.argument_hint}
                     for c in commands.commands],
        "output_style": "default",
        "available_output_styles": ["default"],
        "models": [{"value": model, "displayName": model, "description": "the configured local model"}],
        "permission_modes": list(CLAUDE_MODES),
        "permissionMode": mode,
        "account": {},
        "pid": os.getpid(),
        "capabilities": {"can_use_tool": run.args.permission_prompt_tool == "stdio",
                         "hooks": list(HOOK_EVENTS), "sdk_mcp_servers": True, "interrupt": True},
        "hook_on_failure_supported": False,
    }


def _before_open(run: ControlledRun) -> tuple[CommandSet, str]:
    cwd = run.setup.cwd
    commands = discover_commands(cwd, run.host.config_dir)
    return commands, run.host.model_name(run.host.settings(cwd))


async def _set_model(run: ControlledRun, model: Any) -> dict[str, Any]:
    live = run.session
    if live is None:
        raise UsageError("no session yet")
    if model is not None and not isinstance(model, str):
        raise UsageError("set_model needs a model name or null")
    name = model if model and not is_claude_model(model) else run.host.model_name(live.settings)
    switched = await run.host.switch_model(live, name)
    if switched is not live:
        run.setup.apply(switched)
        run.hooks.attach(switched)
    run.session = switched
    return {"model": switched.session.model}


def _server(status: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": status.name, "status": mcp_state(status.state),
                             "config": {"type": status.transport}, "scope": status.source or "project"}
    if status.error:
        entry["error"] = status.error
    return entry


def context_usage(session: AgentSession) -> dict[str, Any]:
    status = session.status()
    used = status.context_used or 0
    size = status.context_size or 0
    return {
        "categories": [{"name": "Messages", "tokens": used, "color": "default"}],
        "totalTokens": used, "maxTokens": size, "rawMaxTokens": size,
        "percentage": round(100 * used / size, 1) if size else 0.0, "model": status.model,
        "isAutoCompactEnabled": session.auto_compact, "memoryFiles": [], "mcpTools": [],
        "agents": [], "gridRows": [],
    }
