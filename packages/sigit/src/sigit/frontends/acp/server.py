"""The ACP agent: sessions, prompts, permissions and modes over the shared agent core.

Every session has its own cwd, history, permission policy and file system view; nothing here uses
the process's cwd. The editor is asked through `session/request_permission` (the questions and what
their answers mean are in `permission_requests`), and file reads and writes go through it when it offers `fs`.

A folder that is not trusted yet but whose project files want to run code or loosen safety is asked
about after session/new (or load) is answered, since the editor can show a permission request
only for a session it knows: the session opens in the background, nothing of it runs before the
answer, and requests for it (its first prompt) wait until it is open.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp import RequestError
from acp.helpers import update_available_commands, update_current_mode
from acp.schema import (
    ClientCapabilities,
    ConfigOptionUpdate,
    ForkSessionResponse,
    Implementation,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PromptResponse,
    ResumeSessionResponse,
    SessionConfigOptionSelect,
    SessionConfigSelectOption,
    SessionInfo,
    SessionMode,
    SessionModeState,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
)
from acp.schema import Usage as AcpUsage
from onde import Image

from ...app import AgentSession, AskTrust, SessionHost
from ...commands import CommandContext, CommandResult, model_names
from ...commands import run as run_command
from ...config.trust import ProjectRequests
from ...errors import SigitError, UsageError
from ...events import PermissionAsked, PermissionReply, Usage, stop_sentence
from ...sessions import Session, SessionError
from ...tools import default_registry
from ...tools.base import LocalFileSystem, Tool
from .client_fs import ClientFileSystem, RecordingFileSystem
from .commands import available_commands
from .content import prompt_images, prompt_text
from .handshake import initialize_result, model_sees, version_problem
from .permission_requests import ask_permission, ask_trust
from .terminal import TerminalCalls, terminal_run_command
from .updates import SessionUpdate, UpdateMapper, replay_updates

log = logging.getLogger("sigit.acp")

MODES: tuple[tuple[str, str, str], ...] = (
    ("default", "Default", "Ask before edits, commands and anything that changes the machine"),
    ("accept-edits", "Accept edits", "Edit files in the project without asking; ask for the rest"),
    ("plan", "Plan", "Read-only: investigate and answer with a plan; nothing is changed"),
    ("bypass", "Bypass permissions", "Run everything without asking (deny rules still apply)"),
)
STOP_REASONS = {"end_turn": "end_turn", "max_tokens": "max_tokens", "max_rounds": "max_turn_requests",
                "cancelled": "cancelled", "refusal": "refusal", "loop_guard": "refusal",
                "permission_denied": "end_turn"}
"""ACP's stopReason for each of ours: the loop guard is the agent refusing to go on with a reply that repeats
itself (a sentence in the reply says so); refused calls end an ordinary turn (the editor showed each refusal
on its card). `_meta.sigit.stopReason` carries ours."""


@dataclass
class LiveSession:
    session: AgentSession
    mapper: UpdateMapper
    recorder: RecordingFileSystem
    calls: TerminalCalls = field(default_factory=TerminalCalls)
    busy: bool = False

    @property
    def model(self) -> str:
        return self.session.session.model

    @property
    def mode(self) -> str:
        return self.session.mode


@dataclass
class Opening:
    """A session whose folder is being asked about: answered with the model and mode it would have
    untrusted; `task` opens it once the user has answered."""

    saved: Session
    model: str
    mode: str
    task: asyncio.Task[LiveSession]
    cancelled: asyncio.Event = field(default_factory=asyncio.Event)
    """session/cancel while the folder is being asked about: the waiting prompt ends as cancelled."""

    @property
    def session_id(self) -> str:
        return self.saved.id


class SigitAcpAgent:
    """Handlers are methods looked up by name: never assign an attribute called like one (`cancel`)."""

    def __init__(self, host: SessionHost) -> None:
        self.host = host
        self._conn: Any = None
        self._client_caps = ClientCapabilities()
        self._sessions: dict[str, LiveSession] = {}
        self._opening: dict[str, Opening] = {}
        self._background: set[asyncio.Task[None]] = set()

    def on_connect(self, conn: Any) -> None:
        self._conn = conn

    # ------------------------------------------------------------------ setup

    async def initialize(
        self, protocol_version: int, client_capabilities: ClientCapabilities | None = None,
        client_info: Implementation | None = None, **kwargs: Any,
    ) -> InitializeResponse:
        problem = version_problem(protocol_version)
        if problem is not None:
            raise RequestError.invalid_params({"protocolVersion": problem})
        self._client_caps = client_capabilities or ClientCapabilities()
        if client_info is not None:
            log.info("client: %s %s", client_info.name, client_info.version)
        image = await asyncio.to_thread(model_sees, self.host.options.model)
        return InitializeResponse.model_validate(initialize_result(protocol_version, image=image))

    def set_client_capabilities(self, raw: dict[str, Any]) -> None:
        """The capabilities from an initialize answered before the SDK was loaded."""
        try:
            self._client_caps = ClientCapabilities.model_validate(raw)
        except ValueError:
            log.warning("ignoring client capabilities that do not validate: %.200r", raw)

    async def authenticate(self, method_id: str, **kwargs: Any) -> None:
        raise RequestError.invalid_params({"details": f"unknown auth method {method_id!r}: siGit needs none"})

    # ------------------------------------------------------------------ sessions

    async def new_session(
        self, cwd: str, additional_directories: list[str] | None = None,
        mcp_servers: Sequence[Any] | None = None, **kwargs: Any,
    ) -> NewSessionResponse:
        live = await self._open(_session_dir(cwd), None, mcp_servers)
        return NewSessionResponse(
            session_id=_id(live), modes=_modes(live), config_options=_config_options(live)
        )

    async def load_session(
        self, cwd: str, session_id: str, mcp_servers: Sequence[Any] | None = None, **kwargs: Any,
    ) -> LoadSessionResponse:
        live: LiveSession | Opening | None = self._sessions.get(session_id) or self._opening.get(session_id)
        if live is None:
            saved = self._load_saved(session_id)
            live = await self._open(_session_dir(cwd, saved.cwd), saved, mcp_servers, announce=False)
        else:
            saved = live.session.session if isinstance(live, LiveSession) else live.saved
        # a session still being asked about replays with the built-in tools (its MCP tools are not known yet)
        tools = live.session.tools if isinstance(live, LiveSession) else default_registry()
        for update in replay_updates(saved.messages, tools, saved.cwd):
            await self._send(session_id, update)
        if isinstance(live, LiveSession):
            self._after_reply(session_id, self._announce(live, mcp_servers))
        return LoadSessionResponse(modes=_modes(live), config_options=_config_options(live))

    async def resume_session(
        self, session_id: str, cwd: str, mcp_servers: Sequence[Any] | None = None, **kwargs: Any,
    ) -> ResumeSessionResponse:
        live: LiveSession | Opening | None = self._sessions.get(session_id) or self._opening.get(session_id)
        if live is None:
            saved = self._load_saved(session_id)
            live = await self._open(_session_dir(cwd, saved.cwd), saved, mcp_servers)
        return ResumeSessionResponse(modes=_modes(live), config_options=_config_options(live))

    async def fork_session(
        self, session_id: str, cwd: str, mcp_servers: Sequence[Any] | None = None, **kwargs: Any,
    ) -> ForkSessionResponse:
        if session_id in self._opening:
            await self._ready(session_id)
        original = self._sessions.get(session_id)
        if original is not None:
            original.session.save()
        try:
            copy = self.host.store.fork(session_id) if self._saved(session_id) else _fork_unsaved(original)
        except SessionError as exc:
            raise RequestError.invalid_params({"details": str(exc)}) from None
        live = await self._open(_session_dir(cwd, copy.cwd), copy, mcp_servers)
        return ForkSessionResponse(
            session_id=_id(live), modes=_modes(live), config_options=_config_options(live)
        )

    async def list_sessions(self, cwd: str | None = None, cursor: str | None = None, **kwargs: Any
                            ) -> ListSessionsResponse:
        where = Path(cwd) if cwd else None
        found = await asyncio.to_thread(self.host.store.list, where)
        return ListSessionsResponse(sessions=[
            SessionInfo(session_id=s.id, cwd=str(s.cwd), title=s.title, updated_at=s.updated_at)
            for s in found[:500]
        ])

    async def close_session(self, session_id: str, **kwargs: Any) -> None:
        opening = self._opening.pop(session_id, None)
        if opening is not None:
            opening.task.cancel()
            await asyncio.gather(opening.task, return_exceptions=True)
        live = self._sessions.pop(session_id, None)
        if live is None and opening is not None:
            return
        if live is None:
            raise RequestError.invalid_params({"details": f"no open session {session_id!r}"})
        live.session.cancel()
        await live.session.close()

    async def set_session_mode(self, session_id: str, mode_id: str, **kwargs: Any) -> SetSessionModeResponse:
        live = await self._ready(session_id)
        self._set_mode(live, mode_id)
        return SetSessionModeResponse()

    async def set_config_option(
        self, config_id: str, session_id: str, value: str | bool, **kwargs: Any
    ) -> SetSessionConfigOptionResponse:
        live = await self._ready(session_id)
        if config_id == "mode":
            self._set_mode(live, str(value))
            self._after_reply(session_id, self._send(session_id, update_current_mode(str(value))))
        elif config_id == "model":
            live = await self._switch_model(live, str(value))
        else:
            raise RequestError.invalid_params({"details": f"unknown config option {config_id!r}; "
                                               "expected 'model' or 'mode'"})
        return SetSessionConfigOptionResponse(config_options=_config_options(live))

    # ------------------------------------------------------------------ prompts

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> PromptResponse:
        opening = self._opening.get(session_id)
        if opening is not None and not await _answered(opening):  # the folder question: wait for the answer
            return PromptResponse(stop_reason="cancelled")
        live = await self._ready(session_id)
        if live.busy:
            raise RequestError.invalid_request({"details": "a prompt is already running in this session"})
        live.busy = True
        try:
            sees = live.session.can_see
            images = await prompt_images(prompt, live.session.cwd) if sees else ()
            text = await prompt_text(prompt, images_sent=sees)
            result = await run_command(self._command_context(live), text)
            if result is not None:
                await self._show(live, result)
                if result.prompt is None:
                    return PromptResponse(stop_reason="end_turn")
                text = result.prompt
            if not text:
                raise RequestError.invalid_params({"details": "the prompt is empty"})
            return await self._run_turn(live, text, images)
        finally:
            live.busy = False

    def _command_context(self, live: LiveSession) -> CommandContext:
        return CommandContext("acp", live.session, live.session.cwd, self.host.config_dir, live.model)

    async def _show(self, live: LiveSession, result: CommandResult) -> None:
        """A slash command's result as the editor shows it (actions are the TUI's: none is offered here)."""
        if result.text:
            await self._send(live.session.id, _message(result.text))
        if result.mode_changed:
            await self._send(live.session.id, update_current_mode(live.session.mode))

    async def _run_turn(self, live: LiveSession, text: str, images: tuple[Image, ...] = ()) -> PromptResponse:
        live.mapper.finished = None
        async for event in live.session.prompt(text, images=images):
            for update in live.mapper.handle(event):
                await self._send(live.session.id, update)
        finished = live.mapper.finished
        if finished is None:
            raise RequestError.internal_error({"details": "the turn ended without a result"})
        if finished.stop_reason == "error":
            raise RequestError.internal_error({"details": f"model error: {finished.error}"})
        if finished.stop_reason == "loop_guard" and (why := stop_sentence(finished)):
            await self._send(live.session.id, _message(why))
        meta: dict[str, Any] = {"stopReason": finished.stop_reason,
                                "permissionDenials": len(finished.permission_denials)}
        if finished.cut_off_calls:  # calls a reply at max_tokens left unclosed (their cards show "failed")
            meta["cutOffCalls"] = len(finished.cut_off_calls)
        return PromptResponse(
            stop_reason=STOP_REASONS.get(finished.stop_reason, "end_turn"),
            field_meta={"sigit": meta},
            usage=acp_usage(finished.usage),
        )

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        opening = self._opening.get(session_id)
        if opening is not None:
            opening.cancelled.set()
            return
        live = self._sessions.get(session_id)
        if live is None:
            log.warning("cancel for unknown session %s", session_id)
            return
        live.session.cancel()

    # ------------------------------------------------------------------ internals

    async def _open(
        self, cwd: Path, saved: Session | None, mcp_servers: Sequence[Any] | None, *, announce: bool = True,
    ) -> LiveSession | Opening:
        """The session opened, or (a folder to ask about) opening once the reply is sent."""
        try:
            question = await asyncio.to_thread(self.host.trust_question, cwd)
            settings = await asyncio.to_thread(self.host.settings, cwd, trusted=question is None)
        except UsageError as exc:
            raise RequestError.invalid_params({"details": str(exc)}) from None
        model = self.host.model_name(settings)
        session = saved or Session.create(cwd, model)
        if saved is not None and saved.cwd != cwd:
            session.cwd = cwd
        session_id = session.id
        if question is None:
            live = await self._open_now(cwd, session, mcp_servers)
            if announce:
                self._after_reply(session_id, self._announce(live, mcp_servers))
            return live
        mode = self.host.options.permission_mode or settings.permissions.mode
        task = asyncio.ensure_future(self._open_after_reply(cwd, session, mcp_servers, mode, model))
        task.add_done_callback(lambda done: done.cancelled() or done.exception())  # reported by _ready
        opening = self._opening[session_id] = Opening(session, model, mode, task)
        return opening

    async def _open_now(self, cwd: Path, session: Session, mcp_servers: Sequence[Any] | None) -> LiveSession:
        session_id = session.id
        recorder, calls = self._file_system(session_id), TerminalCalls()
        try:
            agent_session = await self.host.open(
                cwd, session=session, approver=self._approver(session_id), mcp_servers=list(mcp_servers or ()),
                fs=recorder, replace_tools=self._editor_tools(session_id, calls),
                ask_trust=self._trust_asker(session_id),
            )
        except UsageError as exc:
            raise RequestError.invalid_params({"details": str(exc)}) from None
        except SigitError as exc:
            log.warning("could not open a session: %s", exc)
            raise RequestError.internal_error({"details": str(exc)}) from None
        live = self._register(agent_session, recorder, calls)
        log.info("session %s opened in %s (model %s)", session_id, cwd, live.model)
        return live

    async def _open_after_reply(
        self, cwd: Path, session: Session, mcp_servers: Sequence[Any] | None, answered_mode: str,
        answered_model: str,
    ) -> LiveSession:
        """Ask about the folder once the editor knows the session, then open it as the answer says."""
        await asyncio.sleep(0.01)  # the session/new reply first: the editor shows requests for known sessions
        live = await self._open_now(cwd, session, mcp_servers)
        self._opening.pop(session.id, None)
        if live.mode != answered_mode:  # a trusted project's own mode
            await self._send(live.session.id, update_current_mode(live.mode))
        if live.mode != answered_mode or live.model != answered_model:  # the pickers show what runs
            await self._send(live.session.id, ConfigOptionUpdate(session_update="config_option_update",
                                                                 config_options=_config_options(live)))
        await self._announce(live, mcp_servers)
        return live

    async def _ready(self, session_id: str) -> LiveSession:
        """The open session; one still being asked about is waited for."""
        opening = self._opening.get(session_id)
        if opening is not None:
            try:
                return await asyncio.shield(opening.task)
            except RequestError:
                raise
            except asyncio.CancelledError:
                if opening.task.cancelled():
                    raise RequestError.invalid_params({"details": f"session {session_id!r} was closed"}) from None
                raise
            except Exception as exc:
                log.exception("opening session %s failed", session_id)
                raise RequestError.internal_error({"details": f"could not open the session: {exc}"}) from None
        return self._live(session_id)

    def _trust_asker(self, session_id: str) -> AskTrust:
        async def ask(root: Path, requests: ProjectRequests) -> bool:
            return await ask_trust(self._conn, session_id, root, requests)

        return ask

    def _file_system(self, session_id: str) -> RecordingFileSystem:
        """The session's files: through the editor when it offers fs, recorded for diff cards."""
        fs_caps = self._client_caps.fs
        can_read = bool(fs_caps and fs_caps.read_text_file)
        can_write = bool(fs_caps and fs_caps.write_text_file)
        if can_read or can_write:
            return RecordingFileSystem(ClientFileSystem(self._conn, session_id, LocalFileSystem(),
                                                        can_read=can_read, can_write=can_write))
        return RecordingFileSystem(LocalFileSystem())

    def _editor_tools(self, session_id: str, calls: TerminalCalls) -> list[Tool[Any]]:
        """run_command in the editor's terminal, when it offers terminals."""
        return [terminal_run_command(self._conn, session_id, calls)] if self._client_caps.terminal else []

    def _register(self, agent_session: AgentSession, recorder: RecordingFileSystem, calls: TerminalCalls
                  ) -> LiveSession:
        mapper = UpdateMapper(agent_session.tools, agent_session.cwd, recorder, calls=calls)
        live = LiveSession(agent_session, mapper, recorder, calls=calls)
        self._sessions[agent_session.id] = live
        return live

    async def _switch_model(self, live: LiveSession, name: str) -> LiveSession:
        """The session on model `name` (`SessionHost.switch_model` carries everything over)."""
        if name == live.model:
            return live
        if live.busy:
            raise RequestError.invalid_request({"details": "wait for the running prompt to finish (or cancel "
                                                "it) before switching models"})
        live.busy = True  # a prompt arriving meanwhile is refused rather than run on the old model
        try:
            new = await self.host.switch_model(live.session, name)
        except UsageError as exc:
            raise RequestError.invalid_params({"details": f"cannot switch to model {name!r}: {exc}"}) from None
        except SigitError as exc:
            log.warning("could not switch session %s to model %s: %s", live.session.id, name, exc)
            raise RequestError.internal_error({"details": f"{exc}; still using {live.model}"}) from None
        finally:
            live.busy = False
        return self._register(new, live.recorder, live.calls)

    async def _announce(self, live: LiveSession, mcp_servers: Sequence[Any] | None) -> None:
        await self._send(live.session.id, update_available_commands(available_commands(live.session)))
        if mcp_servers:
            # the editor's servers are connected like .mcp.json ones; say which failed, not silently
            status = live.session.mcp_status()
            log.info("session %s MCP servers:\n%s", live.session.id, status)
            failed = [line for line in status.splitlines() if "failed" in line]
            if failed:
                await self._send(live.session.id, _message("_MCP: " + "; ".join(failed) + "_\n\n"))

    def _after_reply(self, session_id: str, work: Coroutine[Any, Any, None]) -> None:
        """Run `work` once the current request's reply is on the wire (updates must follow it)."""

        async def later() -> None:
            try:
                await asyncio.sleep(0.01)
            except asyncio.CancelledError:  # shut down first: the work never starts; closed, not left unawaited
                work.close()
                raise
            try:
                await work
            except Exception:
                log.exception("follow-up updates for session %s failed", session_id)

        task = asyncio.ensure_future(later())
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def _approver(self, session_id: str) -> Any:
        async def approve(request: PermissionAsked) -> PermissionReply:
            live = self._sessions.get(session_id)
            return await ask_permission(self._conn, session_id, request, live.session if live is not None else None)

        return approve

    def _set_mode(self, live: LiveSession, mode_id: str) -> None:
        try:
            live.session.set_mode(mode_id)
        except ValueError as exc:
            raise RequestError.invalid_params({"details": str(exc)}) from None

    def _live(self, session_id: str) -> LiveSession:
        live = self._sessions.get(session_id)
        if live is None:
            raise RequestError.invalid_params({"details": f"unknown session {session_id!r}: "
                                               "create it with session/new or session/load"})
        return live

    def _saved(self, session_id: str) -> bool:
        try:
            return self.host.store.path(session_id).exists()
        except SessionError:
            return False

    def _load_saved(self, session_id: str) -> Session:
        try:
            return self.host.store.load(session_id)
        except SessionError as exc:
            raise RequestError.invalid_params({"details": str(exc)}) from None

    async def _send(self, session_id: str, update: SessionUpdate) -> None:
        await self._conn.session_update(session_id=session_id, update=update)

    async def shutdown(self) -> None:
        """Stop every turn and kill every command (stdin closed: the editor is gone)."""
        for task in list(self._background):
            task.cancel()
        for opening in list(self._opening.values()):
            opening.task.cancel()
        self._opening.clear()
        for live in list(self._sessions.values()):
            live.session.cancel()
        for live in list(self._sessions.values()):
            try:
                await asyncio.wait_for(live.session.close(), 5)
            except (TimeoutError, OSError):
                log.warning("session %s did not close cleanly", live.session.id)
        self._sessions.clear()


def _session_dir(cwd: str, fallback: Path | None = None) -> Path:
    if not cwd:
        if fallback is None:
            raise RequestError.invalid_params({"details": "cwd is required"})
        return fallback
    path = Path(cwd)
    if not path.is_absolute():
        raise RequestError.invalid_params({"details": f"cwd must be an absolute path, got {cwd!r}"})
    if not path.is_dir():
        raise RequestError.invalid_params({"details": f"cwd is not a directory: {cwd}"})
    return path.resolve()


def _fork_unsaved(original: LiveSession | None) -> Session:
    if original is None:
        raise SessionError("no such session to fork")
    source = original.session.session
    return Session.create(source.cwd, source.model)


def acp_usage(usage: Usage) -> AcpUsage:
    """Our `Usage` in ACP's names."""
    return AcpUsage(total_tokens=usage.total_tokens, input_tokens=usage.prompt_tokens,
                    output_tokens=usage.completion_tokens, cached_read_tokens=usage.cache_read_tokens,
                    cached_write_tokens=usage.cache_creation_tokens)


def _message(text: str) -> SessionUpdate:
    from acp import update_agent_message_text

    return update_agent_message_text(text)


async def _answered(opening: Opening) -> bool:
    """Wait until the session is open (True) or the prompt waiting for it is cancelled (False)."""
    opening.cancelled.clear()
    waiter = asyncio.ensure_future(opening.cancelled.wait())
    try:
        await asyncio.wait({opening.task, waiter}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        waiter.cancel()
    return opening.task.done() or not opening.cancelled.is_set()


def _id(live: LiveSession | Opening) -> str:
    return live.session.id if isinstance(live, LiveSession) else live.session_id


def _modes(live: LiveSession | Opening) -> SessionModeState:
    return SessionModeState(
        current_mode_id=live.mode,
        available_modes=[SessionMode(id=i, name=n, description=d) for i, n, d in MODES],
    )


def _config_options(live: LiveSession | Opening) -> list[Any]:
    return [
        SessionConfigOptionSelect(
            id="model", name="Model", category="model", type="select", current_value=live.model,
            description="The model this session runs on; switching keeps the conversation",
            options=[SessionConfigSelectOption(value=n, name=n) for n in model_names(live.model)],
        ),
        SessionConfigOptionSelect(
            id="mode", name="Permissions", category="mode", type="select",
            current_value=live.mode,
            options=[SessionConfigSelectOption(value=i, name=n, description=d) for i, n, d in MODES],
        ),
    ]
