"""Slash commands in the TUI: `sigit.commands` runs them; this shows their results as notices, tabs
and modals."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from ...commands import CommandResult, builtins

if TYPE_CHECKING:
    from .chat import ChatLog
    from .session_view import SessionView

KEYS_HELP = "\n".join([
    "Keys:", "",
    "- Enter send · Shift+Enter/Ctrl+J newline · Up/Down history · Tab complete",
    "- Esc/Ctrl+C cancel the turn (Esc in a permission question too) · Ctrl+C twice or Ctrl+D quit · Ctrl+O models",
    "- Ctrl+T expand/collapse tool calls · Ctrl+N new session tab · Alt+W close it",
    "- Alt+1..4 or /tab 1..4: the session, History, Repo, Status tab · Ctrl+PageUp/PageDown: previous/next tab",
    "- Esc on History, Repo or Status: back to the session",
])


def command_list() -> list[tuple[str, str]]:
    """Names and help of the built-in commands, for completion."""
    return [(c.name, c.help) for c in builtins("tui")]


class CommandUI(Protocol):
    """What a command's result may ask of the app (`SigitApp`): its chat, tabs, model and turns."""

    @property
    def tools_expanded(self) -> bool: ...

    @property
    def view(self) -> SessionView: ...

    @property
    def chat(self) -> ChatLog: ...

    async def notice(self, message: str, level: str = "info") -> None: ...

    def action_toggle_tools(self) -> None: ...

    async def new_session(self, *, resume: str | None = None) -> SessionView: ...

    async def action_close_session(self) -> None: ...

    async def open_saved(self, session_id: str) -> None: ...

    def show_tab(self, tab: str) -> None: ...

    def show_tab_named(self, which: str) -> str | None: ...

    def action_models(self) -> None: ...

    def switch_model(self, name: str) -> None: ...

    def start_turn(self, text: str, shown: str | None = None) -> None: ...

    def refresh_status(self) -> None: ...

    def exit(self, result: int | None = None) -> None: ...


async def show(app: CommandUI, result: CommandResult) -> None:
    """Do what a command's result asks of the UI, and show its text in the chat."""
    action = result.action
    if action == "clear_chat":
        await app.chat.clear_log()
    elif action == "toggle_tools":
        app.action_toggle_tools()
        await app.notice(f"Tool calls {'expanded' if app.tools_expanded else 'collapsed'}.")
    if result.text and action not in ("pick_model", "show_status"):  # the picker and the tab show those
        await app.view.notice(result.text, result.level, markdown=True)
    if action == "new_tab":
        await app.new_session()
    elif action == "close_tab":
        await app.action_close_session()
    elif action == "exit":
        app.exit(0)
    elif action == "show_history":
        app.show_tab("history")
    elif action == "open_session":
        await app.open_saved(result.target)
    elif action == "show_status":
        app.show_tab("status")
    elif action == "show_tab":
        if (problem := app.show_tab_named(result.target)) is not None:
            await app.view.notice(problem, "error")
    elif action == "pick_model":
        app.action_models()
    elif action == "switch_model":
        app.switch_model(result.target)
    if result.prompt is not None:
        app.start_turn(result.prompt, shown=result.shown)
    app.refresh_status()
