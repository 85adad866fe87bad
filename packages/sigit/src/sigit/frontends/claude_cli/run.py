"""`sigit` as Claude Code's CLI: the flags, the stream-JSON conversation and the control protocol.

One agent session serves every user message that arrives on stdin (`--input-format stream-json`)
or the one prompt of `-p`. Permissions the policy would ask about go to the SDK app as
`can_use_tool` requests with `--permission-prompt-tool stdio`, and are refused otherwise (nobody
to ask), as `sigit -p` does.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...app import DONT_ASK, AgentSession, SessionHost, deny_all
from ...attachments import image_block
from ...errors import SigitError, UsageError
from ...events import PermissionAsked, PermissionReply, TurnFinished
from ...sessions import Session
from ...tools import all_tools
from ..headless import refuse_trust
from ..headless_stdin import read_stdin, stdin_is_terminal, with_piped_input
from . import messages
from .control import ControlChannel, ControlError, LineWriter, start_stdin_reader
from .flags import ClaudeArgs, FlagError, claude_mode_name, help_text, parse, wants_help
from .hooks import SdkHooks
from .messages import mcp_state as mcp_state  # its old home
from .requests import answer_control_request, initialize
from .setup import Setup, SetupError, prepare
from .tool_names import claude_name, from_claude, rule_to_claude, rules_from_claude, to_claude
from .turns import TurnWriter

if TYPE_CHECKING:
    from onde import Image

    from ...extensions.mcp_client import McpServerConfig
    from ...tools import Tool, ToolRegistry

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
SIGIT_VERSION_AS_CLAUDE = "2.1.0"
"""The Claude Code version whose protocol we speak, reported as `claude_code_version` in `system/init`
(the SDKs warn about a CLI that reports none or one below 2.0.0); our own is `sigit_version`."""


def run(argv: list[str]) -> int:
    if wants_help(argv):  # `sigit --claude --help`: this dialect's flags
        sys.stdout.write(help_text())
        return EXIT_OK
    try:
        args = parse(argv)
        setup = prepare(args)
    except (FlagError, SetupError) as exc:
        print(f"sigit: {exc}", file=sys.stderr)
        return EXIT_USAGE
    for line in setup.warnings:
        print(f"sigit: {line}", file=sys.stderr, flush=True)
    if args.input_format == "text":
        prompt = args.prompt
        if prompt is None and not stdin_is_terminal():
            prompt = read_stdin()
        elif prompt is not None and prompt.strip():  # `git diff | sigit --claude -p "review"`: as `claude -p`
            prompt = with_piped_input(prompt)
        if not prompt or not prompt.strip():
            print("sigit: no prompt (give one as an argument or on stdin, or use --input-format stream-json)",
                  file=sys.stderr)
            return EXIT_USAGE
        setup.first_prompt = prompt
    try:
        return asyncio.run(ClaudeRun(args, setup).main())
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED


class ClaudeRun:
    def __init__(self, args: ClaudeArgs, setup: Setup) -> None:
        self.args = args
        self.setup = setup
        self.out = LineWriter()
        self.control = ControlChannel(self.out)
        self.host = SessionHost(setup.host_options)
        self.session: AgentSession | None = None
        self.ready: asyncio.Future[AgentSession | None] | None = None
        self.inbox: asyncio.Queue[UserInput | None] = asyncio.Queue()
        self.hooks = SdkHooks(self.control)
        self.stopping = False
        self.started = time.perf_counter()
        self._handlers: set[asyncio.Task[None]] = set()

    @property
    def streaming(self) -> bool:
        return self.args.input_format == "stream-json"

    def emit(self, obj: dict[str, Any]) -> None:
        if self.args.output_format == "stream-json":
            self.out.write(obj)

    def progress(self, line: str) -> None:
        if not self.args.quiet:
            print(line, file=sys.stderr, flush=True)

    async def main(self) -> int:
        self.ready = asyncio.get_running_loop().create_future()
        if self.streaming:
            raw: asyncio.Queue[str | None] = asyncio.Queue()
            start_stdin_reader(raw)
            dispatcher = asyncio.ensure_future(self._dispatch(raw))
        else:
            first = self.setup.first_prompt
            self.inbox.put_nowait(UserInput(first) if first is not None else None)
            self.inbox.put_nowait(None)
        try:
            session = await self._open()
        except (UsageError, SigitError) as exc:
            code = await self._failed(str(exc), EXIT_USAGE if isinstance(exc, UsageError) else EXIT_ERROR)
            if self.streaming:
                dispatcher.cancel()
            return code
        self.session = session
        self.ready.set_result(session)
        loop = asyncio.get_running_loop()
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signal.SIGINT, self.stop)
            loop.add_signal_handler(signal.SIGTERM, self.stop)
        code = EXIT_OK
        try:
            while not self.stopping and (prompt := await self.inbox.get()) is not None:
                code = await self._turn(prompt)
        finally:
            if self.streaming:
                dispatcher.cancel()
            for task in list(self._handlers):
                task.cancel()
            await self.session.close()
        return EXIT_OK if self.streaming else code

    def cancel(self) -> None:
        if self.session is not None:
            self.session.cancel()

    def stop(self) -> None:
        """SIGINT/SIGTERM: end the turn under way (its result is still written), then exit."""
        self.stopping = True
        self.cancel()
        self.inbox.put_nowait(None)

    async def _failed(self, error: str, code: int) -> int:
        """The session could not be opened: an error result, as the answer to the first message.

        Streaming, the SDK's `initialize` is answered first and the result waits for a user message (or
        the end of stdin), as Claude Code's would: a result sent before `initialize` is answered makes the
        SDK fail that request instead of handing the app the result."""
        if self.args.output_format != "text":  # text: the error result below is that line, once
            print(f"sigit: {error}", file=sys.stderr)
        assert self.ready is not None
        self.ready.set_result(None)
        if self.streaming:
            await self.inbox.get()
            await asyncio.gather(*self._handlers, return_exceptions=True)  # `initialize` is answered first
        self._result(None, error=error)
        return code

    # ------------------------------------------------------------------ opening

    async def _open(self) -> AgentSession:
        args, setup = self.args, self.setup
        cwd = setup.cwd
        saved = await asyncio.to_thread(
            self.host.store.resolve, cwd, resume=args.resume, continue_last=args.continue_last,
            fork=args.fork_session,
        )
        if saved is None and args.session_id:
            saved = await asyncio.to_thread(self._new_session_with_id, cwd, args.session_id)
        servers: list[Any] = [*setup.mcp_servers, *(self._sdk_server(name) for name in setup.sdk_mcp_servers)]
        session = await self.host.open(saved.cwd if saved is not None else cwd, session=saved,
                                       approver=self._approve, mcp_servers=servers, ask_trust=refuse_trust)
        setup.apply(session)
        session.refuse_unasked = self._refuse_unasked
        if args.permission_mode == DONT_ASK:
            session.set_mode(DONT_ASK)
        self.hooks.attach(session)
        return session

    def _sdk_server(self, name: str) -> McpServerConfig:
        """One of the app's in-process MCP servers: its JSON-RPC travels in `mcp_message` requests."""
        from ...extensions.mcp_client import McpServerConfig  # the mcp SDK loads only when used

        control = self.control

        async def relay(message: dict[str, Any]) -> dict[str, Any] | None:
            answer = await control.request({"subtype": "mcp_message", "server_name": name, "message": message})
            reply = answer.get("mcp_response")
            return reply if isinstance(reply, dict) else None

        return McpServerConfig(name, "relay", source="the Claude Agent SDK app", relay=relay)

    def _new_session_with_id(self, cwd: Path, session_id: str) -> Session:
        store = self.host.store
        path = store.path(session_id)  # a SessionError for an id that cannot name a file
        if path.exists():
            raise UsageError(f"--session-id {session_id} is already in use (use --resume {session_id})")
        session = Session.create(cwd)
        session.id = session_id
        return session

    # ------------------------------------------------------------------ stdin

    async def _dispatch(self, raw: asyncio.Queue[str | None]) -> None:
        """Route stdin lines: user messages to the inbox, control requests answered as they come."""
        while (line := await raw.get()) is not None:
            line = line.strip()
            if not line:
                continue
            try:
                message = json.loads(line)
            except json.JSONDecodeError as exc:
                self.progress(f"sigit: ignoring a stdin line that is not JSON ({exc.msg}): {line[:80]}")
                continue
            if not isinstance(message, dict):
                continue
            kind = message.get("type")
            if kind == "user":
                # no text: an error result, so the app is not left waiting
                self.inbox.put_nowait(user_input(message, self.setup.cwd))
            elif kind == "control_request":
                task = asyncio.ensure_future(self._control(message))
                self._handlers.add(task)
                task.add_done_callback(self._handlers.discard)
            elif kind == "control_response":
                self.control.resolve(message)
        self.control.close()
        self.inbox.put_nowait(None)

    async def _control(self, message: dict[str, Any]) -> None:
        request_id = str(message.get("request_id", ""))
        request = message.get("request")
        if not isinstance(request, dict):
            self.out.write(messages.control_response(request_id, error="a control request needs a `request` object"))
            return
        assert self.ready is not None
        try:
            if request.get("subtype") == "initialize":  # answered while the model loads: the SDK gives it 60 s
                answer = await initialize(self, self.ready.result() if self.ready.done() else None, request)
            else:
                session = await asyncio.shield(self.ready)
                if session is None:
                    raise ControlError("the session could not be opened")
                answer = await answer_control_request(self, session, request)
        except Exception as exc:  # every failure is an error response, never a crash
            self.out.write(messages.control_response(request_id, error=str(exc) or type(exc).__name__))
            return
        self.out.write(messages.control_response(request_id, answer))

    # ------------------------------------------------------------------ a turn

    async def _turn(self, given: UserInput) -> int:
        session = self.session
        assert session is not None
        prompt, images = given.text, given.images
        self.started = time.perf_counter()
        self.emit(self.init_message(session))
        writer = TurnWriter(self.emit, model=session.session.model, session_id=session.id,
                            partial=self.args.include_partial_messages, tools=session.tools,
                            progress=self.progress, show_calls=self.args.output_format != "stream-json")
        finished: TurnFinished | None = None
        if given.error is not None:
            finished = TurnFinished("error", "", 0, given.error)
        elif not prompt.strip() and not images:
            finished = TurnFinished("error", "", 0, "the message has no text or image (only those are supported)")
        else:
            async for event in session.prompt(prompt, images=images):
                writer.handle(event)
            finished = writer.finished
        self._result(finished, denials=writer.denials)
        if finished is None:
            return EXIT_ERROR
        if finished.stop_reason == "cancelled":
            return EXIT_INTERRUPTED
        return EXIT_OK if messages.RESULT_SUBTYPES.get(finished.stop_reason) == "success" else EXIT_ERROR

    def _result(self, finished: TurnFinished | None, *, error: str | None = None,
                denials: list[dict[str, Any]] | None = None) -> None:
        session_id = self.session.id if self.session is not None else ""
        obj = messages.result(finished, duration_ms=int((time.perf_counter() - self.started) * 1000),
                              session_id=session_id, error=error, denials=denials)
        if self.args.output_format in ("json", "stream-json"):
            self.out.write(obj)
        elif obj["is_error"]:
            print(f"sigit: {obj['result'] or obj['subtype']}", file=sys.stderr, flush=True)
        elif obj["result"]:
            sys.stdout.write(str(obj["result"]).rstrip("\n") + "\n")
            sys.stdout.flush()

    def init_message(self, session: AgentSession) -> dict[str, Any]:
        servers = [{"name": s.name, "status": mcp_state(s.state)} for s in session.mcp.status()] if session.mcp else []
        return messages.system_init(
            session_id=session.id, cwd=str(session.cwd), model=session.session.model,
            tools=[claude_name(name, session.tools) for name in session.tools.names()],
            permission_mode=self.claude_mode(session), mcp_servers=servers,
            slash_commands=session.commands.names(), version=SIGIT_VERSION_AS_CLAUDE,
        )

    def claude_mode(self, session: AgentSession) -> str:
        return DONT_ASK if session.dont_ask else claude_mode_name(session.mode)

    def set_mode(self, session: AgentSession, mode: str) -> str:
        """`set_permission_mode`: Claude Code's names and ours; `dontAsk` refuses whatever would ask."""
        session.set_mode("default" if mode == "auto" else mode)  # a BadValueError (the error response) if unknown
        return self.claude_mode(session)

    # ------------------------------------------------------------------ permissions

    def _tools(self) -> ToolRegistry | list[Tool[Any]]:
        """The session's tools, or the built-in ones before it opens."""
        return self.session.tools if self.session is not None else all_tools()

    async def _refuse_unasked(self, request: PermissionAsked) -> PermissionReply:
        """dontAsk mode: what would ask is refused, in Claude Code's words."""
        if request.purpose == "leave_sandbox":  # as when asking: never let out of the sandbox
            return await deny_all(request)
        name = claude_name(request.name, self._tools())
        rule = rule_to_claude(request.suggested_rule, self._tools())
        return PermissionReply(False, reason=f"{name} needs permission and the permission mode is dontAsk; "
                                             f"allow it with --allowedTools {rule!r}")

    async def _approve(self, request: PermissionAsked) -> PermissionReply:
        """What the policy would ask: the SDK app's `can_use_tool` decides, when it was offered one."""
        name, arguments = to_claude(request.name, request.arguments, self._tools())
        rule = rule_to_claude(request.suggested_rule, self._tools())
        if request.purpose == "leave_sandbox":  # no Claude Code counterpart: never asked, never let out
            return await deny_all(request)
        if self.args.permission_prompt_tool != "stdio" or not self.streaming:
            return PermissionReply(False, reason=f"{name} needs permission: {request.reason}; "
                                                 f"allow it with --allowedTools {rule!r}")
        asked = {
            "subtype": "can_use_tool", "tool_name": name, "input": arguments,
            "permission_suggestions": [_suggestion(rule)], "blocked_path": None,
            "tool_use_id": request.call_id, "decision_reason": request.reason, "title": request.title,
        }
        try:
            answer = await self.control.request(asked)
        except ControlError as exc:
            return PermissionReply(False, reason=f"the permission request failed: {exc}")
        if answer.get("behavior") == "allow":
            self._apply_updates(answer.get("updatedPermissions"))
            edited = answer.get("updatedInput")
            if isinstance(edited, dict) and edited != arguments:
                return PermissionReply(True, arguments=from_claude(name, edited, self._tools())[1])
            return PermissionReply(True)
        if answer.get("interrupt"):
            self.cancel()
        message = answer.get("message")
        return PermissionReply(False, reason=str(message) if message else f"The SDK app denied {name}.")

    def _apply_updates(self, updates: Any) -> None:
        """`addRules` permission updates of an allow (session or any destination: they last this run)."""
        session = self.session
        if session is None or not isinstance(updates, list):
            return
        for update in updates:
            if not isinstance(update, dict) or update.get("type") != "addRules":
                continue
            for rule in update.get("rules") or []:
                if not isinstance(rule, dict) or not rule.get("toolName"):
                    continue
                content = rule.get("ruleContent")
                text = f"{rule['toolName']}({content})" if content else str(rule["toolName"])
                for ours in rules_from_claude(text, session.tools):
                    (session.grant if update.get("behavior") == "allow" else session.deny)(ours)


def _suggestion(rule: str) -> dict[str, Any]:
    name, _, rest = rule.partition("(")
    entry: dict[str, Any] = {"toolName": name}
    if rest:
        entry["ruleContent"] = rest[:-1]
    return {"type": "addRules", "rules": [entry], "behavior": "allow", "destination": "session"}


@dataclass(frozen=True)
class UserInput:
    """A user message: its text, its images, or why its content could not be used."""

    text: str
    images: tuple[Image, ...] = ()
    error: str | None = None


def user_input(message: dict[str, Any], cwd: Path) -> UserInput:
    """A stream-JSON user message's text and image blocks (Claude's format: base64 or a file: URL)."""
    body = message.get("message")
    content = body.get("content") if isinstance(body, dict) else None
    listed = content if isinstance(content, list) else []
    blocks = [b for b in listed if isinstance(b, dict) and b.get("type") == "image"]
    try:
        images = tuple(image_block(b, cwd) for b in blocks)
    except UsageError as exc:
        return UserInput(user_text(message), error=str(exc))
    return UserInput(user_text(message), images)


def user_text(message: dict[str, Any]) -> str:
    """The text of a stream-JSON user message (a string, or text blocks; other blocks are dropped)."""
    body = message.get("message")
    content = body.get("content") if isinstance(body, dict) else None
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict) and b.get("type") == "text")
    return ""

