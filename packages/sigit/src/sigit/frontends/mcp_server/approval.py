"""A permission request as the question an MCP caller's user reads, and what their answer means.

One form for both protocol eras: 2025-11-25 sends it as an `elicitation/create` request during the
call; 2026-07-28 returns it inside the call's `input_required` result (see `asking`). Either way the
user picks allow once, allow for the session or deny (keep it in the sandbox, for a command the
sandbox refused), reading the call, why it asks, and the diff or command. Where nobody can be asked,
`refuse` says which server flag would allow the call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

import mcp_types as types

from ...events import PermissionAsked, PermissionReply

PREVIEW_LIMIT: Final = 4000

_CALL_CHOICES: Final = {
    "allow_once": PermissionReply(True, "once"),
    "allow_session": PermissionReply(True, "session"),
}
_SANDBOX_CHOICES: Final = {"run_once_unsandboxed": PermissionReply(True, "once")}


@dataclass(frozen=True)
class Question:
    """What the caller is asked about one `PermissionAsked`."""

    request: PermissionAsked

    @property
    def leaves_sandbox(self) -> bool:
        return self.request.purpose == "leave_sandbox"

    @property
    def choices(self) -> dict[str, PermissionReply]:
        return _SANDBOX_CHOICES if self.leaves_sandbox else _CALL_CHOICES

    @property
    def options(self) -> list[str]:
        return [*self.choices, "keep_sandbox" if self.leaves_sandbox else "deny"]

    @property
    def message(self) -> str:
        """What the caller's user reads: the call, why it asks, and the diff or command."""
        request = self.request
        if self.leaves_sandbox:
            head = f"{request.title}\nThe sandbox refused it: {request.reason}"
        else:
            head = f"siGit wants to run {request.title}" + (
                f"\nWhy it asks: {request.reason}" if request.reason else ""
            )
        preview = request.preview or ""
        if len(preview) > PREVIEW_LIMIT:
            preview = preview[:PREVIEW_LIMIT] + f"\n... ({len(preview) - PREVIEW_LIMIT} more characters)"
        return f"{head}\n\n{preview}".rstrip()

    @property
    def schema(self) -> dict[str, Any]:
        options = self.options
        return {
            "type": "object",
            "properties": {
                "decision": {"type": "string", "title": "Decision", "enum": options, "description": ", ".join(options)}
            },
            "required": ["decision"],
        }

    def elicitation(self) -> types.ElicitRequest:
        """The form elicitation both eras carry (as a request of its own, or inside `input_required`)."""
        return types.ElicitRequest(
            params=types.ElicitRequestFormParams(message=self.message, requested_schema=self.schema)
        )

    def reply(self, result: types.ElicitResult) -> PermissionReply:
        """The user's answer as the session's reply: anything but an accepted allow choice refuses."""
        name = self.request.name
        if result.action != "accept":
            answer = "declined" if result.action == "decline" else "dismissed"
            return PermissionReply(False, reason=f"The MCP client's user {answer} the request for {name}.")
        decision = (result.content or {}).get("decision")
        reply = self.choices.get(decision) if isinstance(decision, str) else None
        if reply is not None:
            return reply
        if self.leaves_sandbox:
            return PermissionReply(False, reason="The caller chose to keep it in the sandbox; do not retry it.")
        return PermissionReply(False, reason=f"The MCP client's user denied permission to run {name}.")

    def unanswered(self, why: str) -> PermissionReply:
        """Nobody said yes: the request failed, or came back without an answer."""
        return PermissionReply(False, reason=f"The permission request for {self.request.name} {why}.")


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
