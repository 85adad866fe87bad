"""run_command, command_output and kill_command."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from pathlib import Path

from pydantic import Field

from sigit.sandbox import Denial, find_denial
from sigit.tools import reaper
from sigit.tools.attribution import add_trailer_if_new_commit, head_commit
from sigit.tools.base import Tool, ToolArgs, ToolContext, ToolError, ToolOutput
from sigit.tools.processes import OutputBuffer, UnknownTaskError, kill_group, pump, spawn, wait_exit
from sigit.tools.subjects import Preview, Subjects

READ_AFTER_EXIT_S = 0.5


class RunCommandArgs(ToolArgs):
    command: str = Field(description="Shell command, run with `bash -c`.")
    cwd: str | None = Field(None, description="Working directory, relative to the session's directory.")
    run_in_background: bool = Field(
        False, description="Start it and return a task_id at once (for servers, watchers, long builds)."
    )


class TaskIdArgs(ToolArgs):
    task_id: str = Field(description="The task_id that run_command returned.")


@dataclass(frozen=True)
class CommitWatch:
    """HEAD before a command ran and when it started, so a commit the command makes can get the trailer."""

    started_at: float
    before: str | None


async def watch_commits(cwd: Path, ctx: ToolContext) -> CommitWatch:
    """Call just before running a command; `command_result` then attributes any commit it made."""
    started_at = time.time()
    return CommitWatch(started_at, await head_commit(cwd, ctx.sandbox) if ctx.attribution else None)


async def command_result(
    code: int | None, output: str, stopped: str | None, *, title: str, cwd: Path, ctx: ToolContext,
    watch: CommitWatch,
) -> ToolOutput:
    """run_command's reply: `Exit code N:` and the output (or why it was stopped), plus the attribution note."""
    body = output if output.strip() else "(no output)"
    removed = await sandbox_after_command(ctx)  # before siGit's own git runs for the trailer
    if stopped:
        text = f"Command {stopped}; it and its child processes were killed. Output so far:\n{body}{removed}"
        return ToolOutput(text, is_error=True, title=title, locations=[cwd])
    text = f"Exit code {code}:\n{body}{removed}"
    if ctx.attribution:
        note = await add_trailer_if_new_commit(
            cwd, watch.before, watch.started_at, ctx.attribution, ctx.sandbox)
        if note:
            text += f"\n{note}"
    denial = sandbox_denial(code, output, ctx)
    if denial is not None:
        text += f"\n\n{denial.sentence}. Retrying, with sudo, chmod or otherwise, will not get past the sandbox."
    elif code == 0 and (passed := sandbox_denial(code, output, ctx, even_if_succeeded=True)) is not None:
        # it went on after the refusal: say so, but a command that succeeded is not rerun unconfined
        text += f"\n\nThe command exited 0, but part of it was {passed.sentence}."
    return ToolOutput(text, is_error=code != 0, title=title, locations=[cwd], sandbox_denial=denial)


async def sandbox_after_command(ctx: ToolContext) -> str:
    """The sandbox's check of what a finished command left in git dirs: "\n\n<what it removed>." or ""."""
    sandbox = ctx.sandbox
    note = await asyncio.to_thread(sandbox.after_command) if sandbox is not None else None
    return f"\n\n{note}." if note else ""


def sandbox_denial(code: int | None, output: str, ctx: ToolContext, *, even_if_succeeded: bool = False
                   ) -> Denial | None:
    """What the session's sandbox refused, when that is why the command failed (or, with
    `even_if_succeeded`, what it refused in a command that went on and exited 0)."""
    sandbox = ctx.sandbox
    if code is None or sandbox is None or not sandbox.active:
        return None
    return find_denial(code, output, sandbox.policy, even_if_succeeded=even_if_succeeded)


def unsandboxed_hint(denial: Denial) -> str:
    """The flag or setting with which the user would let such a command through."""
    if denial.kind == "network":
        return ("`--sandbox off`, or `network = true` in the `[sandbox]` settings (`loopback = true` for "
                "servers the command starts itself)")
    if denial.kind == "write":
        return "`--sandbox off`, or `--add-dir DIR` (`[sandbox] writable_dirs`) for that directory"
    return "`--sandbox off`"


def command_dir(args: RunCommandArgs, ctx: ToolContext) -> Path:
    """The directory to run in: the session's, or `args.cwd` resolved against it."""
    if not args.cwd:
        return ctx.cwd
    path = ctx.resolve(args.cwd)
    if not path.is_dir():
        raise ToolError(f"cwd {args.cwd!r} is not a directory ({path}).")
    return path


async def _wait_exit_or_cancel(proc: asyncio.subprocess.Process, cancel: asyncio.Event | None) -> bool:
    """Wait for the process to exit; True if `cancel` was set first."""
    if cancel is None:
        await wait_exit(proc)
        return False
    waiter = asyncio.ensure_future(wait_exit(proc))
    canceller = asyncio.ensure_future(cancel.wait())
    try:
        await asyncio.wait({waiter, canceller}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        canceller.cancel()
        if not waiter.done():
            waiter.cancel()
    return proc.returncode is None


async def run_foreground(command: str, cwd: Path, ctx: ToolContext) -> tuple[int | None, str, str | None]:
    """Run to completion; returns (exit code or None, output, why it was stopped or None)."""
    proc = await spawn(command, cwd, ctx.sandbox)
    buffer = OutputBuffer()
    reader = asyncio.ensure_future(pump(proc.stdout, buffer))
    stopped: str | None = None
    try:
        try:
            if await asyncio.wait_for(_wait_exit_or_cancel(proc, ctx.cancel), ctx.command_timeout):
                stopped = "cancelled"
        except TimeoutError:
            stopped = f"timed out after {ctx.command_timeout:g} s"
        if stopped:
            await kill_group(proc)
        # Children left running in the background may hold the pipe open: give them a moment, then end them.
        done, _ = await asyncio.wait({reader}, timeout=READ_AFTER_EXIT_S)
        if not done:
            await kill_group(proc)
            await asyncio.wait({reader}, timeout=READ_AFTER_EXIT_S)
    except asyncio.CancelledError:
        await asyncio.shield(kill_group(proc))
        raise
    finally:
        reader.cancel()
    await asyncio.shield(reaper.end_command(proc))  # what it left in the background ends with it
    return (None if stopped else proc.returncode), buffer.render(), stopped


async def run_command(args: RunCommandArgs, ctx: ToolContext) -> ToolOutput:
    cwd = command_dir(args, ctx)
    title = f"`{args.command}`"
    if args.run_in_background:
        task_id = await ctx.processes.start(args.command, cwd, ctx.sandbox)
        return ToolOutput(
            f"Started in the background with task_id {task_id}. "
            "Use command_output to read its output and kill_command to stop it.",
            title=title,
            locations=[cwd],
        )
    watch = await watch_commits(cwd, ctx)
    code, output, stopped = await run_foreground(args.command, cwd, ctx)
    return await command_result(code, output, stopped, title=title, cwd=cwd, ctx=ctx, watch=watch)


async def command_output(args: TaskIdArgs, ctx: ToolContext) -> ToolOutput:
    try:
        poll = await ctx.processes.poll(args.task_id)
    except UnknownTaskError as exc:
        raise ToolError(str(exc)) from None
    state = "still running" if poll.running else f"finished with exit code {poll.exit_code}"
    body = poll.output if poll.output else "(no new output)"
    text = f"Task {args.task_id} {state}. New output:\n{body}"
    if not poll.running:
        text += await sandbox_after_command(ctx)
    denial = sandbox_denial(poll.exit_code, poll.output, ctx)
    if denial is not None:  # told, never rerun: a background command has no one waiting on it
        text += f"\n\n{denial.sentence}."
    return ToolOutput(text, title=f"output of {args.task_id}")


async def kill_command(args: TaskIdArgs, ctx: ToolContext) -> ToolOutput:
    try:
        job = ctx.processes.get(args.task_id)
        was_running = job is not None and job.running
        poll = await ctx.processes.kill(args.task_id)
    except UnknownTaskError as exc:
        raise ToolError(str(exc)) from None
    head = (
        f"Killed task {args.task_id}."
        if was_running
        else (f"Task {args.task_id} had already finished (exit code {poll.exit_code}).")
    )
    tail = f" Last output:\n{poll.output}" if poll.output else ""
    tail += await sandbox_after_command(ctx)
    return ToolOutput(head + tail, title=f"kill {args.task_id}")


def command_subjects(args: RunCommandArgs, ctx: ToolContext) -> Subjects:
    """The command line and the directory it runs in (what run_command is judged by)."""
    return Subjects(command=args.command, command_cwd=ctx.resolve(args.cwd) if args.cwd else ctx.cwd)


async def _command_preview(args: RunCommandArgs, ctx: ToolContext) -> Preview:
    return Preview(args.command)


RUN_COMMAND = Tool(
    name="run_command",
    description=(
        "Run a shell command (bash -c) in the session's directory and return its exit code and combined "
        "stdout/stderr (the middle of long output is cut). Times out after 120 s; use run_in_background "
        "for servers or watchers."
    ),
    params=RunCommandArgs,
    run=run_command,
    kind="execute",
    aliases=("Bash",),
    prompt_hint="After changing code, run the project's tests or build with run_command and fix what fails. "
    "Commands run with `bash -c` in the working directory.",
    subjects_of=command_subjects,
    preview_of=_command_preview,
)

COMMAND_OUTPUT = Tool(
    name="command_output",
    description="New output of a background command since the last call, and whether it still runs.",
    params=TaskIdArgs,
    run=command_output,
    read_only=True,
    kind="execute",
    aliases=("BashOutput",),
)

KILL_COMMAND = Tool(
    name="kill_command",
    description="Stop a background command (and its child processes).",
    params=TaskIdArgs,
    run=kill_command,
    kind="execute",
    aliases=("KillBash", "KillShell"),
)
