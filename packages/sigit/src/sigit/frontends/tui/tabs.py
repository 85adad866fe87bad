"""The panes beside the chat: saved sessions (History), the working tree (Repo), and Status.

The app imports this module and builds each pane when its tab is first shown, not before first paint.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.message import Message
from textual.widgets import Button, DataTable, Label, Static

from ...git import run_git_async
from ...sessions import SessionStore, SessionSummary
from ..terminal_text import terminal_safe

if TYPE_CHECKING:
    from ...sandbox import Sandbox
    from ...status import SessionStatus


class HistoryPane(Vertical):
    """Saved sessions, newest first: Enter opens, f forks, d deletes (after a yes in a dialog)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open", "Open"),
        Binding("f", "fork", "Fork"),
        Binding("d", "delete", "Delete"),
        Binding("r", "reload", "Reload"),
    ]

    class OpenRequested(Message):
        def __init__(self, session_id: str, cwd: Path | None = None) -> None:
            super().__init__()
            self.session_id = session_id
            self.cwd = cwd
            """The folder the session was saved in (resuming it works there)."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.store: SessionStore | None = None
        self.summaries: list[SessionSummary] = []

    def compose(self) -> ComposeResult:
        yield Label("Saved sessions (Enter open · f fork · d delete · r reload)", classes="pane-title")
        table: DataTable[str] = DataTable(id="history-table", cursor_type="row", zebra_stripes=True)
        table.add_columns("updated", "title", "msgs", "model", "cwd", "id")
        yield table
        with Horizontal(classes="pane-buttons"):
            yield Button("Open", id="history-open", variant="primary")
            yield Button("Fork", id="history-fork")
            yield Button("Delete", id="history-delete", variant="error")

    def attach(self, store: SessionStore) -> None:
        self.store = store
        self.reload()

    @work(exclusive=True, group="history")
    async def reload(self) -> None:
        if self.store is None:
            return
        self.summaries = await asyncio.to_thread(self.store.list)
        try:
            table = self.query_one(DataTable)
        except NoMatches:  # the app closed while the store was read
            return
        table.clear()
        for s in self.summaries:
            table.add_row(s.updated_at[:16].replace("T", " "), s.title[:48], str(s.messages), model_label(s.model),
                          str(s.cwd), s.id, key=s.id)

    @property
    def selected(self) -> str | None:
        table = self.query_one(DataTable)
        if not self.summaries or table.cursor_row >= len(self.summaries):
            return None
        return self.summaries[table.cursor_row].id

    def action_open(self) -> None:
        if (sid := self.selected) is not None:
            cwd = next(s.cwd for s in self.summaries if s.id == sid)
            self.post_message(self.OpenRequested(sid, cwd))

    def action_fork(self) -> None:
        if self.store is not None and (sid := self.selected) is not None:
            copy = self.store.fork(sid)
            self.app.notify(f"Forked into {copy.id}")
            self.post_message(self.OpenRequested(copy.id, copy.cwd))

    def action_delete(self) -> None:
        """Ask first: one key must not delete a conversation (focus left here, a stray `d`)."""
        from .screens import ConfirmScreen

        if self.store is None or (sid := self.selected) is None:
            return
        summary = next((s for s in self.summaries if s.id == sid), None)
        title = summary.title if summary is not None else sid

        def answered(yes: bool | None) -> None:
            if yes and self.store is not None:
                self.store.delete(sid)
                self.app.notify(f"Deleted session {sid}")
                self.reload()

        self.app.push_screen(ConfirmScreen(f"Delete the saved session “{title}”?",
                                           f"{sid}: its conversation file is removed; this cannot be undone."),
                             callback=answered)

    def action_reload(self) -> None:
        self.reload()

    @on(DataTable.RowSelected)
    def _row_selected(self) -> None:
        self.action_open()

    @on(Button.Pressed, "#history-open")
    def _open(self) -> None:
        self.action_open()

    @on(Button.Pressed, "#history-fork")
    def _fork(self) -> None:
        self.action_fork()

    @on(Button.Pressed, "#history-delete")
    def _delete(self) -> None:
        self.action_delete()


def model_label(model: str) -> str:
    """A model as the History table shows it: its name, not the whole path of its file."""
    scheme, colon, rest = model.partition(":")
    if not colon or "/" in scheme:  # a plain path (or a registry name)
        scheme, rest = "", model
    if "/" not in rest or rest.startswith(("http://", "https://", "//")):
        return model
    name = rest.rstrip("/").rsplit("/", 1)[-1]
    return f"{scheme}:{name}" if scheme else name


async def git(cwd: Path, *args: str, sandbox: Sandbox | None = None) -> str:
    """A git command's output, or its error as text (never raises: the pane shows what happened).

    Hardened and in the session's sandbox (see `sigit.git`): the agent's commands may have planted
    hooks or config in the repository.
    """
    try:
        result = await run_git_async(cwd, *args, sandbox=sandbox)
    except FileNotFoundError:
        return "git is not installed"
    except TimeoutError:
        return f"git {' '.join(args)} timed out"
    except OSError as exc:
        return f"could not run git: {exc}"
    if result.code != 0:
        return result.stderr.strip() or f"git exited with {result.code}"
    return result.stdout.rstrip()


class RepoPane(VerticalScroll):
    """Branch, status and recent commits of the working directory (r reloads)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("r", "reload", "Reload")]

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.cwd: Path | None = None
        self.sandbox: Sandbox | None = None

    def compose(self) -> ComposeResult:
        yield Static("Shown once the session has opened (git runs in its sandbox).", id="repo-body")

    def attach(self, cwd: Path, sandbox: Sandbox | None = None) -> None:
        """Show `cwd`; git runs in `sandbox`, the open session's (None with the sandbox off: hardened only)."""
        self.cwd, self.sandbox = cwd, sandbox
        self.reload()

    def action_reload(self) -> None:
        self.reload()

    @work(exclusive=True, group="repo")
    async def reload(self) -> None:
        if self.cwd is None:
            return
        branch, status, log = await asyncio.gather(
            git(self.cwd, "branch", "--show-current", sandbox=self.sandbox),
            git(self.cwd, "status", "--short", sandbox=self.sandbox),
            git(self.cwd, "log", "--oneline", "-n", "15", sandbox=self.sandbox),
        )
        body = Text()  # the repository's text (commit subjects) with its escapes shown, never sent to the terminal
        body.append(f"{_safe(str(self.cwd))}\n", style="bold")
        body.append("Branch: ", style="bold")
        body.append(f"{_safe(branch or '(detached)')}\n\n")
        body.append("Status\n", style="bold underline")
        body.append(_safe(status or "clean") + "\n\n")
        body.append("Recent commits\n", style="bold underline")
        body.append(_safe(log or "none"))
        with contextlib.suppress(NoMatches):  # the app closed while git ran
            self.query_one("#repo-body", Static).update(body)


def _safe(text: str) -> str:
    """Untrusted text for a `Text`, which Textual writes to the terminal as it is: escapes shown."""
    return terminal_safe(text, keep_sgr=False)


def status_text(config_dir: Path, status: SessionStatus | None, model: str) -> Text:
    out = Text()

    def row(label: str, value: str) -> None:  # values hold project and model text (rules, warnings)
        out.append(f"{label:<16}", style="bold")
        out.append(_safe(value) + "\n")

    row("Model", model)
    row("Config dir", str(config_dir))
    if status is None:
        row("Session", "loading…")
        return out
    row("Runtime", f"{status.runtime} ({status.runtime_state}, context {status.context_size}, "
        f"{'tools' if status.tool_capable else 'no tools'})")
    for label, value in status.model_details:  # what the runtime detected: template, layers, context window
        row(label.capitalize(), value)
    row("Drafting", status.drafting())
    row("Session", f"{status.session_id}  ({status.messages} messages)")
    row("Working dir", str(status.cwd))
    row("Permissions", f"mode {status.mode}, default {status.default_answer}")
    row("Sandbox", status.sandbox)
    row("Allow rules", ", ".join(status.allow_rules) or "none")
    row("Deny rules", ", ".join(status.deny_rules) or "none")
    row("Session grants", ", ".join(status.session_grants) or "none")
    if status.session_denials:
        row("Rejected", ", ".join(status.session_denials))
    row("Tools", ", ".join(status.tools) or "none")
    row("MCP servers", ", ".join(status.mcp_servers) or "none configured")
    for warning in status.warnings:
        out.append(f"warning: {_safe(warning)}\n", style="yellow")
    return out


class StatusPane(VerticalScroll):
    def compose(self) -> ComposeResult:
        yield Static("", id="status-body")

    def show(self, text: Text) -> None:
        self.query_one("#status-body", Static).update(text)
