"""One ordered hook pipeline per session: every hook, whoever registered it, runs through here.

Settings hooks (`[[hooks.pre_tool_use]]`, shell commands) are registered when the session opens; a
frontend adds its own after them (the Claude CLI: the hooks an SDK app registered at `initialize`).
At each point the hooks run in the order they were added; at the points that can refuse
(`prompt_submit`, `pre_tool`) the first refusal stops the rest and is what the user hears.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Final, Literal, TypeAlias

from ..events import TurnFinished
from ..tools.base import PreparedCall

HookPoint: TypeAlias = Literal["session_start", "prompt_submit", "pre_tool", "post_tool", "stop"]
HOOK_POINTS: Final[tuple[HookPoint, ...]] = ("session_start", "prompt_submit", "pre_tool", "post_tool", "stop")

SessionStartHook = Callable[[], Awaitable[object]]
PromptSubmitHook = Callable[[str], Awaitable[str | None]]
"""The prompt the user submitted -> why it is refused, or None to let it through."""
PreToolHook = Callable[[str, PreparedCall], Awaitable[str | None]]
"""(call id, the call, validated and judged allowed) -> why it must not run, or None."""
PostToolHook = Callable[[str, PreparedCall, str], Awaitable[object]]
"""(call id, the call, the output text the model reads) after it ran."""
StopHook = Callable[[TurnFinished], Awaitable[object]]
"""The turn's end, after the agent answered (not after a refused prompt)."""


@dataclass(frozen=True)
class Refusal:
    """A hook refused the prompt or the call: `reason` is its message, `hook` its name (`user_prompt_submit`
    for a settings hook, `UserPromptSubmit` for an SDK app's), so the user hears which one it was."""

    reason: str
    hook: str


@dataclass(frozen=True)
class _Entry:
    name: str
    run: Callable[..., Awaitable[Any]]


class HookPipeline:
    """The session's hooks at each point, in the order they were added."""

    def __init__(self) -> None:
        self._entries: dict[HookPoint, list[_Entry]] = {point: [] for point in HOOK_POINTS}

    def has(self, point: HookPoint) -> bool:
        return bool(self._entries[point])

    def names(self, point: HookPoint) -> list[str]:
        """The hooks at `point`, in the order they run (for `/status` and tests)."""
        return [entry.name for entry in self._entries[point]]

    def on_session_start(self, hook: SessionStartHook, *, name: str = "session_start") -> None:
        self._add("session_start", name, hook)

    def on_prompt_submit(self, hook: PromptSubmitHook, *, name: str = "prompt_submit") -> None:
        self._add("prompt_submit", name, hook)

    def on_pre_tool(self, hook: PreToolHook, *, name: str = "pre_tool") -> None:
        self._add("pre_tool", name, hook)

    def on_post_tool(self, hook: PostToolHook, *, name: str = "post_tool") -> None:
        self._add("post_tool", name, hook)

    def on_stop(self, hook: StopHook, *, name: str = "stop") -> None:
        self._add("stop", name, hook)

    def remove(self, name: str) -> int:
        """Drop every hook called `name` at every point (a frontend registering again); how many went."""
        removed = 0
        for point, entries in self._entries.items():
            kept = [entry for entry in entries if entry.name != name]
            removed += len(entries) - len(kept)
            self._entries[point] = kept
        return removed

    def _add(self, point: HookPoint, name: str, hook: Callable[..., Awaitable[Any]]) -> None:
        self._entries[point].append(_Entry(name, hook))

    # ------------------------------------------------------------------ running them

    async def session_start(self) -> None:
        for entry in list(self._entries["session_start"]):
            await entry.run()

    async def prompt_submit(self, prompt: str) -> Refusal | None:
        return await self._until_refused("prompt_submit", prompt)

    async def pre_tool(self, call_id: str, call: PreparedCall) -> Refusal | None:
        return await self._until_refused("pre_tool", call_id, call)

    async def post_tool(self, call_id: str, call: PreparedCall, output: str) -> None:
        for entry in list(self._entries["post_tool"]):
            await entry.run(call_id, call, output)

    async def stop(self, finished: TurnFinished) -> None:
        for entry in list(self._entries["stop"]):
            await entry.run(finished)

    async def _until_refused(self, point: HookPoint, *args: Any) -> Refusal | None:
        for entry in list(self._entries[point]):
            reason = await entry.run(*args)
            if reason is not None:
                return Refusal(str(reason), entry.name)
        return None
