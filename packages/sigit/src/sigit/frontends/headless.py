"""Headless mode: one prompt, no questions asked; text to stdout, progress to stderr.

The JSON and stream-JSON shapes follow Claude Code's (`type`, `subtype`, `is_error`, `duration_ms`,
`num_turns`, `result`, `session_id`, `usage`), so scripts written for it read ours.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from .. import startup_gc
from ..app import INIT_RULES, AgentSession, SessionHost
from ..attachments import prompt_images
from ..commands import CommandResult
from ..config.trust import ProjectRequests
from ..errors import SigitError, UsageError
from ..events import (
    Notice,
    PermissionAnswered,
    ReasoningDelta,
    TextDelta,
    ToolCallRequested,
    ToolFinished,
    TurnFinished,
    Usage,
    stop_sentence,
)
from ..fileio import json_text
from ..prompt.init_prompt import INIT_PROMPT
from .adapter import Printer
from .host_args import headless_host_options
from .host_args import host_options as host_options  # its old home: TUI and MCP imported it from here
from .terminal_text import terminal_safe, terminal_safe_json
from .usage import RESULT_SUBTYPES, claude_usage

if TYPE_CHECKING:
    from ..early_load import EarlyLoad

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


def run_headless(args: argparse.Namespace, early: EarlyLoad | None = None) -> int:
    """`sigit -p`; `early`: the model's load, started before this module was imported (cli.py)."""
    return run_headless_prompt(args, args.prompt, early)


def run_init(args: argparse.Namespace) -> int:
    """`sigit init`: the model explores the repository and writes or improves AGENTS.md."""
    args.allow_tool = [*args.allow_tool, *INIT_RULES]
    return run_headless_prompt(args, INIT_PROMPT)


def run_headless_prompt(args: argparse.Namespace, prompt: str, early: EarlyLoad | None = None) -> int:
    try:
        return asyncio.run(_run(args, prompt, early))
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED


async def open_session(host: SessionHost, args: argparse.Namespace) -> AgentSession:
    cwd = Path(args.cwd)
    session = await asyncio.to_thread(
        host.store.resolve, cwd, resume=args.resume, continue_last=args.continue_last,
        fork=getattr(args, "fork_session", False),
    )
    return await host.open(session.cwd if session is not None else cwd, session=session, ask_trust=refuse_trust)


async def refuse_trust(root: Path, requests: ProjectRequests) -> bool:
    """Headless asks nobody: the folder's own parts stay off, and one line on stderr says how to trust it."""
    print(untrusted_line(root, requests), file=sys.stderr, flush=True)
    return False


def untrusted_line(root: Path, requests: ProjectRequests) -> str:
    wants = "; ".join(requests.lines)
    return (f"sigit: ignoring what the untrusted folder {root} asks for ({wants}); "
            f"pass --trust to allow it for this run, or run `sigit trust {root}` to trust the folder")


async def _run(args: argparse.Namespace, prompt: str, early: EarlyLoad | None = None) -> int:
    started = time.perf_counter()
    out = _Output(args.output_format, quiet=args.quiet)
    host = SessionHost(headless_host_options(args), early=early)
    try:
        try:
            agent_session = await open_session(host, args)
        finally:
            startup_gc.resume()  # the start is over: collect as usual for the rest of the run
    except UsageError as exc:
        # what the user asked for is wrong: a session, a settings file, a checkpoint, a model name, a cwd
        print(f"sigit: {terminal_safe(str(exc))}", file=sys.stderr)
        out.result(None, "error", str(exc), started, session_id="", is_error=True)
        return EXIT_USAGE
    except SigitError as exc:  # the model could not be loaded: a clear line, not a traceback
        print(f"sigit: {terminal_safe(str(exc))}", file=sys.stderr)
        out.result(None, "error", str(exc), started, session_id="", is_error=True)
        return EXIT_ERROR
    command = await _command(agent_session, host, prompt)
    if command is not None and command.prompt is None:  # `sigit -p /status`: a command, not a prompt
        await agent_session.close()
        is_error = command.level == "error"
        out.command_result(command.text, started, agent_session.id, is_error)
        return EXIT_USAGE if is_error else EXIT_OK
    if command is not None and command.prompt is not None:
        prompt = command.prompt
    try:
        images = prompt_images(getattr(args, "image", []) or [], prompt, agent_session.cwd)
    except UsageError as exc:
        print(f"sigit: {terminal_safe(str(exc))}", file=sys.stderr)
        out.result(None, "error", str(exc), started, session_id=agent_session.id, is_error=True)
        await agent_session.close()
        return EXIT_USAGE
    out.init(agent_session, host)
    loop = asyncio.get_running_loop()
    with contextlib.suppress(NotImplementedError, RuntimeError):  # no signal handlers: Windows, non-main thread
        loop.add_signal_handler(signal.SIGINT, agent_session.cancel)
        loop.add_signal_handler(signal.SIGTERM, agent_session.cancel)
    try:
        async for event in agent_session.prompt(prompt, images=images):
            out.handle(event)
    finally:
        for sentence in await agent_session.close():  # what the guard's last look removed
            out.handle(Notice(sentence, "warning"))
    finished = out.finished
    if finished is None:
        print("sigit: the turn ended without a result", file=sys.stderr)
        out.result(None, "error", "the turn ended without a result", started, agent_session.id, True)
        return EXIT_ERROR
    subtype = RESULT_SUBTYPES.get(finished.stop_reason, "error_during_execution")
    is_error = subtype != "success"
    result_text = finished.text if not finished.error else f"{finished.text}\n{finished.error}".strip()
    out.result(finished, subtype, result_text, started, agent_session.id, is_error)
    if finished.stop_reason == "cancelled":
        return EXIT_INTERRUPTED
    return EXIT_ERROR if is_error else EXIT_OK


async def _command(session: AgentSession, host: SessionHost, prompt: str) -> CommandResult | None:
    """A built-in slash command's result when the prompt is one (None: a prompt for the model)."""
    from ..commands import CommandContext
    from ..commands import run as run_command

    context = CommandContext("headless", session, session.cwd, host.config_dir, session.session.model)
    return await run_command(context, prompt)


class _Output(Printer):
    """Text to stdout (or Claude Code's JSON shapes), progress to stderr."""

    def __init__(self, fmt: str, *, quiet: bool) -> None:
        self.finished: TurnFinished | None = None
        self.fmt = fmt
        self.quiet = quiet
        self.stdout: TextIO = sys.stdout
        self.stderr: TextIO = sys.stderr
        self._text: list[str] = []
        self._reasoning: list[str] = []
        self._session_id = ""
        self._denied: set[str] = set()
        """Calls whose refusal was shown (their "Not run" result is not shown again)."""

    def _emit(self, obj: dict[str, Any]) -> None:
        self.stdout.write(terminal_safe_json(json_text(obj)) + "\n")  # a lone surrogate must not end the run
        self.stdout.flush()

    def _progress(self, line: str) -> None:
        if not self.quiet:
            self.stderr.write(terminal_safe(line) + "\n")  # a file's or command's escapes do nothing
            self.stderr.flush()

    def init(self, session: AgentSession, host: SessionHost) -> None:
        self._session_id = session.id
        if self.fmt == "stream-json":
            self._emit({
                "type": "system", "subtype": "init", "session_id": session.id, "cwd": str(session.cwd),
                "model": session.session.model, "tools": session.tools.names(),
                "permissionMode": session.mode,
            })

    def _flush_round(self) -> None:
        content: list[dict[str, Any]] = []
        if self._reasoning:
            content.append({"type": "thinking", "thinking": "".join(self._reasoning)})
        if self._text:
            content.append({"type": "text", "text": "".join(self._text)})
        self._reasoning, self._text = [], []
        if content and self.fmt == "stream-json":
            self._assistant(content)

    def _assistant(self, content: list[dict[str, Any]]) -> None:
        self._emit({"type": "assistant", "session_id": self._session_id,
                    "message": {"role": "assistant", "content": content}})

    def handle_text_delta(self, event: TextDelta) -> None:
        self._text.append(event.text)

    def handle_reasoning_delta(self, event: ReasoningDelta) -> None:
        self._reasoning.append(event.text)

    def handle_tool_call_requested(self, event: ToolCallRequested) -> None:
        self._flush_round()
        self._progress(f"⏺ {event.title}")
        if self.fmt == "stream-json":
            self._assistant([{"type": "tool_use", "id": event.call_id, "name": event.name, "input": event.arguments}])

    def handle_permission_answered(self, event: PermissionAnswered) -> None:
        if not event.allowed:
            self._denied.add(event.call_id)
            self._progress(f"  ✗ not allowed: {event.reason}")

    def handle_tool_finished(self, event: ToolFinished) -> None:
        if event.call_id not in self._denied:  # a refusal is on the line above already: once is enough
            first = event.output.strip().splitlines()[0] if event.output.strip() else ""
            self._progress(f"  {'✗' if event.is_error else '⎿'} {first[:200]}")
        self._emit_tool_result(event)

    def handle_notice(self, event: Notice) -> None:
        self._progress(f"[{event.level}] {event.message}")

    def handle_turn_finished(self, event: TurnFinished) -> None:
        self.finished = event
        self._flush_round()

    def _emit_tool_result(self, event: ToolFinished) -> None:
        if self.fmt == "stream-json":
            self._emit({"type": "user", "session_id": self._session_id, "message": {
                "role": "user", "content": [{"type": "tool_result", "tool_use_id": event.call_id,
                                             "content": event.output, "is_error": event.is_error}]}})

    def command_result(self, text: str, started: float, session_id: str, is_error: bool) -> None:
        """What a slash command answered (`sigit -p /status`): its text, or a result object."""
        if self.fmt == "text":
            stream = self.stderr if is_error else self.stdout
            stream.write(terminal_safe(text.rstrip("\n")) + "\n")
            stream.flush()
            return
        self.result(None, "error_during_execution" if is_error else "success", text, started, session_id,
                    is_error)

    def result(
        self, finished: TurnFinished | None, subtype: str, text: str, started: float, session_id: str,
        is_error: bool,
    ) -> None:
        duration_ms = int((time.perf_counter() - started) * 1000)
        usage = claude_usage(finished.usage if finished is not None else Usage())
        obj = {
            "type": "result", "subtype": subtype, "is_error": is_error, "duration_ms": duration_ms,
            "duration_api_ms": duration_ms, "num_turns": finished.rounds if finished else 0,
            "result": text, "session_id": session_id, "total_cost_usd": 0.0,
            "stop_reason": finished.stop_reason if finished else ("error" if is_error else "end_turn"),
            "permission_denials": [
                {"tool_name": d.tool_name, "tool_use_id": d.tool_use_id, "tool_input": d.tool_input}
                for d in (finished.permission_denials if finished else ())
            ],
            # calls a reply at max_tokens left unclosed: none ran, the model was told (not in Claude Code)
            "cut_off_tool_calls": [
                {"tool_name": c.tool_name, "tool_use_id": c.tool_use_id, "message": c.message}
                for c in (finished.cut_off_calls if finished else ())
            ],
            "usage": usage,
        }
        if self.fmt in ("json", "stream-json"):
            self._emit(obj)
            return
        # text: stdout carries the answer only; errors and why the turn stopped go to stderr
        answer = finished.text if finished is not None else ("" if is_error else text)
        if answer:
            self.stdout.write(terminal_safe(answer.rstrip("\n")) + "\n")
            self.stdout.flush()
        why = None
        if finished is not None and finished.stop_reason != "cancelled":
            why = finished.error if finished.stop_reason == "error" else stop_sentence(finished)
        if why:
            self.stderr.write(f"sigit: {terminal_safe(why)}\n")
            self.stderr.flush()
