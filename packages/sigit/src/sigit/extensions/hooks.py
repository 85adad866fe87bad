"""Hooks: shell commands run at points of a session, configured in settings.

```toml
[[hooks.pre_tool_use]]
command = "./scripts/check.sh"
matcher = "run_command(git push*)"   # optional: a tool name or a permission-rule pattern
timeout_secs = 10                    # optional, 30 by default
```

Events: session_start, user_prompt_submit, pre_tool_use, post_tool_use, stop. Each hook runs as
`sh -c COMMAND` in its own process group, in the session's cwd, with a JSON payload on stdin and
`SIGIT_HOOK_*` variables. Exit 0 is success; exit 2 from pre_tool_use or user_prompt_submit blocks
the call or prompt and its stderr is the reason; any other status is a warning only. A hook that
runs past its timeout has its whole process group killed. Entries are checked with the other settings
(`sigit.config.schema_hooks`): a bad one is an error naming its key, before anything runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from sigit.config.rules import Rule, parse_rule
from sigit.config.schema_hooks import (
    DEFAULT_HOOK_TIMEOUT_SECS,
    HOOK_EVENTS,
    TOOL_HOOK_EVENTS,
    HooksTable,
    matcher_alternatives,
)
from sigit.config.script_pins import named_files
from sigit.permissions.rules import CallSubject, subject_matches
from sigit.tools import reaper
from sigit.tools.base import PreparedCall
from sigit.tools.processes import OutputBuffer, kill_group, pump, wait_exit

log = logging.getLogger(__name__)

EVENTS: Final = HOOK_EVENTS
TOOL_EVENTS: Final = TOOL_HOOK_EVENTS
BLOCKING_EVENTS: Final = frozenset({"pre_tool_use", "user_prompt_submit"})
BLOCK_EXIT_CODE: Final = 2
DEFAULT_TIMEOUT_SECS: Final = DEFAULT_HOOK_TIMEOUT_SECS
OUTPUT_LIMIT: Final = 10_000  # bytes of a hook's stdout/stderr kept for messages (head and tail)


@dataclass(frozen=True)
class HookConfig:
    event: str
    command: str
    matcher: str | None = None
    timeout_secs: float = DEFAULT_TIMEOUT_SECS
    rules: tuple[Rule, ...] = ()  # the matcher parsed; empty means every tool

    def matches(self, call: PreparedCall | None, cwd: Path) -> bool:
        """Whether the hook runs for this call: judged like a deny rule, on the paths and command
        the call declares (normalised as the permission policy sees them)."""
        if not self.rules or call is None:
            return True
        subject = CallSubject.of(call, cwd)
        return any(
            rule.matches_tool(call.name, call.tool.rule_names) and subject_matches(rule, subject, cwd)
            for rule in self.rules
        )


@dataclass(frozen=True)
class HookResult:
    """What one hook process did."""

    command: str
    exit_code: int | None  # None when it was killed for running too long
    stdout: str
    stderr: str
    timed_out: bool = False


@dataclass
class HookOutcome:
    """All hooks of one event: `blocked` with `message` when a hook exited 2 on a blocking event."""

    blocked: bool = False
    message: str = ""
    outputs: list[HookResult] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def hook_configs(table: Mapping[str, Any]) -> dict[str, list[HookConfig]]:
    """The `[hooks]` table (as the settings model checked it: `sigit.config.schema_hooks.HooksTable`) as
    hooks per event."""
    hooks: dict[str, list[HookConfig]] = {event: [] for event in EVENTS}
    for event, entries in table.items():
        for entry in entries:
            matcher = entry.get("matcher")
            rules = tuple(parse_rule(alt) for alt in matcher_alternatives(matcher)) if matcher is not None else ()
            hooks[event].append(
                HookConfig(event, entry["command"], matcher, float(entry.get("timeout_secs", DEFAULT_TIMEOUT_SECS)),
                           rules)
            )
    return hooks



class HookRunner:
    """Runs the configured hooks of one session. Hooks never raise: problems become warnings."""

    def __init__(
        self,
        settings_hooks: HooksTable | Mapping[str, Any],
        *,
        cwd: Path,
        session_id: str,
        on_warning: Callable[[str], None] | None = None,
    ) -> None:
        self.cwd = Path(os.path.abspath(cwd))
        self.session_id = session_id
        self.on_warning = on_warning
        self.hooks = hook_configs(settings_hooks)
        self._pins = {hook.command: named_files(hook.command, self.cwd) for hooks in self.hooks.values()
                      for hook in hooks}

    def has(self, event: str) -> bool:
        return bool(self.hooks.get(event))

    async def run(
        self,
        event: str,
        payload: Mapping[str, Any] | None = None,
        call: PreparedCall | None = None,
    ) -> HookOutcome:
        """Run the event's matching hooks in order; a block stops the rest."""
        if event not in EVENTS:
            raise ValueError(f"unknown hook event {event!r}; events are {', '.join(EVENTS)}")
        outcome = HookOutcome()
        tool_name = call.name if call is not None else None
        args: Mapping[str, Any] = call.arguments if call is not None else {}
        hooks = [hook for hook in self.hooks[event] if hook.matches(call, self.cwd)]
        if not hooks:
            return outcome
        body: dict[str, Any] = {
            "event": event,
            "hook_event_name": event,
            "session_id": self.session_id,
            "cwd": str(self.cwd),
        }
        if tool_name is not None:
            body["tool_name"] = tool_name
            body["tool_input"] = dict(args)
        body.update(payload or {})
        env = {
            **os.environ,
            "SIGIT_HOOK_EVENT": event,
            "SIGIT_HOOK_TOOL": tool_name or "",
            "SIGIT_HOOK_SESSION_ID": self.session_id,
            "SIGIT_HOOK_CWD": str(self.cwd),
            "SIGIT_HOOK_INPUT": json.dumps(dict(args), ensure_ascii=False, default=str),
        }
        stdin = json.dumps(body, ensure_ascii=False, default=str).encode()
        for hook in hooks:
            result = await self._run_one(hook, stdin, env)
            outcome.outputs.append(result)
            label = f"{event} hook `{_short(hook.command)}`"
            if result.timed_out:
                self._warn(outcome, f"{label} timed out after {hook.timeout_secs:g} s and was killed")
            elif result.exit_code == BLOCK_EXIT_CODE and event in BLOCKING_EVENTS:
                outcome.blocked = True
                outcome.message = result.stderr.strip() or f"{label} exited with status 2"
                return outcome
            elif result.exit_code != 0:
                detail = result.stderr.strip().splitlines()[-1:] if result.stderr.strip() else []
                suffix = f": {detail[0]}" if detail else ""
                self._warn(outcome, f"{label} failed with status {result.exit_code}{suffix}")
        return outcome

    async def pre_tool_use(self, call: PreparedCall) -> str | None:
        """Fits the agent loop's PreToolHook: the reason to block, or None to let the call run."""
        outcome = await self.run("pre_tool_use", call=call)
        return outcome.message if outcome.blocked else None

    async def post_tool_use(self, call: PreparedCall, output_text: str) -> HookOutcome:
        payload = {"tool_output": output_text, "tool_response": output_text}
        return await self.run("post_tool_use", payload, call=call)

    async def session_start(self) -> HookOutcome:
        return await self.run("session_start")

    async def user_prompt_submit(self, prompt: str) -> str | None:
        """The reason to refuse the prompt (a hook exited 2), or None."""
        outcome = await self.run("user_prompt_submit", {"prompt": prompt})
        return outcome.message if outcome.blocked else None

    async def stop(self) -> HookOutcome:
        return await self.run("stop")

    def _warn(self, outcome: HookOutcome, message: str) -> None:
        outcome.warnings.append(message)
        log.warning("%s", message)
        if self.on_warning is not None:
            self.on_warning(message)

    async def _run_one(self, hook: HookConfig, stdin: bytes, env: dict[str, str]) -> HookResult:
        changed = [str(p) for p, digest in named_files(hook.command, self.cwd).items()
                   if self._pins.get(hook.command, {}).get(p) != digest]
        if changed:  # a hook runs outside the sandbox: a script the session rewrote would run unconfined
            return HookResult(hook.command, 127, "", f"not run: {', '.join(changed)} changed since the session "
                              "started (a hook runs outside the sandbox); start a new session to run it as it is now")
        env = reaper.marked_env(env)  # what the hook leaves running ends with it
        try:
            proc = await asyncio.create_subprocess_exec(
                "sh", "-c", hook.command,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                cwd=self.cwd,
                env=env,
                start_new_session=True,  # its own process group, so a timeout kills its children too
            )
        except OSError as exc:
            return HookResult(hook.command, 127, "", f"cannot start the hook: {exc.strerror or exc}")
        reaper.track(proc, env)
        try:
            return await self._finish(hook, proc, stdin)
        finally:
            await asyncio.shield(reaper.end_command(proc))

    async def _finish(self, hook: HookConfig, proc: asyncio.subprocess.Process, stdin: bytes) -> HookResult:
        out, err = OutputBuffer(OUTPUT_LIMIT), OutputBuffer(OUTPUT_LIMIT)
        work = asyncio.ensure_future(_communicate(proc, stdin, out, err))
        try:
            await asyncio.wait_for(asyncio.shield(work), hook.timeout_secs)
        except TimeoutError:
            await kill_group(proc)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(work, 5)
            # It exited in time but a child it left behind held its output open.
            if proc.returncode is not None and proc.returncode >= 0:
                return HookResult(hook.command, proc.returncode, out.render(), err.render())
            return HookResult(hook.command, None, "", "", timed_out=True)
        except BaseException:
            work.cancel()
            await kill_group(proc)
            raise
        return HookResult(hook.command, proc.returncode, out.render(), err.render())


async def _communicate(
    proc: asyncio.subprocess.Process, stdin: bytes, out: OutputBuffer, err: OutputBuffer
) -> None:
    """Write the payload while reading both outputs (bounded), until the pipes close and it exits."""
    await asyncio.gather(_write(proc.stdin, stdin), pump(proc.stdout, out), pump(proc.stderr, err))
    await wait_exit(proc)


async def _write(stream: asyncio.StreamWriter | None, data: bytes) -> None:
    if stream is None:
        return
    # A hook that never reads its stdin is fine.
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        stream.write(data)
        await stream.drain()
    stream.close()


def _short(command: str) -> str:
    line = " ".join(command.split())
    return line if len(line) <= 60 else line[:57] + "..."
