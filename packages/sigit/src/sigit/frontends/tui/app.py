"""The Textual app: a thin adapter from the agent's event stream to widgets.

Everything slow runs in workers: opening a session (which loads the model in a thread), each turn,
git, listing sessions. The permission prompt is the agent's `Approver`: it pushes a modal and awaits it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from qwen_runtime.runtime import Runtime
from qwen_runtime.types import AssistantMessage as RtAssistant
from qwen_runtime.types import ToolMessage
from qwen_runtime.types import UserMessage as RtUser
from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Static, TabbedContent, TabPane

from ...agent.events import (
    Notice,
    PermissionAnswered,
    PermissionAsked,
    PermissionReply,
    ReasoningDelta,
    TextDelta,
    TodosUpdated,
    ToolCallRequested,
    ToolFinished,
    ToolStarted,
    TurnFinished,
    UsageUpdated,
)
from ...options import HostOptions

if TYPE_CHECKING:
    from ...app import AgentSession, SessionHost
from ...config.settings import PermissionMode
from ...sessions import Session, SessionError
from . import commands
from .chat import AssistantMessage, ChatLog, NoticeLine, ThinkingBlock, ToolCallBlock, UserMessage
from .input import PromptArea, PromptInput
from .screens import ModelPicker, PermissionScreen
from .tabs import HistoryPane, RepoPane, StatusPane, status_text

QUIT_WINDOW_S = 2.0
TABS = ("session", "history", "repo", "status")


@dataclass
class TuiOptions:
    cwd: Path
    host: HostOptions = field(default_factory=HostOptions)
    resume: str | None = None
    continue_last: bool = False


class SigitApp(App[int]):
    """siGit Code's terminal UI."""

    CSS_PATH = "sigit.tcss"
    TITLE = "siGit Code"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+c", "interrupt", "Cancel/Quit", priority=True, show=False),
        Binding("ctrl+d", "quit_app", "Quit", priority=True),
        Binding("escape", "cancel_turn", "Cancel", show=False),
        Binding("ctrl+o", "models", "Models"),
        Binding("ctrl+t", "toggle_tools", "Tools"),
        *(Binding(f"alt+{i}", f"show_tab('{tab}')", tab.title(), show=False)
          for i, tab in enumerate(TABS, 1)),
    ]

    def __init__(self, options: TuiOptions, *, runtime: Runtime | None = None) -> None:
        super().__init__()
        self.options = options
        self.runtime_override = runtime
        self._host: SessionHost | None = None
        self.agent_session: AgentSession | None = None
        self.model_name = options.host.model or "(default)"
        self.turn_running = False
        self.tools_expanded = False
        self.mode_before_plan: PermissionMode = "default"
        self._last_interrupt = 0.0
        self._usage: UsageUpdated | None = None
        self._loading = "Loading model…"

    @property
    def host(self) -> SessionHost:
        """The agent core loads on first use, after the first paint (it is most of the start-up time)."""
        if self._host is None:
            from ...app import SessionHost

            self._host = SessionHost(self.options.host, runtime=self.runtime_override)
        return self._host

    @host.setter
    def host(self, value: SessionHost) -> None:
        self._host = value

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        with TabbedContent(initial="session", id="tabs"):
            with TabPane("Session", id="session"):
                yield ChatLog(id="chat")
                yield PromptArea([(c.name, c.help) for c in commands.COMMANDS.values()], id="prompt-area")
            with TabPane("History", id="history"):
                yield HistoryPane(id="history-pane")
            with TabPane("Repo", id="repo"):
                yield RepoPane(id="repo-pane")
            with TabPane("Status", id="status"):
                yield StatusPane(id="status-pane")
        yield Static("", id="statusbar")

    @property
    def chat(self) -> ChatLog:
        return self.query_one(ChatLog)

    @property
    def prompt_input(self) -> PromptInput:
        return self.query_one(PromptInput)

    def on_mount(self) -> None:
        self.prompt_input.focus()
        self.refresh_status()
        self.open_session(first=True)

    # ------------------------------------------------------------------ sessions

    @work(exclusive=True, group="session")
    async def open_session(
        self, session: Session | None = None, host: SessionHost | None = None, *, first: bool = False
    ) -> None:
        host = host or self.host
        cwd = self.options.cwd
        self._loading = f"Loading {self.model_name}…"
        self.refresh_status()
        try:
            if first and self.options.resume:
                session = await asyncio.to_thread(host.store.load, self.options.resume)
            elif first and self.options.continue_last:
                session = await asyncio.to_thread(host.store.latest, cwd)
                if session is None:
                    await self.notice(f"No saved session for {cwd} to continue; starting a new one.",
                                      "warning")
            if session is not None:
                cwd = session.cwd
            opened = await host.open(cwd, session=session, approver=self.ask_permission)
        except SessionError as exc:
            self._loading = ""
            await self.notice(str(exc), "error")
            if first:
                self.open_session()
            return
        except Exception as exc:  # a model that fails to load: say so, keep the app usable
            self._loading = f"No model: {exc}"
            await self.notice(f"Could not load model {self.model_name}: {exc}", "error")
            self.refresh_status()
            return
        old, self.agent_session, self.host = self.agent_session, opened, host
        self.model_name = host.model_name(opened.settings)
        self._loading = ""
        self._usage = None
        if old is not None and old.id != opened.id:
            await old.close()
            await self.chat.clear_log()
        if opened.session.messages and (old is None or old.id != opened.id):
            await self.replay(opened.session)
        self.refresh_status()
        self.query_one(HistoryPane).attach(host.store)
        self.query_one(RepoPane).attach(opened.cwd)

    def require_session(self) -> AgentSession:
        if self.agent_session is None:
            raise SessionError("the model is still loading")
        return self.agent_session

    async def replay(self, session: Session) -> None:
        """Show a restored conversation: messages, and tool calls with their results."""
        chat = self.chat
        for message in session.messages:
            if isinstance(message, RtUser):
                await chat.add(UserMessage(message.content))
            elif isinstance(message, RtAssistant):
                if message.content.strip():
                    await chat.add(AssistantMessage(message.content))
                for call in message.tool_calls:
                    block = ToolCallBlock(call.id, call.name, call.name, call.arguments)
                    chat.tool_blocks[call.id] = block
                    await chat.add(block)
            elif isinstance(message, ToolMessage) and message.tool_call_id in chat.tool_blocks:
                chat.tool_blocks[message.tool_call_id].finish(message.content, False, None)
        await chat.add(NoticeLine(f"Resumed session {session.id} ({len(session.messages)} messages)."))

    def open_saved(self, session_id: str) -> None:
        try:
            session = self.host.store.load(session_id)
        except SessionError as exc:
            self.call_later(self.notice, str(exc), "error")
            return
        self.cancel_turn()
        self.show_tab("session")
        self.open_session(session)

    def switch_model(self, name: str) -> None:
        """Reopen the current conversation on another model (loaded in a worker)."""
        self.cancel_turn()
        session = None
        if self.agent_session is not None:
            self.agent_session.save()
            session = self.agent_session.session
            session.model = name
        self.model_name = name
        from ...app import SessionHost

        host = SessionHost(dataclasses.replace(self.host.options, model=name), runtime=self.runtime_override)
        self.call_later(self.notice, f"Switching to {name}…")
        self.open_session(session, host)

    # ------------------------------------------------------------------ permission prompt

    async def ask_permission(self, request: PermissionAsked) -> PermissionReply:
        """The agent's Approver: a modal, awaited; dismissed if the turn is cancelled meanwhile."""
        answer: asyncio.Future[PermissionReply] = asyncio.get_running_loop().create_future()
        screen = PermissionScreen(request)

        def done(reply: PermissionReply | None) -> None:
            if not answer.done():
                answer.set_result(reply or PermissionReply(False, reason="denied by the user"))

        await self.push_screen(screen, callback=done)
        try:
            return await answer
        finally:
            if screen.is_attached and self.screen is screen:
                self.pop_screen()
            self.prompt_input.focus()

    # ------------------------------------------------------------------ turns

    @on(PromptInput.Submitted)
    async def _submitted(self, event: PromptInput.Submitted) -> None:
        text = event.text.strip()
        if text.startswith("/"):
            await self.run_command(text)
            return
        self.start_turn(text)

    async def run_command(self, text: str) -> None:
        name, arg = commands.parse(text)
        command = commands.COMMANDS.get(name)
        if command is None:
            near = ", ".join(f"/{n}" for n in commands.suggest(name)) or "see /help"
            await self.notice(f"Unknown command /{name}. Did you mean: {near}", "error")
            return
        if command.needs_session and self.agent_session is None:
            await self.notice(f"/{name} needs a session; the model is still loading.", "warning")
            return
        if self.turn_running and name not in ("help", "status", "exit", "tools"):
            await self.notice(f"/{name} must wait: a turn is running (Esc cancels it).", "warning")
            return
        await command.handler(self, arg)

    def start_turn(self, text: str, shown: str | None = None) -> None:
        if self.agent_session is None:
            self.call_later(self.notice, "The model is still loading; try again in a moment.", "warning")
            return
        if self.turn_running:
            self.call_later(self.notice, "A turn is running; Esc cancels it.", "warning")
            return
        self.turn_running = True
        self.run_turn(self.agent_session, text, shown or text)

    @work(exclusive=True, group="turn")
    async def run_turn(self, session: AgentSession, text: str, shown: str) -> None:
        chat = self.chat
        self.refresh_status()
        await chat.add(UserMessage(shown))
        reply: AssistantMessage | None = None
        thinking: ThinkingBlock | None = None

        async def end_blocks() -> None:
            nonlocal reply, thinking
            if thinking is not None:
                thinking.finish()
                thinking = None
            if reply is not None:
                await reply.finish()
                reply = None

        try:
            async for event in session.prompt(text):
                if isinstance(event, ReasoningDelta):
                    if thinking is None:
                        thinking = ThinkingBlock()
                        await chat.add(thinking)
                    thinking.add(event.text)
                elif isinstance(event, TextDelta):
                    if thinking is not None:
                        thinking.finish()
                        thinking = None
                    if reply is None:
                        reply = AssistantMessage()
                        await chat.add(reply)
                    await reply.add(event.text)
                elif isinstance(event, ToolCallRequested):
                    await end_blocks()
                    await self._tool_block(event.call_id, event.name, event.title, event.arguments)
                elif isinstance(event, PermissionAsked):
                    block = await self._tool_block(event.call_id, event.name, event.title, event.arguments)
                    block.mark("asking")
                elif isinstance(event, PermissionAnswered):
                    answered = chat.tool_blocks.get(event.call_id)
                    if answered is not None and not event.allowed:
                        answered.mark("denied", event.reason)
                elif isinstance(event, ToolStarted):
                    (await self._tool_block(event.call_id, event.name, event.title, {})).mark("running")
                elif isinstance(event, ToolFinished):
                    block = await self._tool_block(event.call_id, event.name, event.name, {})
                    block.finish(event.output, event.is_error, event.diff)
                    if event.diff:
                        block.collapsed = False
                elif isinstance(event, TodosUpdated):
                    marks = {"completed": "[x]", "in_progress": "[~]"}
                    todo = "\n".join(f"{marks.get(s, '[ ]')} {c}" for c, s in event.todos)
                    await chat.add(NoticeLine(todo))
                elif isinstance(event, UsageUpdated):
                    self._usage = event
                    self.refresh_status()
                elif isinstance(event, Notice):
                    await chat.add(NoticeLine(event.message, event.level))
                elif isinstance(event, TurnFinished):
                    await end_blocks()
                    await self._finished(event)
        except Exception as exc:  # the turn dies, the app does not
            await chat.add(NoticeLine(f"Turn failed: {exc}", "error"))
        finally:
            await end_blocks()
            self.turn_running = False
            self.refresh_status()

    async def _tool_block(self, call_id: str, name: str, title: str, args: dict[str, Any]) -> ToolCallBlock:
        block = self.chat.tool_blocks.get(call_id)
        if block is None:
            block = ToolCallBlock(call_id, name, title, args)
            block.collapsed = not self.tools_expanded
            self.chat.tool_blocks[call_id] = block
            await self.chat.add(block)
        return block

    async def _finished(self, event: TurnFinished) -> None:
        if event.stop_reason == "cancelled":
            await self.notice("Cancelled.", "warning")
        elif event.stop_reason == "error":
            await self.notice(f"Error: {event.error}", "error")
        elif event.stop_reason == "max_tokens":
            await self.notice("The reply hit the token limit.", "warning")

    async def notice(self, message: str, level: str = "info") -> None:
        await self.chat.add(NoticeLine(message, level))

    # ------------------------------------------------------------------ status

    def refresh_status(self) -> None:
        session = self.agent_session
        parts = [self.model_name]
        if self._loading:
            parts.append(self._loading)
        if session is not None:
            parts.append(f"mode {session.agent.policy.mode}")
        usage = self._usage
        if usage is not None:
            parts.append(f"tokens {usage.total_prompt_tokens}↑ {usage.total_completion_tokens}↓")
            parts.append(f"context {usage.context_fill:.0%} of {usage.context_size}")
        if self.turn_running:
            parts.append("● working (Esc cancels)")
        self.query_one("#statusbar", Static).update(" · ".join(parts))
        if self.query_one(TabbedContent).active == "status":
            self.query_one(StatusPane).show(status_text(self.host, session, self.model_name))

    # ------------------------------------------------------------------ actions

    def cancel_turn(self) -> bool:
        if self.turn_running and self.agent_session is not None:
            self.agent_session.cancel()
            return True
        return False

    def action_cancel_turn(self) -> None:
        self.cancel_turn()

    def action_interrupt(self) -> None:
        """Ctrl+C: cancel a running turn; when idle, twice within two seconds quits."""
        if self.cancel_turn():
            return
        now = time.monotonic()
        if now - self._last_interrupt < QUIT_WINDOW_S:
            self.action_quit_app()
            return
        self._last_interrupt = now
        self.notify("Press Ctrl+C again (or Ctrl+D) to quit.", timeout=QUIT_WINDOW_S)

    def action_quit_app(self) -> None:
        self.cancel_turn()
        self.exit(0)

    def action_models(self) -> None:
        def picked(key: str | None) -> None:
            if key and key != self.model_name:
                self.switch_model(key)

        self.push_screen(ModelPicker(self.model_name), callback=picked)

    def action_toggle_tools(self) -> None:
        self.tools_expanded = not self.tools_expanded
        self.chat.set_tools_expanded(self.tools_expanded)

    def action_show_tab(self, tab: str) -> None:
        self.show_tab(tab)

    def show_tab(self, tab: str) -> None:
        self.query_one(TabbedContent).active = tab

    @on(TabbedContent.TabActivated)
    def _tab_activated(self, event: TabbedContent.TabActivated) -> None:
        tab = event.pane.id
        if tab == "session":
            self.prompt_input.focus()
        elif tab == "history":
            self.query_one(HistoryPane).reload()
            self.query_one("#history-table").focus()
        elif tab == "repo":
            self.query_one(RepoPane).reload()
        elif tab == "status":
            self.refresh_status()

    @on(HistoryPane.OpenRequested)
    def _open_requested(self, event: HistoryPane.OpenRequested) -> None:
        self.open_saved(event.session_id)

    async def on_unmount(self) -> None:
        if self.agent_session is not None:
            self.agent_session.cancel()
            await self.agent_session.close()


def create_app(
    cwd: Path | str,
    *,
    runtime: Runtime | None = None,
    model: str | None = None,
    permission_mode: str | None = None,
    config_dir: Path | None = None,
    allow_tools: tuple[str, ...] = (),
    deny_tools: tuple[str, ...] = (),
    resume: str | None = None,
    continue_last: bool = False,
) -> SigitApp:
    """The app factory (tests pass a ScriptedRuntime)."""
    host = HostOptions(model=model, permission_mode=permission_mode, allow_tools=allow_tools,
                       deny_tools=deny_tools, config_dir=config_dir)
    return SigitApp(TuiOptions(Path(cwd).resolve(), host, resume, continue_last), runtime=runtime)
