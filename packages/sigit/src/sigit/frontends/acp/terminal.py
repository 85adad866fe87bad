"""run_command in the editor's terminal, when the client offers `terminal`, so the user watches it live.

The tool keeps run_command's name, parameters and output format (`Exit code N:` and the output, the
middle cut when long); background commands still run locally (the editor has no polling view of them).
The session's sandbox applies in the editor's terminal as well: the editor is asked to run the
sandbox's launcher (the wrapped argv and its environment: TMPDIR), so the command is confined
wherever it runs, and a denial in its output is explained the same way.
The tool does not know its call id, so the server records the call that just started in
`TerminalCalls.current`, and the terminal shown on that card is remembered for its final update.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from acp import tool_terminal_ref, update_tool_call
from acp.schema import EnvVariable

from ...tools.base import Tool, ToolContext, ToolOutput
from ...tools.processes import NON_INTERACTIVE_ENV, OUTPUT_LIMIT, OutputBuffer, shell_argv
from ...tools.shell import RUN_COMMAND, RunCommandArgs, command_dir, command_result, watch_commits

log = logging.getLogger("sigit.acp")

TERMINAL_OUTPUT_LIMIT = 50_000
RELEASE_TIMEOUT_S = 5.0


class TerminalClient(Protocol):
    async def create_terminal(self, session_id: str, command: str, args: list[str] | None = None,
                              env: list[EnvVariable] | None = None, cwd: str | None = None,
                              output_byte_limit: int | None = None, **kwargs: Any) -> Any: ...

    async def terminal_output(self, session_id: str, terminal_id: str, **kwargs: Any) -> Any: ...

    async def wait_for_terminal_exit(self, session_id: str, terminal_id: str, **kwargs: Any) -> Any: ...

    async def kill_terminal(self, session_id: str, terminal_id: str, **kwargs: Any) -> Any: ...

    async def release_terminal(self, session_id: str, terminal_id: str, **kwargs: Any) -> Any: ...

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> Any: ...


@dataclass
class TerminalCalls:
    """The tool call running now (set by the server on ToolStarted) and each call's terminal."""

    current: str | None = None
    terminals: dict[str, str] = field(default_factory=dict)


def terminal_run_command(client: TerminalClient, session_id: str, calls: TerminalCalls) -> Tool[RunCommandArgs]:
    """A run_command that runs foreground commands in the editor's terminal."""

    async def run(args: RunCommandArgs, ctx: ToolContext) -> ToolOutput:
        if args.run_in_background:
            return await RUN_COMMAND.run(args, ctx)
        runner = _TerminalRun(client, session_id, calls)
        return await runner.run(args, ctx)

    return replace(RUN_COMMAND, run=run)  # every declaration of run_command, another runner


def format_output(output: str, truncated: bool) -> str:
    """The output as the model reads it: head and tail kept when long, a note when the editor cut it."""
    buffer = OutputBuffer(limit=OUTPUT_LIMIT)
    buffer.feed(output.encode("utf-8", errors="replace"))
    body = buffer.render()
    if truncated:
        body = "[the start of the output was cut by the editor]\n" + body
    return body if body.strip() else "(no output)"


@dataclass
class _TerminalRun:
    client: TerminalClient
    session_id: str
    calls: TerminalCalls

    async def run(self, args: RunCommandArgs, ctx: ToolContext) -> ToolOutput:
        cwd = command_dir(args, ctx)
        title = f"`{args.command}`"
        watch = await watch_commits(cwd, ctx)
        # the editor adds its own environment: no start-up file of its may run before the line
        argv, env = shell_argv(args.command), {**NON_INTERACTIVE_ENV, "BASH_ENV": "", "ENV": ""}
        if ctx.sandbox is not None and ctx.sandbox.active:  # the editor's terminal is confined too
            wrapped = await asyncio.to_thread(ctx.sandbox.wrap, argv, env)
            argv, env = wrapped.argv, wrapped.env
        try:
            created = await self.client.create_terminal(
                session_id=self.session_id, command=argv[0], args=argv[1:], cwd=str(cwd),
                env=[EnvVariable(name=k, value=v) for k, v in env.items()],
                output_byte_limit=TERMINAL_OUTPUT_LIMIT,
            )
        except Exception as exc:  # the editor refused: run it here as usual
            log.warning("the editor could not create a terminal (%s); running the command locally", exc)
            return await RUN_COMMAND.run(args, ctx)
        terminal_id = str(created.terminal_id)
        call_id = self.calls.current
        released = False
        try:
            if call_id is not None:
                self.calls.terminals[call_id] = terminal_id
                await self.client.session_update(
                    session_id=self.session_id,
                    update=update_tool_call(call_id, content=[tool_terminal_ref(terminal_id)]),
                )
            stopped = await self._wait(terminal_id, ctx)
            if stopped:
                await self.client.kill_terminal(session_id=self.session_id, terminal_id=terminal_id)
            result = await self.client.terminal_output(session_id=self.session_id, terminal_id=terminal_id)
        except asyncio.CancelledError:
            released = True
            await asyncio.shield(self._kill_and_release(terminal_id))
            raise
        finally:
            if not released:
                await self._release(terminal_id)
        body = format_output(str(result.output), bool(result.truncated))
        status = result.exit_status
        code = status.exit_code if status is not None else None
        signal = status.signal if status is not None else None
        if not stopped and code is None and signal:
            return ToolOutput(f"Killed by signal {signal}:\n{body}", is_error=True, title=title, locations=[cwd])
        return await command_result(code, body, stopped, title=title, cwd=cwd, ctx=ctx, watch=watch)

    async def _wait(self, terminal_id: str, ctx: ToolContext) -> str | None:
        """Wait for the command to exit; why it was stopped (cancel, timeout), or None."""
        waiter = asyncio.ensure_future(
            self.client.wait_for_terminal_exit(session_id=self.session_id, terminal_id=terminal_id)
        )
        cancel = asyncio.ensure_future(ctx.cancel.wait()) if ctx.cancel is not None else None
        try:
            pending = {waiter} if cancel is None else {waiter, cancel}
            done, _ = await asyncio.wait(pending, timeout=ctx.command_timeout,
                                         return_when=asyncio.FIRST_COMPLETED)
        finally:
            if cancel is not None:
                cancel.cancel()
            if not waiter.done():
                waiter.cancel()
        if waiter in done:
            waiter.result()  # the client's error, if any
            return None
        return "cancelled" if done else f"timed out after {ctx.command_timeout:g} s"

    async def _kill_and_release(self, terminal_id: str) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(
                self.client.kill_terminal(session_id=self.session_id, terminal_id=terminal_id),
                RELEASE_TIMEOUT_S,
            )
        await self._release(terminal_id)

    async def _release(self, terminal_id: str) -> None:
        try:
            await asyncio.wait_for(
                self.client.release_terminal(session_id=self.session_id, terminal_id=terminal_id),
                RELEASE_TIMEOUT_S,
            )
        except Exception as exc:
            log.warning("could not release terminal %s: %s", terminal_id, exc)

