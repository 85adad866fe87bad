"""The questions siGit asks the editor through `session/request_permission`, and what the answers mean.

A tool call the policy asks about (allow once, for the session, for the project; reject once or for the
session), a command the sandbox refused (run it once outside, or keep it in), and a folder whose
project files want to run code or loosen safety (trust it, or not). Kept apart from the server's
session handling: each question is one request on the connection, its options and the reply it maps to.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

from acp import text_block, tool_content, tool_diff_content
from acp.helpers import start_tool_call, update_tool_call
from acp.schema import PermissionOption, ToolCallUpdate

from ...app import AgentSession
from ...config.trust import ProjectRequests
from ...events import PermissionAsked, PermissionReply
from .updates import SessionUpdate, as_kind

__all__ = ["ask_permission", "ask_trust"]

log = logging.getLogger("sigit.acp")


async def ask_trust(conn: Any, session_id: str, root: Path, requests: ProjectRequests) -> bool:
    """`session/request_permission` listing what the folder wants: trust it, or run without those parts."""
    wants = "\n".join(f"- {line}" for line in requests.lines)
    text = (f"This folder's project files (.sigit/settings.toml, .mcp.json) want to:\n{wants}\n\n"
            "Trust the folder to apply them? Otherwise the session uses your own settings only "
            "(the project's deny rules still apply).")
    tool_call = ToolCallUpdate(
        tool_call_id=f"trust-folder-{session_id}", title=f"Trust the folder {root}?", status="pending",
        kind="other", content=[tool_content(text_block(text))],
        raw_input={"folder": str(root), "wants": list(requests.lines)},
    )
    options = [
        PermissionOption(option_id="trust", name="Trust this folder", kind="allow_always"),
        PermissionOption(option_id="dont_trust", name="Don't trust", kind="reject_once"),
    ]
    # a card first, as for any tool call, so the editor has something to hang the question on
    card_id = tool_call.tool_call_id
    await _send(conn, session_id, start_tool_call(card_id, tool_call.title or "", kind="other", status="pending",
                                                  content=tool_call.content, raw_input=tool_call.raw_input))
    choice, _failure = await _choose(conn, session_id, tool_call, options)
    trusted = choice == "trust"
    verdict = ("Trusted: the project's settings apply." if trusted
               else "Not trusted: the project's settings are off.")
    await _send(conn, session_id, update_tool_call(card_id, status="completed" if trusted else "failed",
                                                   content=[tool_content(text_block(verdict))]))
    return trusted


async def ask_permission(conn: Any, session_id: str, request: PermissionAsked, session: AgentSession | None
                         ) -> PermissionReply:
    """A tool call the policy asks about; "always reject" denies its rule in `session` (when it is open)."""
    rule = request.suggested_rule
    content: list[Any] = []
    args = request.arguments
    if request.change is not None:
        change = request.change
        content.append(tool_diff_content(change.path, change.new_text, change.old_text))
    elif request.preview:
        content.append(tool_content(text_block(request.preview)))
    if request.reason:
        content.append(tool_content(text_block(request.reason)))
    if request.purpose == "leave_sandbox":
        return await _ask_leave_sandbox(conn, session_id, request, content)
    tool_call = ToolCallUpdate(
        tool_call_id=request.call_id, title=request.title, status="pending", raw_input=args,
        kind=as_kind(request.kind), content=content or None,
    )
    options = [
        PermissionOption(option_id="allow_once", name="Allow once", kind="allow_once"),
        PermissionOption(option_id="allow_always", name=f"Always allow {rule} (this session)",
                         kind="allow_always"),
        PermissionOption(option_id="allow_project", name=f"Always allow {rule} in this project",
                         kind="allow_always"),
        PermissionOption(option_id="reject_once", name="Reject", kind="reject_once"),
        PermissionOption(option_id="reject_always", name=f"Always reject {rule} (this session)",
                         kind="reject_always"),
    ]
    choice, failure = await _choose(conn, session_id, tool_call, options)
    if failure is not None:
        return PermissionReply(False, reason=f"the permission request failed: {failure}")
    if choice is None:
        return PermissionReply(False, reason="the user dismissed the permission request")
    if choice == "allow_once":
        return PermissionReply(True, "once")
    if choice == "allow_always":
        return PermissionReply(True, "session")
    if choice == "allow_project":
        return PermissionReply(True, "project")
    if choice == "reject_always" and session is not None:
        session.deny(rule)
        return PermissionReply(False, reason=f"The user denied {rule} for the rest of this session.")
    return PermissionReply(False)


async def _ask_leave_sandbox(conn: Any, session_id: str, request: PermissionAsked, content: list[Any]
                             ) -> PermissionReply:
    """The sandbox refused a command: run it once without the sandbox, or keep it in (no "always")."""
    content.append(tool_content(text_block(f"To allow such commands for good: {request.suggested_rule}.")))
    tool_call = ToolCallUpdate(
        tool_call_id=request.call_id, title=request.title, status="pending", raw_input=request.arguments,
        kind=as_kind(request.kind), content=content,
    )
    options = [
        PermissionOption(option_id="run_unsandboxed_once", name="Run once without the sandbox",
                         kind="allow_once"),
        PermissionOption(option_id="keep_sandbox", name="Keep the sandbox", kind="reject_once"),
    ]
    choice, failure = await _choose(conn, session_id, tool_call, options)
    if failure is not None:
        return PermissionReply(False, reason=f"the permission request failed: {failure}")
    if choice == "run_unsandboxed_once":
        return PermissionReply(True, "once")
    return PermissionReply(False, reason="The user chose to keep it in the sandbox; do not retry it.")


async def _choose(conn: Any, session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption]
                  ) -> tuple[str | None, str | None]:
    """One `session/request_permission`: (the option picked or None if dismissed, why it failed or None)."""
    try:
        response = await conn.request_permission(session_id=session_id, tool_call=tool_call, options=options)
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        log.warning("permission request failed: %s", exc)
        return None, str(exc)
    outcome = response.outcome
    return (outcome.option_id if outcome.outcome == "selected" else None), None


async def _send(conn: Any, session_id: str, update: SessionUpdate) -> None:
    await conn.session_update(session_id=session_id, update=update)
