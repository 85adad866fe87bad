"""The MCP server: `run_task` (a whole agent turn) and sigit's plain tools, over `AgentSession`.

Two hosts: `run_task` sessions load models on the main host; plain tool calls run in one session
per workspace on a host whose "model" is `NoModel`, so reading a file loads nothing. Both open
sessions the way every frontend does (`SessionHost.open`), so a workspace's settings, trust,
permission rules, hooks and sandbox apply to a caller's calls exactly as to the model's.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import time
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final, Literal

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from onde import InferenceError, Runtime, expand_home
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ... import __version__
from ...app import AgentSession, SessionHost
from ...errors import SigitError, UsageError
from ...events import ToolFinished
from ...options import HostOptions
from ...permissions import parse_mode
from ...sessions import SessionError
from ...tools.base import plain_schema
from .asking import Caller, Rounds, approve, request_state_boundary
from .offered import MAX_ARGUMENT_BYTES, TASK_TOOL, WORKSPACE_ARG, plain_tools, workspace_schema
from .report import TaskReport, summary_text

log = logging.getLogger("sigit.mcp")

MODE_RANK: Final = {"plan": 0, "default": 1, "accept-edits": 2, "bypass": 3}
"""Permission modes from the strictest: a caller may ask for its task a mode no looser than the server's."""
HEARTBEAT_S: Final = 10.0
"""Seconds without a step after which a task sends a "still working" progress notification."""
OPEN_TASKS: Final = 8
"""`run_task` sessions kept open for a quick continuation; older idle ones are closed (and stay saved)."""
INSTRUCTIONS: Final = (
    "siGit Code runs a coding agent on a model on this machine. Hand it routine work with run_task "
    "(a rename, a test run, a summary of a large file, a batch of edits): it answers with the result, "
    "the diff of the files it changed, the commands it ran and a session_id to continue. The other tools "
    "are its file, search and command tools, one call at a time, under the same permission rules and sandbox."
)


class RunTaskArgs(BaseModel):
    """`run_task`'s arguments (its input schema is this model's)."""

    model_config = ConfigDict(extra="forbid")

    prompt: str = Field(min_length=1, description="The task, as you would type it to a coding agent.")
    cwd: str | None = Field(
        None,
        description="Absolute path of the workspace (default: the folder `sigit mcp` "
        "was started in; a continued session keeps its own).",
    )
    permission_mode: Literal["default", "accept-edits", "plan", "bypass"] | None = Field(
        None,
        description="default asks before edits and commands; accept-edits edits without asking; plan is "
        "read-only. No looser than the server's own --permission-mode.",
    )
    max_turns: int | None = Field(None, ge=1, le=200, description="Rounds of tool calls before the task stops.")
    model: str | None = Field(
        None,
        description="The model to run it on (a registry name, a .gguf path, "
        "openai:URL#MODEL...); default: the server's.",
    )
    session_id: str | None = Field(None, description="Continue this earlier task (its session_id).")


class NoModel(Runtime):
    """The "model" of the plain tools' sessions: they run the caller's calls and never ask a model."""

    name = "none"

    @property
    def context_size(self) -> int:
        return 0

    def stream(self, request: Any, cancel: Any = None) -> Any:
        raise InferenceError("this session runs a caller's tool calls only: it has no model")


class SigitMcp:
    """The state behind the handlers: the hosts, the open sessions, the workspace default."""

    def __init__(self, options: HostOptions, default_cwd: Path, roots: Sequence[Path] = ()) -> None:
        self.options = options
        self.default_cwd = default_cwd
        self.roots = tuple(roots) or (default_cwd,)
        """The folders fixed at start (`--cwd`, `--add-dir`): a call's workspace may only narrow them."""
        self.host = SessionHost(options)
        self.tools_host = SessionHost(options, runtime=NoModel())
        self.tools = {tool.name: tool for tool in plain_tools()}
        self._workspaces: dict[Path, AgentSession] = {}
        self._opening: dict[Path, asyncio.Lock] = {}
        self._tasks: OrderedDict[str, AgentSession] = OrderedDict()
        self._base_modes: dict[str, str] = {}
        self._ids = itertools.count(1)
        self._closing: set[asyncio.Task[list[str]]] = set()
        self._busy: set[str] = set()
        """Sessions a `run_task` call is using (from its open to its answer)."""
        self.rounds = Rounds()

    def server(self) -> Server[Any]:
        server: Server[Any] = Server(
            "sigit",
            version=__version__,
            title="siGit Code",
            instructions=INSTRUCTIONS,
            on_list_tools=self.list_tools,
            on_call_tool=self.call_tool,
        )
        server.middleware.append(request_state_boundary())
        return server

    # ------------------------------------------------------------------ handlers

    async def list_tools(
        self, ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        task = types.Tool(
            name=TASK_TOOL,
            title="Run a task with siGit's local agent",
            input_schema=plain_schema(RunTaskArgs),
            description="Run a whole coding task with the local agent in a workspace and get back its answer, "
            "a unified diff of the files it changed, the commands it ran, token usage and why it stopped. "
            "Long tasks report progress and can be cancelled; pass the session_id it returns to continue.",
        )
        tools = [task]
        for tool in self.tools.values():
            tools.append(
                types.Tool(
                    name=tool.name,
                    description=tool.description,
                    input_schema=workspace_schema(tool),
                    annotations=types.ToolAnnotations(
                        read_only_hint=tool.read_only, destructive_hint=not tool.read_only and tool.kind == "delete"
                    ),
                )
            )
        return types.ListToolsResult(tools=tools)

    async def call_tool(
        self, ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        name, arguments = params.name, params.arguments or {}
        if name != TASK_TOOL and name not in self.tools:
            known = ", ".join([TASK_TOOL, *self.tools])
            shown = name if len(name) <= 100 else name[:97] + "..."
            raise MCPError(types.INVALID_PARAMS, f"unknown tool {shown!r}; this server offers: {known}")
        try:
            size = len(json.dumps(arguments, ensure_ascii=False).encode("utf-8", "surrogatepass"))
        except RecursionError:
            return _error(f"the arguments of {name} are nested too deeply to read")
        if size > MAX_ARGUMENT_BYTES:
            return _error(
                f"the arguments of {name} are {size} bytes of JSON; siGit takes at most "
                f"{MAX_ARGUMENT_BYTES} in one call (write big content in several edits)"
            )
        return await self.rounds.serve(ctx, params, lambda caller: self._call(caller, name, arguments))

    async def _call(self, caller: Caller, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        try:
            if name == TASK_TOOL:
                return await self._run_task(caller, arguments)
            return await self._run_plain(name, arguments)
        except UsageError as exc:  # a bad cwd, session id, model name or settings file: the caller's to fix
            return _error(str(exc))
        except SigitError as exc:  # the model could not be loaded
            log.warning("%s failed: %s", name, exc)
            return _error(str(exc))

    # ------------------------------------------------------------------ run_task

    async def _run_task(self, caller: Caller, raw: dict[str, Any]) -> types.CallToolResult:
        try:
            args = RunTaskArgs.model_validate(raw)
        except ValidationError as exc:
            return _error(f"invalid arguments for {TASK_TOOL}: {_problems(exc)}")
        if args.session_id is not None and args.session_id in self._busy:
            return _error(f"session {args.session_id} is running a task already: wait for it (or cancel it)")
        session = await self._task_session(args)
        if session.id in self._busy:
            return _error(f"session {session.id} is running a task already: wait for it (or cancel it)")
        self._busy.add(session.id)
        try:
            return await self._run_in(caller, session, args)
        finally:
            self._busy.discard(session.id)

    async def _run_in(self, caller: Caller, session: AgentSession, args: RunTaskArgs) -> types.CallToolResult:
        base = self._base_modes.get(session.id, session.mode)
        if args.permission_mode is not None:
            wanted = parse_mode(args.permission_mode)
            if MODE_RANK[wanted] > MODE_RANK.get(base, 1):
                return _error(
                    f"permission_mode {wanted} is looser than this server allows ({base}); start "
                    f"`sigit mcp --permission-mode {wanted}` to allow it"
                )
            session.set_mode(wanted)
        else:
            session.set_mode(base)
        session.max_rounds = args.max_turns or self.options.max_rounds
        report = TaskReport(session.id)
        if not session.trusted:
            report.notices.append(
                f"the folder {session.cwd} is not trusted: its project hooks, MCP servers, model and permission "
                "settings are ignored (`sigit trust DIR` trusts it; `sigit mcp --trust` trusts every folder)"
            )
        turn = asyncio.ensure_future(self._turn(caller, session, args.prompt, report))
        try:
            await asyncio.shield(turn)
        except BaseException:  # the caller cancelled: stop the agent, let the turn end (and save) first
            session.cancel()
            with anyio.CancelScope(shield=True):
                await asyncio.wait({turn})
            raise
        diff = await asyncio.to_thread(session.turn_diff)
        result = report.result(diff)
        return types.CallToolResult(
            content=[types.TextContent(text=summary_text(result))],
            structured_content=result,
            is_error=result["is_error"],
        )

    async def _turn(self, caller: Caller, session: AgentSession, prompt: str, report: TaskReport) -> None:
        progress = _Progress(caller, report)
        beat = asyncio.ensure_future(progress.heartbeat())
        try:
            async for event in session.prompt(prompt):
                message = report.handle(event)
                if message is not None:
                    await progress.send(message)
        finally:
            beat.cancel()

    async def _task_session(self, args: RunTaskArgs) -> AgentSession:
        """The session for a task: a continued one (open here, or saved), or a new one in the workspace."""
        cwd = _workspace(args.cwd, self.default_cwd, self.roots) if args.cwd is not None else None
        if args.session_id is not None:
            session = self._tasks.get(args.session_id)
            if session is None:
                try:
                    saved = await asyncio.to_thread(self.host.store.load, args.session_id)
                except SessionError as exc:
                    raise UsageError(f"cannot continue session {args.session_id!r}: {exc}") from None
                if cwd is not None and cwd != saved.cwd.resolve():
                    raise UsageError(f"session {args.session_id} works in {saved.cwd}, not {cwd}")
                _inside_roots(saved.cwd, self.roots, f"session {args.session_id} works in {saved.cwd}, which")
                session = await self.host.open(saved.cwd, session=saved, approver=approve, model=args.model)
                self._keep(session)
            elif cwd is not None and cwd != session.cwd.resolve():
                raise UsageError(f"session {args.session_id} works in {session.cwd}, not {cwd}")
            if args.model is not None and args.model != session.session.model and not session.running:
                new = await self.host.switch_model(session, args.model)
                self._tasks.pop(session.id, None)
                self._keep(new)
                session = new
            return session
        session = await self.host.open(cwd or self.default_cwd, approver=approve, model=args.model)
        self._keep(session)
        return session

    def _keep(self, session: AgentSession) -> None:
        self._base_modes.setdefault(session.id, session.mode)
        self._tasks[session.id] = session
        self._tasks.move_to_end(session.id)
        idle = [s for s in self._tasks.values() if s.id not in self._busy and not s.running]
        for old in idle[: max(0, len(self._tasks) - OPEN_TASKS)]:
            self._tasks.pop(old.id, None)
            closing = asyncio.ensure_future(old.close())
            self._closing.add(closing)
            closing.add_done_callback(self._closing.discard)

    # ------------------------------------------------------------------ plain tools

    async def _run_plain(self, name: str, raw: dict[str, Any]) -> types.CallToolResult:
        arguments = dict(raw)
        where = arguments.pop(WORKSPACE_ARG, None)
        if where is not None and not isinstance(where, str):
            return _error(f"`{WORKSPACE_ARG}` must be a string (an absolute path), got {type(where).__name__}")
        session = await self._workspace_session(_workspace(where, self.default_cwd, self.roots))
        call_id = f"mcp_{next(self._ids)}"
        finished: ToolFinished | None = None
        try:
            async for event in session.run_tool(call_id, name, arguments):
                if isinstance(event, ToolFinished):
                    finished = event
        except BaseException:
            session.cancel()  # a cancelled call stops its command (the workspace's other calls too)
            raise
        if finished is None:
            return _error(f"{name} ended without a result")
        text = finished.output if not finished.diff else f"{finished.output}\n\n{finished.diff}"
        return types.CallToolResult(content=[types.TextContent(text=text)], is_error=finished.is_error)

    async def _workspace_session(self, cwd: Path) -> AgentSession:
        """The plain tools' session of `cwd`, opened once (no model) and kept."""
        lock = self._opening.setdefault(cwd, asyncio.Lock())
        async with lock:
            session = self._workspaces.get(cwd)
            if session is None:
                session = await self.tools_host.open(cwd, approver=approve)
                self._workspaces[cwd] = session
            return session

    async def close(self) -> None:
        """Stop what runs and close every session (the caller has gone)."""
        await self.rounds.close()
        if self._closing:
            await asyncio.wait(self._closing)
        sessions = [*self._tasks.values(), *self._workspaces.values()]
        self._tasks.clear()
        self._workspaces.clear()
        for session in sessions:
            session.cancel()
        for session in sessions:
            try:
                await asyncio.wait_for(session.close(), 5)
            except (TimeoutError, OSError):
                log.warning("session %s did not close cleanly", session.id)


class _Progress:
    """A task's progress notifications: one per step, and one every `HEARTBEAT_S` while the model thinks
    without a step (clients that time a call out reset their clock on progress)."""

    def __init__(self, caller: Caller, report: TaskReport) -> None:
        self.caller = caller
        self.report = report
        self.last = time.monotonic()
        self.working = True

    async def send(self, message: str) -> None:
        self.last = time.monotonic()
        if not self.working:
            return
        try:
            await self.caller.report_progress(self.report.steps, message[:300])
        except Exception:  # the caller has gone (or cancelled): the turn goes on to its end
            self.working = False

    async def heartbeat(self) -> None:
        while self.working:
            await asyncio.sleep(HEARTBEAT_S)
            if time.monotonic() - self.last >= HEARTBEAT_S:
                self.report.steps += 1
                await self.send("still working")


def _workspace(where: str | None, default: Path, roots: Sequence[Path]) -> Path:
    """A workspace argument as a folder inside one of the server's roots (UsageError for a relative
    path, one that is no folder, or one outside the roots, links resolved: a call may only narrow
    what the server was started on, never widen it)."""
    if where is None or where == "":
        return default
    path = expand_home(where)
    if not path.is_absolute():
        raise UsageError(f"the workspace must be an absolute path, got {where!r}")
    if not path.is_dir():
        raise UsageError(f"the workspace {where} is not a directory")
    return _inside_roots(path.resolve(), roots, f"the workspace {where}")


def _inside_roots(path: Path, roots: Sequence[Path], what: str) -> Path:
    resolved = path.resolve()
    if any(resolved.is_relative_to(root) for root in roots):
        return resolved
    served = ", ".join(str(root) for root in roots)
    raise UsageError(
        f"{what} is outside the folders this server serves ({served}); a call may only name a folder "
        "inside them. Start `sigit mcp --cwd DIR` (or add `--add-dir DIR`) to serve another."
    )


def _error(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=text)], is_error=True)


def _problems(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err["loc"]) or "arguments"
        got = json.dumps(err.get("input"), ensure_ascii=False, default=str)
        got = got if len(got) <= 80 else got[:77] + "..."
        parts.append(f"`{where}` is required" if err["type"] == "missing" else f"`{where}`: {err['msg']} (got {got})")
    return "; ".join(parts)
