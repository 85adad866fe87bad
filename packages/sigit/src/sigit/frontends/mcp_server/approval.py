"""Permission requests from a running call go back to the MCP caller as form elicitations.

The call being served is kept in a context variable, so one approver serves every session whoever
is calling: the agent asks from inside the call's task (or a task it started, which copies the
context). Where the client cannot be asked (it declared no elicitation, or speaks the 2026 protocol,
which has no server-initiated requests), the request is refused with the flag that would allow it:
the server's `--permission-mode` and `--allow-tool` rules are all that apply.
"""

from __future__ import annotations

import logging
from contextvars import ContextVar
from typing import Any, Final

from mcp.server.context import ServerRequestContext

from ...events import PermissionAsked, PermissionReply

log = logging.getLogger(__name__)

CURRENT_CALL: ContextVar[ServerRequestContext[Any, Any] | None] = ContextVar("sigit_mcp_call", default=None)
"""The `tools/call` request being served in this task."""

PREVIEW_LIMIT: Final = 4000

_CALL_CHOICES: Final = {
    "allow_once": PermissionReply(True, "once"),
    "allow_session": PermissionReply(True, "session"),
}
_SANDBOX_CHOICES: Final = {"run_once_unsandboxed": PermissionReply(True, "once")}


def can_elicit(ctx: ServerRequestContext[Any, Any] | None) -> bool:
    """Whether the caller of `ctx` can be asked: it declared elicitation and this channel may send it a request."""
    if ctx is None:
        return False
    caps = ctx.session.client_capabilities
    return caps is not None and caps.elicitation is not None and ctx.session.can_send_request


async def approve(request: PermissionAsked) -> PermissionReply:
    """The sessions' approver: ask the caller of the call being served, or refuse (nobody to ask)."""
    ctx = CURRENT_CALL.get()
    if ctx is None or not can_elicit(ctx):
        return refuse(request)
    sandbox = request.purpose == "leave_sandbox"
    choices = _SANDBOX_CHOICES if sandbox else _CALL_CHOICES
    options = [*choices, "keep_sandbox" if sandbox else "deny"]
    schema = {
        "type": "object",
        "properties": {
            "decision": {"type": "string", "title": "Decision", "enum": options, "description": ", ".join(options)}
        },
        "required": ["decision"],
    }
    try:
        result = await ctx.session.elicit_form(_message(request), schema, related_request_id=ctx.request_id)
    except Exception as exc:  # the client failed the request: nobody said yes
        log.warning("elicitation failed: %s", exc)
        return PermissionReply(False, reason=f"the permission request to the MCP client failed: {exc}")
    if result.action != "accept":
        answer = "declined" if result.action == "decline" else "dismissed"
        return PermissionReply(False, reason=f"The MCP client's user {answer} the request for {request.name}.")
    decision = (result.content or {}).get("decision")
    reply = choices.get(decision) if isinstance(decision, str) else None
    if reply is None:
        if sandbox:
            return PermissionReply(False, reason="The caller chose to keep it in the sandbox; do not retry it.")
        return PermissionReply(False, reason=f"The MCP client's user denied permission to run {request.name}.")
    return reply


def refuse(request: PermissionAsked) -> PermissionReply:
    """Nobody can be asked: what would ask is refused, with the server flag that allows it."""
    if request.purpose == "leave_sandbox":
        return PermissionReply(
            False,
            reason="Not rerun without the sandbox: the MCP client cannot be asked "
            f"(no elicitation). The user can allow such commands with "
            f"{request.suggested_rule}.",
        )
    why = f" ({request.reason})" if request.reason else ""
    return PermissionReply(
        False,
        reason=f"{request.name} needs permission{why} and the MCP client cannot be asked (no elicitation); "
        f"start `sigit mcp` with --allow-tool {request.suggested_rule!r} (or a --permission-mode that allows it)",
    )


def _message(request: PermissionAsked) -> str:
    """What the caller's user reads: the call, why it asks, and the diff or command."""
    if request.purpose == "leave_sandbox":
        head = f"{request.title}\nThe sandbox refused it: {request.reason}"
    else:
        head = f"siGit wants to run {request.title}" + (f"\nWhy it asks: {request.reason}" if request.reason else "")
    preview = request.preview or ""
    if len(preview) > PREVIEW_LIMIT:
        preview = preview[:PREVIEW_LIMIT] + f"\n... ({len(preview) - PREVIEW_LIMIT} more characters)"
    return f"{head}\n\n{preview}".rstrip()
