"""The Textual app: session tabs over one shared host, the side panes, and the status bar.

Each session tab is a `SessionView` that adapts its `AgentSession`'s event stream to widgets in its
own workers. Start-up is kept light: the agent core loads after the first paint (`host`), the
History, Repo and Status panes are built when first shown, and Markdown, syntax highlighting and the
modal screens load when first needed.
"""

from __future__ import annotations

import asyncio
import importlib
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static, TabbedContent, TabPane

from ...options import HostOptions
from . import commands
from .chat import ChatLog
from .input import PromptInput
from .session_view import SessionTabs, SessionView

if TYPE_CHECKING:
    from onde import Runtime

    from ...app import AgentSession, SessionHost
    from ...sandbox import Sandbox

QUIT_WINDOW_S = 2.0
TABS = ("session", "history", "repo", "status")
SIDE_PANES = ("history", "repo", "status")
WARM_MODULES = ("sigit.frontends.tui.reply", "rich.markdown", "rich.syntax", "sigit.frontends.tui.screens")


class MainScreen(Screen[None]):
    """The screen under every dialog. When a dialog closes (trust, picker, permission, confirmation, any
    other), the prompt of the session tab shown takes the focus: the one place that does it, so no dialog's
    own code can forget to, and typed keys are never lost on a widget nobody sees focused.

    The prompt also keeps the focus when Textual would move it away while the prompt is still shown: it
    gets a Hide when a dialog covers it, which can arrive after the dialog has closed, and Textual moves
    the focus off a widget on Hide (to nothing, or to the widget before it: typed keys were lost until a
    tab switch). Focus moved to nothing while a session tab is shown goes to its prompt."""

    def on_screen_resume(self) -> None:
        app = self.app
        if isinstance(app, SigitApp):
            app.focus_prompt()

    def _reset_focus(self, widget: Widget, avoiding: list[Widget] | None = None) -> None:
        """Textual's hook for a focused widget leaving (hidden, removed, blurred)."""
        app = self.app
        stale = (isinstance(app, SigitApp) and self.is_current and widget is app.shown_prompt()
                 and widget.is_on_screen and widget not in (avoiding or []))
        if not stale:
            super()._reset_focus(widget, avoiding)

    def set_focus(self, widget: Widget | None, scroll_visible: bool = True, from_app_focus: bool = False) -> None:
        app = self.app
        if widget is None and self.is_current and isinstance(app, SigitApp):
            widget = app.shown_prompt()
        super().set_focus(widget, scroll_visible, from_app_focus)


@dataclass
class TuiOptions:
    cwd: Path
    host: HostOptions = field(default_factory=HostOptions)
    resume: str | None = None
    continue_last: bool = False
    fork: bool = False


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
        Binding("ctrl+n", "new_session", "New session"),
        Binding("alt+w", "close_session", "Close session"),  # Ctrl+W stays the input's delete-word
        *(Binding(f"alt+{i}", f"show_tab('{tab}')", tab.title(), show=False)
          for i, tab in enumerate(TABS, 1)),
        # Alt+N never arrives where Alt is sent as an ESC prefix (tmux, many terminals): these always do
        Binding("ctrl+pagedown", "cycle_tab(1)", "Next tab", priority=True, show=False),
        Binding("ctrl+pageup", "cycle_tab(-1)", "Previous tab", priority=True, show=False),
    ]

    def __init__(self, options: TuiOptions, *, runtime: Runtime | None = None) -> None:
        super().__init__()
        self.options = options
        self.runtime_override = runtime
        if options.host.on_download is None:  # downloads report to the status bar, not stderr
            options.host.on_download = self.download_progress
        self._host: SessionHost | None = None
        self.tools_expanded = False
        self._last_interrupt = 0.0
        self._current = "session"
        self._opened_tabs = 1
        self._host_lock = asyncio.Lock()
        self._with_sessions: list[SessionView] = []
        self.closing_notes: list[str] = []
        """What the repository guard removed as the sessions closed on quitting: said once the app is gone."""
        """Tabs whose session opened: closed on quit (by then the tabs are no longer in the DOM)."""

    @property
    def host(self) -> SessionHost:
        """The agent core loads on first use, after the first paint (it is most of the start-up time).

        One host for every tab: a model is loaded once however many sessions use it.
        """
        if self._host is None:
            from ...app import SessionHost

            self._host = SessionHost(self.options.host, runtime=self.runtime_override)
        return self._host

    async def load_host(self) -> SessionHost:
        """`host`, with the agent core imported in a thread so the first frames are not held up."""
        async with self._host_lock:
            if self._host is None:
                await asyncio.to_thread(importlib.import_module, "sigit.app")
            return self.host

    # ------------------------------------------------------------------ layout

    def command_list(self) -> list[tuple[str, str]]:
        return commands.command_list()

    def compose(self) -> ComposeResult:
        options = self.options
        with TabbedContent(initial="session", id="tabs"):
            with TabPane("Session", id="session"):
                yield SessionView(self.command_list(), cwd=options.cwd, resume=options.resume,
                                  continue_last=options.continue_last, fork=options.fork,
                                  model=options.host.model)
            for pane in SIDE_PANES:
                yield TabPane(pane.title(), id=pane)
        yield Static("", id="statusbar")

    def get_default_screen(self) -> Screen[None]:
        return MainScreen(id="_default")

    def on_mount(self) -> None:
        self.prompt_input.focus()
        self.refresh_status()

    def shown_prompt(self) -> PromptInput | None:
        """The prompt of the session tab shown; None while a side pane (History, Repo, Status) is shown,
        whose own widget keeps the focus, or while the app closes."""
        try:
            if self.query_one(TabbedContent).active in SIDE_PANES:
                return None
            return self.prompt_input
        except NoMatches:
            return None

    def focus_prompt(self) -> None:
        """The shown session tab's prompt takes the focus (no dialog up, no side pane shown)."""
        prompt = self.shown_prompt()
        if prompt is not None and isinstance(self.screen, MainScreen):
            prompt.focus()

    # ------------------------------------------------------------------ the current session tab

    @property
    def view(self) -> SessionView:
        """The session tab shown, or the one last shown while a side pane is up."""
        try:
            return self.query_one(f"#{self._current}", TabPane).query_one(SessionView)
        except NoMatches:
            return self.query(SessionView).first()

    @property
    def views(self) -> list[SessionView]:
        return list(self.query(SessionView))

    @property
    def agent_session(self) -> AgentSession | None:
        return self.view.agent_session

    @property
    def turn_running(self) -> bool:
        return self.view.turn_running

    @property
    def model_name(self) -> str:
        return self.view.model_name

    @property
    def chat(self) -> ChatLog:
        return self.view.chat

    @property
    def prompt_input(self) -> PromptInput:
        return self.view.prompt_input

    def require_session(self) -> AgentSession:
        return self.view.require_session()

    async def notice(self, message: str, level: str = "info") -> None:
        await self.view.notice(message, level)

    def start_turn(self, text: str, shown: str | None = None) -> None:
        self.view.start_turn(text, shown)

    def cancel_turn(self) -> bool:
        return self.view.cancel_turn()

    def switch_model(self, name: str) -> None:
        self.view.switch_model(name)

    # ------------------------------------------------------------------ session tabs

    async def new_session(self, *, resume: str | None = None) -> SessionView:
        """A new session tab in the current tab's directory (or resuming a saved session)."""
        self._opened_tabs += 1
        pane_id = f"session-{self._opened_tabs}"
        current = self.view
        view = SessionView(self.command_list(), cwd=current.cwd, resume=resume, model=current.model)
        tabs = self.query_one(TabbedContent)
        await tabs.add_pane(TabPane(f"Session {self._opened_tabs}", view, id=pane_id), before="history")
        tabs.active = pane_id
        self._current = pane_id
        view.prompt_input.focus()
        self.refresh_status()
        return view

    async def open_saved(self, session_id: str) -> None:
        """Show a saved session: its tab if one has it open, else a new tab that resumes it."""
        for view in self.views:
            if view.agent_session is not None and view.agent_session.id == session_id:
                pane = view.query_ancestor(TabPane)
                self.show_tab(str(pane.id))
                return
        await self.new_session(resume=session_id)

    def session_opened(self, view: SessionView) -> None:
        """A tab's session opened: point the side panes at it and redraw the status."""
        if view not in self._with_sessions:
            self._with_sessions.append(view)
        if view is self.view:
            self._attach_panes()
        self.refresh_status()
        self._warm_imports()

    @work(thread=True, exclusive=True, group="warm-imports")
    def _warm_imports(self) -> None:
        """Import what the first reply, tool call and prompt need, in a thread while the user types."""
        for module in WARM_MODULES:
            importlib.import_module(module)

    def _attach_panes(self) -> None:
        from .tabs import HistoryPane, RepoPane

        for history in self.query(HistoryPane):
            history.attach(self.host.store)
        for repo in self.query(RepoPane):
            repo.attach(self.view.cwd, self._sandbox())

    def _sandbox(self) -> Sandbox | None:
        """The shown session's sandbox, which the Repo tab runs git in (None: not open yet, or sandbox off)."""
        session = self.agent_session
        return session.sandbox if session is not None else None

    async def action_new_session(self) -> None:
        await self.new_session()

    async def action_close_session(self) -> None:
        if len(self.views) < 2:
            self.notify("This is the only session tab (Ctrl+D quits).")
            return
        view = self.view
        pane_id = str(view.query_ancestor(TabPane).id)
        remaining = [v for v in self.views if v is not view][-1]
        # Show the remaining tab BEFORE removing this one: removing the active tab makes Textual
        # activate its right-hand neighbour (History) by a message that could arrive after ours.
        self._current = str(remaining.query_ancestor(TabPane).id)
        self.show_tab(self._current)
        for sentence in await view.close():
            self.notify(sentence, severity="warning", timeout=30)
        if view in self._with_sessions:
            self._with_sessions.remove(view)
        await self.query_one(TabbedContent).remove_pane(pane_id)
        remaining.prompt_input.focus()
        self.refresh_status()

    # ------------------------------------------------------------------ turns and commands

    @on(PromptInput.Submitted)
    async def _submitted(self, event: PromptInput.Submitted) -> None:
        text = event.text.strip()
        if text.startswith("/"):
            await self.run_command(text)
            return
        self.start_turn(text)

    async def run_command(self, text: str) -> None:
        """A slash command, run by `sigit.commands`; text that only looks like one goes to the model."""
        from ...commands import CommandContext
        from ...commands import run as run_command

        view = self.view
        host = await self.load_host()
        context = CommandContext("tui", view.agent_session, view.cwd, host.config_dir, view.model_name,
                                 running=view.turn_running, keys_help=commands.KEYS_HELP)
        try:
            result = await run_command(context, text)
        except Exception as exc:  # a command that fails is a line in the chat, never the app's end
            await view.notice(f"{text.split()[0]} failed: {exc}", "error")
            return
        if result is None:
            self.start_turn(text)
            return
        await commands.show(self, result)

    # ------------------------------------------------------------------ status

    def download_progress(self, model: str, done: int, total: int | None) -> None:
        """Called from the model-loading thread while a model downloads: shown in the status bar."""
        self.call_from_thread(self.show_download, model, done, total)

    def show_download(self, model: str, done: int, total: int | None) -> None:
        gib = 1024**3
        state = (f"downloading {done / total:.0%} of {total / gib:.1f} GiB" if total
                 else f"downloading {done / gib:.2f} GiB")
        for view in self.views:
            if view.agent_session is None and view.model_name in (model, "(default)"):
                view.load_state = state
        self.refresh_status()

    def refresh_status(self) -> None:
        try:
            bar = self.query_one("#statusbar", Static)
            view = self.view
        except NoMatches:
            return
        parts = view.status_parts()
        views = self.views
        if len(views) > 1:
            parts.insert(0, f"tab {views.index(view) + 1}/{len(views)}")
        bar.update(" · ".join(parts))
        if self.query_one(TabbedContent).active == "status":
            from .tabs import StatusPane, status_text

            session = view.agent_session
            status = session.status() if session is not None else None
            for pane in self.query(StatusPane):
                pane.show(status_text(self.host.config_dir, status, view.model_name))

    # ------------------------------------------------------------------ actions

    def action_cancel_turn(self) -> None:
        """Esc: cancel the running turn; on a side pane (History, Repo, Status), back to the session."""
        if self.query_one(TabbedContent).active in SIDE_PANES:
            self.show_tab(self._current)
            return
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
        for view in self.views:
            view.cancel_turn()
        self.exit(0)

    def action_models(self) -> None:
        """Ctrl+O: the model picker (the first run's, with the current model marked); a pick moves this
        tab's conversation to it."""
        from .screens import ModelPicker

        view = self.view

        def picked(key: str | None) -> None:
            name = key.removeprefix("local:") if key else None
            if name and name != view.model_name:
                view.switch_model(name)

        self.push_screen(ModelPicker(view.model_name), callback=picked)

    def action_toggle_tools(self) -> None:
        self.tools_expanded = not self.tools_expanded
        for view in self.views:
            view.chat.set_tools_expanded(self.tools_expanded)

    def action_show_tab(self, tab: str) -> None:
        self.show_tab(self._current if tab == "session" else tab)

    def show_tab(self, tab: str) -> None:
        self.query_one(TabbedContent).active = tab

    def action_cycle_tab(self, step: int) -> None:
        """Ctrl+PageDown / Ctrl+PageUp: the next or previous tab, session tabs and side panes alike."""
        tabs = self.query_one(TabbedContent)
        order = [str(pane.id) for pane in tabs.query(TabPane)]
        at = order.index(tabs.active) if tabs.active in order else 0
        self.show_tab(order[(at + step) % len(order)])

    def show_tab_named(self, which: str) -> str | None:
        """`/tab N`: N as Alt+N numbers them (1 the session, 2 History, 3 Repo, 4 Status) or a tab's name
        ("history", "session 2"); returns why not, when there is no such tab."""
        wanted = which.strip().lower()
        if wanted.isdigit() and 1 <= int(wanted) <= len(TABS):
            self.action_show_tab(TABS[int(wanted) - 1])
            return None
        for pane in self.query_one(TabbedContent).query(TabPane):
            if wanted in (str(pane.id), str(pane.id).replace("-", " ")) or (
                    wanted == "session" and str(pane.id) == self._current):
                self.show_tab(str(pane.id))
                return None
        return f"No tab {which!r}: /tab 1-4 (session, history, repo, status) or a tab's name."

    async def _side_pane(self, tab: str) -> Widget:
        """The pane's content, built the first time the tab is shown."""
        pane = self.query_one(f"#{tab}", TabPane)
        if not pane.children:
            from .tabs import HistoryPane, RepoPane, StatusPane

            content: Widget = {"history": HistoryPane, "repo": RepoPane, "status": StatusPane}[tab](
                id=f"{tab}-pane")
            await pane.mount(content)
        return pane.children[0]

    @on(TabbedContent.TabActivated)
    async def _tab_activated(self, event: TabbedContent.TabActivated) -> None:
        from .tabs import HistoryPane, RepoPane

        tab = str(event.pane.id)
        if tab not in SIDE_PANES:
            self._current = tab
            self.prompt_input.focus()
            self.refresh_status()
            return
        pane = await self._side_pane(tab)
        if isinstance(pane, HistoryPane):
            pane.attach(self.host.store)
            self.query_one("#history-table").focus()
        elif isinstance(pane, RepoPane):
            if self.agent_session is not None:  # else session_opened attaches it, with the sandbox
                pane.attach(self.view.cwd, self._sandbox())
        else:
            self.refresh_status()

    async def on_history_pane_open_requested(self, event: object) -> None:
        """Open a saved session from History; one saved in another folder is resumed there, so ask first,
        naming both folders (it used to move the working folder without a word)."""
        from .screens import ConfirmScreen
        from .tabs import HistoryPane

        assert isinstance(event, HistoryPane.OpenRequested)
        here, there = self.view.cwd, event.cwd
        already_open = any(v.agent_session is not None and v.agent_session.id == event.session_id for v in self.views)
        if there is None or already_open or there.resolve() == here.resolve():
            await self.open_saved(event.session_id)
            return

        async def answered(yes: bool | None) -> None:
            if yes:
                await self.open_saved(event.session_id)

        self.push_screen(ConfirmScreen(f"Resume this session in {there}?",
                                       f"It was saved in {there}; this tab works in {here}. Resuming opens a "
                                       f"new tab whose tools read, write and run commands in {there}.",
                                       yes="Resume there", no="Stay"), callback=answered)

    async def on_unmount(self) -> None:
        """Close every session (background commands, MCP servers, the sandbox's temp dir)."""
        for view in [*self._with_sessions, *self.views]:
            self.closing_notes += await view.close()  # closing twice is a no-op
        self._with_sessions.clear()


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
    fork: bool = False,
    sandbox_mode: str | None = None,
    trust: bool = False,
) -> SigitApp:
    """The app factory (tests pass a ScriptedRuntime)."""
    host = HostOptions(model=model, permission_mode=permission_mode, allow_tools=allow_tools,
                       deny_tools=deny_tools, config_dir=config_dir, sandbox_mode=sandbox_mode, trust=trust)
    return SigitApp(TuiOptions(Path(cwd).resolve(), host, resume, continue_last, fork), runtime=runtime)


if TYPE_CHECKING:

    def _holds_session_tabs(app: SigitApp) -> SessionTabs:
        """A session tab takes its app for `SessionTabs` (a cast): mypy checks here that it is one."""
        return app
