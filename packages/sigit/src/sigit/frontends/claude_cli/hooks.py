"""Hooks an SDK app registered at `initialize`, run through `hook_callback` requests.

`PreToolUse` can refuse a call (`decision: "block"`, `permissionDecision: "deny"` or
`continue: false`); `PostToolUse` hears each result; `UserPromptSubmit` can refuse a prompt; `Stop`
hears the end of a turn. They join the session's one hook pipeline, after its settings hooks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ...app import AgentSession, PreparedCall
from ...events import TurnFinished
from .control import ControlChannel, ControlError
from .flags import claude_mode_name
from .tool_names import to_claude

HOOK_EVENTS = ("PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop")


@dataclass(frozen=True)
class Matcher:
    pattern: str | None
    callback_ids: tuple[str, ...]

    def matches(self, tool_name: str) -> bool:
        if not self.pattern or self.pattern == "*":
            return True
        try:
            return re.fullmatch(self.pattern, tool_name) is not None
        except re.error:
            return self.pattern == tool_name


class SdkHooks:
    def __init__(self, control: ControlChannel) -> None:
        self.control = control
        self.matchers: dict[str, list[Matcher]] = {}
        self.unsupported: list[str] = []

    def register(self, config: Any) -> None:
        """`initialize`'s `hooks`: {event: [{matcher, hookCallbackIds}]}."""
        if not isinstance(config, dict):
            return
        for event, entries in config.items():
            if event not in HOOK_EVENTS:
                self.unsupported.append(str(event))
                continue
            for entry in entries if isinstance(entries, list) else []:
                if isinstance(entry, dict):
                    ids = tuple(str(i) for i in entry.get("hookCallbackIds") or ())
                    self.matchers.setdefault(event, []).append(Matcher(entry.get("matcher"), ids))

    def attach(self, session: AgentSession) -> None:
        """Add the app's hooks to the session's pipeline, after its own (settings) hooks; once per session."""
        pipeline = session.hooks
        for event in HOOK_EVENTS:
            pipeline.remove(event)

        async def prompt_submit(prompt: str) -> str | None:
            return await self.user_prompt_submit(session, prompt)

        async def pre_tool(call_id: str, call: PreparedCall) -> str | None:
            return await self.pre_tool_use(session, call_id, call)

        async def post_tool(call_id: str, call: PreparedCall, output: str) -> None:
            await self.post_tool_use(session, call_id, call, output)

        async def stop(_finished: TurnFinished) -> None:
            await self.stop(session)

        pipeline.on_prompt_submit(prompt_submit, name="UserPromptSubmit")
        pipeline.on_pre_tool(pre_tool, name="PreToolUse")
        pipeline.on_post_tool(post_tool, name="PostToolUse")
        pipeline.on_stop(stop, name="Stop")

    async def pre_tool_use(self, session: AgentSession, call_id: str, prepared: PreparedCall) -> str | None:
        name, arguments = to_claude(prepared.name, prepared.arguments, session.tools)
        payload = {"tool_name": name, "tool_input": arguments, "tool_use_id": call_id}
        for answer in await self._run("PreToolUse", session, payload, name):
            refusal = _refusal(answer)
            if refusal is not None:
                return refusal
        return None

    async def post_tool_use(self, session: AgentSession, call_id: str, prepared: PreparedCall, output: str) -> None:
        name, arguments = to_claude(prepared.name, prepared.arguments, session.tools)
        payload = {"tool_name": name, "tool_input": arguments, "tool_response": output, "tool_use_id": call_id}
        await self._run("PostToolUse", session, payload, name)

    async def user_prompt_submit(self, session: AgentSession, prompt: str) -> str | None:
        for answer in await self._run("UserPromptSubmit", session, {"prompt": prompt}, None):
            refusal = _refusal(answer)
            if refusal is not None:
                return refusal
        return None

    async def stop(self, session: AgentSession) -> None:
        await self._run("Stop", session, {"stop_hook_active": False}, None)

    async def _run(self, event: str, session: AgentSession, payload: dict[str, Any],
                   tool_name: str | None) -> list[dict[str, Any]]:
        answers: list[dict[str, Any]] = []
        for matcher in self.matchers.get(event, []):
            if tool_name is not None and not matcher.matches(tool_name):
                continue
            for callback_id in matcher.callback_ids:
                hook_input = {"session_id": session.id, "transcript_path": "", "cwd": str(session.cwd),
                              "permission_mode": claude_mode_name(session.mode), "hook_event_name": event, **payload}
                try:
                    answers.append(await self.control.request({
                        "subtype": "hook_callback", "callback_id": callback_id, "input": hook_input,
                        "tool_use_id": payload.get("tool_use_id"),
                    }))
                except ControlError as exc:
                    answers.append({"_error": str(exc)})
        return answers


def _refusal(answer: dict[str, Any]) -> str | None:
    """Why a hook's answer refuses the call or prompt, or None when it lets it through."""
    specific = answer.get("hookSpecificOutput")
    specific = specific if isinstance(specific, dict) else {}
    if specific.get("permissionDecision") == "deny":
        return str(specific.get("permissionDecisionReason") or answer.get("reason") or "denied by a PreToolUse hook")
    if answer.get("decision") == "block":
        return str(answer.get("reason") or "blocked by a hook")
    if answer.get("continue") is False:
        return str(answer.get("stopReason") or answer.get("reason") or "stopped by a hook")
    return None
