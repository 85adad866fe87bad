"""Modal decisions: the permission prompt, the folder trust question, the model picker (a registry
model, or a .gguf file on this machine) and yes/no confirmations, each a ModalScreen that dismisses with
its answer. Long text is a `Static` (it wraps); a `Label` is one line, cut at the dialog's edge."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import ClassVar

from rich.syntax import Syntax
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.suggester import Suggester
from textual.widgets import Button, Input, OptionList, Static
from textual.widgets.button import ButtonVariant
from textual.widgets.option_list import Option

from ...config.trust import ProjectRequests
from ...events import PermissionAsked, PermissionReply
from .chat import diff_renderable, shown

ANSWERS: dict[str, PermissionReply] = {
    "once": PermissionReply(True, "once"),
    "session": PermissionReply(True, "session"),
    "project": PermissionReply(True, "project"),
    "deny": PermissionReply(False, reason="denied by the user"),
}
LEAVE_SANDBOX_ANSWERS: dict[str, PermissionReply] = {
    "once": PermissionReply(True, "once"),
    "deny": PermissionReply(False, reason="The user chose to keep it in the sandbox; do not retry it."),
}


def answer_button(label: str, id: str, variant: ButtonVariant = "default") -> Button:
    """A dialog's answer: one short line, one under another, so that every answer shows at any width
    (a row of bordered buttons was cut off at 120 columns and at 70)."""
    return Button(Text(label), id=id, variant=variant, compact=True)


def preview_renderable(request: PermissionAsked) -> Syntax | Text:
    preview = request.preview or ""
    if request.command is not None:
        return Syntax(shown(preview), "bash", theme="ansi_dark", word_wrap=True, background_color="default")
    if preview.startswith(("---", "+++")):
        return diff_renderable(preview)
    return Text(shown(preview))


class PermissionScreen(ModalScreen[PermissionReply]):
    """Allow once / always (session) / always (project) / deny, with the diff or command shown; Esc
    dismisses with None: the turn is cancelled, as Esc does anywhere else.

    A command the sandbox refused (`purpose == "leave_sandbox"`) gets its own wording and only two
    answers: run it once without the sandbox, or keep it in.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer('once')", "Allow once"),
        Binding("a", "answer('session')", "Always (session)"),
        Binding("p", "answer('project')", "Always (project)"),
        Binding("n", "answer('deny')", "Deny"),
        Binding("escape", "cancel_turn", "Cancel the turn"),
    ]

    def __init__(self, request: PermissionAsked) -> None:
        super().__init__()
        self.request = request

    @property
    def answers(self) -> dict[str, PermissionReply]:
        return LEAVE_SANDBOX_ANSWERS if self.request.purpose == "leave_sandbox" else ANSWERS

    def compose(self) -> ComposeResult:
        req = self.request
        if req.purpose == "leave_sandbox":
            yield from self._compose_leave_sandbox()
            return
        with Vertical(id="permission-dialog"):
            yield Static(Text(shown(f"Allow {req.title}?"), style="bold"), id="permission-title")
            if req.reason:
                yield Static(Text(shown(req.reason), style="dim"))
            if req.preview:
                with VerticalScroll(id="permission-preview"):
                    yield Static(preview_renderable(req))
            yield Static(Text(shown(f"Always (project) adds the rule {req.suggested_rule} to the project's "
                                    "settings. Esc cancels the turn."), style="dim"), id="permission-rule")
            with Vertical(id="permission-buttons"):
                yield answer_button("[y] Allow once", "once", "primary")
                yield answer_button("[a] Always (session)", "session")
                yield answer_button("[p] Always (project)", "project")
                yield answer_button("[n] Deny", "deny", "error")

    def _compose_leave_sandbox(self) -> ComposeResult:
        req = self.request
        with Vertical(id="permission-dialog"):
            yield Static(Text(shown(req.title), style="bold"), id="permission-title")
            yield Static(Text(shown(req.reason), style="yellow"))
            if req.preview:
                with VerticalScroll(id="permission-preview"):
                    yield Static(preview_renderable(req))
            yield Static(Text(shown(f"It would run unconfined, this once. To allow such commands for good: "
                                    f"{req.suggested_rule}."), style="dim"))
            with Vertical(id="permission-buttons"):
                yield answer_button("[y] Run once without the sandbox", "once", "warning")
                yield answer_button("[n] Keep the sandbox", "deny", "primary")

    def on_mount(self) -> None:
        self.query_one("#once" if self.request.purpose == "tool_call" else "#deny", Button).focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        if event.button.id in self.answers:
            self.dismiss(self.answers[event.button.id])

    def action_answer(self, key: str) -> None:
        if key in self.answers:  # "always" has no meaning for leaving the sandbox
            self.dismiss(self.answers[key])

    def action_cancel_turn(self) -> None:
        self.dismiss(None)


class TrustScreen(ModalScreen[bool]):
    """Trust / Don't trust a folder, with what its project files want; dismisses True to trust."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("t", "answer(True)", "Trust"),
        Binding("n,escape", "answer(False)", "Don't trust"),
    ]

    def __init__(self, root: str, requests: ProjectRequests) -> None:
        super().__init__()
        self.root = root
        self.requests = requests

    def compose(self) -> ComposeResult:
        with Vertical(id="permission-dialog"):
            yield Static(Text(shown(f"Trust the folder {self.root}?"), style="bold"), id="permission-title")
            yield Static(Text("Its project files (.sigit/settings.toml, .mcp.json) want to:", style="dim"))
            with VerticalScroll(id="permission-preview"):
                yield Static(Text("\n".join(f"• {line}" for line in self.requests.lines)), id="trust-wants")
            yield Static(Text("Don't trust: the session uses your own settings only (the project's deny "
                              "rules still apply).", style="dim"))
            with Vertical(id="permission-buttons"):
                yield answer_button("[t] Trust", "trust", "warning")
                yield answer_button("[n] Don't trust", "dont-trust", "primary")

    def on_mount(self) -> None:
        self.query_one("#dont-trust", Button).focus()  # Enter by accident trusts nothing

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "trust")

    def action_answer(self, trust: bool) -> None:
        self.dismiss(trust)


FITS_LABELS = {True: "fits in RAM    ", False: "too big for RAM", None: "RAM unknown    "}
FITS_STYLES = {True: "green", False: "red", None: "dim"}


@dataclass(frozen=True)
class PickerRow:
    """A registry model as the picker shows it (read once, when the picker opens)."""

    key: str
    name: str
    size: str
    fits: bool | None
    tool_capable: bool
    cached: bool


def picker_rows() -> tuple[list[PickerRow], int | None]:
    """The registry's models, with size (`~` where not verified), whether each fits this machine's memory
    (onde's one rule, as `sigit doctor` and `qwen-runtime models` say) and whether it is downloaded; and
    that memory in bytes (None: unknown)."""
    from onde import list_models, machine_memory

    memory = machine_memory()
    rows = [PickerRow(m.key, m.name, m.size_display, m.fits(memory), m.tool_capable, m.is_cached())
            for m in list_models()]
    return rows, memory


def picker_option(row: PickerRow, current: str | None, widths: tuple[int, int]) -> Option:
    """One model's row; `widths`: the name and key columns' (the longest of each, plus a space)."""
    line = Text()
    line.append("● " if row.key == current else "  ", style="bold green")
    line.append(row.name.ljust(widths[0]), style="bold")
    line.append(row.key.ljust(widths[1]), style="dim")
    line.append(f"{row.size:>10}  ")
    line.append(FITS_LABELS[row.fits], style=FITS_STYLES[row.fits])
    line.append("  ")
    line.append("tools   " if row.tool_capable else "no tools", style="cyan" if row.tool_capable else "dim")
    if row.cached:
        line.append("  cached", style="green")
    return Option(line, id=row.key)


LOCAL_FILE = "local-gguf-file"
"""The picker's row for a model file already on this machine (dismisses with `local:PATH`)."""
LOCAL_FILE_LABEL = "Use a .gguf file on this machine…"


class ModelPicker(ModalScreen[str | None]):
    """The one model picker (the first run's and Ctrl+O's): each registry model with its size, whether it
    fits this machine's memory, tools and whether it is downloaded, and a row for a .gguf file already on
    this machine. A model not downloaded yet is confirmed first, naming its size: nothing downloads on
    one key. Dismisses with a registry key, `local:PATH`, or None."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "dismiss_none", "Close")]

    def __init__(self, current: str | None = None, *, suggested: str | None = None, reason: str = "") -> None:
        super().__init__()
        self.current = current
        self.suggested = suggested
        self.reason = reason
        self.rows: list[PickerRow] = []
        self.memory: int | None = None

    def compose(self) -> ComposeResult:
        self.rows, self.memory = picker_rows()
        widths = (max(len(r.name) for r in self.rows) + 1, max(len(r.key) for r in self.rows) + 1)
        options = [picker_option(row, self.current, widths) for row in self.rows]
        options.append(Option(Text("  " + LOCAL_FILE_LABEL, style="bold cyan"), id=LOCAL_FILE))
        title = "Pick a model to download, or use a file you have" if self.reason else "Pick a model"
        with Vertical(id="model-dialog"):
            yield Static(Text(title, style="bold"), id="model-title")
            if self.reason:
                yield Static(Text(self.reason, style="dim"), id="model-reason")
            yield OptionList(*options, id="model-list")
            yield Static(Text("Enter picks it (a model not downloaded yet asks first, naming its size; it goes "
                              "into the Hugging Face cache). Esc: close (`qwen-runtime pull MODEL` downloads "
                              "from a shell; `/load PATH.gguf` opens a file you have).", style="dim"),
                         id="model-help")

    def _highlight(self) -> int:
        """The current model; else the suggested one if it fits; else the first that fits."""
        keys = [row.key for row in self.rows]
        if self.current in keys:
            return keys.index(self.current)
        fitting = [i for i, row in enumerate(self.rows) if row.fits is not False]
        return next((i for i in fitting if keys[i] == self.suggested), fitting[0] if fitting else 0)

    def on_mount(self) -> None:
        option_list = self.query_one(OptionList)
        option_list.highlighted = self._highlight()
        option_list.focus()

    @on(OptionList.OptionSelected, "#model-list")
    def _picked(self, event: OptionList.OptionSelected) -> None:
        if event.option.id == LOCAL_FILE:
            self.app.push_screen(LocalModelScreen(), callback=self._local_file)
            return
        row = next(row for row in self.rows if row.key == event.option.id)
        if row.cached or row.key == self.current:
            self.dismiss(row.key)
            return
        self.app.push_screen(download_question(row, self.memory), callback=partial(self._download_answered, row.key))

    def _local_file(self, path: str | None) -> None:
        if path is not None:
            self.dismiss(f"local:{path}")

    def _download_answered(self, key: str, yes: bool | None) -> None:
        if yes:
            self.dismiss(key)

    def action_dismiss_none(self) -> None:
        self.dismiss(None)


def download_question(row: PickerRow, memory: int | None) -> ConfirmScreen:
    """"Download NAME (SIZE)?", with whether it fits this machine's memory."""
    from onde import human_size

    shown = human_size(memory) if memory is not None else "an unknown amount of"
    fit = {True: f"It fits this machine's {shown} memory.",
           False: f"It is too big for this machine's {shown} memory: it would swap or fail to load.",
           None: "This machine's memory is unknown: whether it fits is not known."}[row.fits]
    return ConfirmScreen(f"Download {row.name} ({row.size})?",
                         f"{fit} It goes into the Hugging Face cache and is then loaded.", yes="Download",
                         no="Not now")


class PathSuggester(Suggester):
    """Completes a path as it is typed: the one directory entry it can only be (Tab or → takes it)."""

    def __init__(self) -> None:
        super().__init__(use_cache=False, case_sensitive=True)

    async def get_suggestion(self, value: str) -> str | None:
        return complete_path(value)


def complete_path(value: str) -> str | None:
    """`value` completed to the longest prefix its directory's entries share (directories end in /)."""
    import os

    if not value:
        return None
    folder, _, start = value.rpartition("/")
    where = os.path.expanduser(folder or ".") if folder or not value.startswith("/") else "/"
    try:
        names = sorted(n for n in os.listdir(where) if n.startswith(start) and (start or not n.startswith(".")))
    except OSError:
        return None
    if not names:
        return None
    common = os.path.commonprefix(names)  # noqa: RUF071  # names in one folder: characters are meant
    if len(names) == 1 and os.path.isdir(os.path.join(where, names[0])):
        common += "/"
    completed = (f"{folder}/" if folder or value.startswith("/") else "") + common
    return completed if completed != value else None


class LocalModelScreen(ModalScreen[str | None]):
    """The path of a .gguf model file on this machine, typed with completion; dismisses with it, or None."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss_none", "Back"),
        Binding("tab", "complete", "Complete", priority=True),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="model-dialog"):
            yield Static(Text("Use a .gguf file on this machine", style="bold"))
            yield Static(Text("Type its path (Tab or → completes it, Enter opens it); Esc goes back. "
                              "`/load PATH.gguf` does the same from the prompt.", style="dim"))
            yield Input(placeholder="~/models/Qwen3-8B-Q4_K_M.gguf", suggester=PathSuggester(), id="gguf-path")
            yield Static("", id="gguf-error", classes="notice-error")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    async def action_complete(self) -> None:
        field = self.query_one(Input)
        completed = complete_path(field.value)
        if completed is not None:
            field.value = completed
            field.cursor_position = len(completed)

    @on(Input.Submitted, "#gguf-path")
    def _submitted(self, event: Input.Submitted) -> None:
        import os

        path = os.path.abspath(os.path.expanduser(event.value.strip()))
        error = ("type a path" if not event.value.strip() else
                 f"{path} does not exist" if not os.path.exists(path) else
                 f"{path} is a folder, not a file" if os.path.isdir(path) else
                 f"{path} is not a .gguf file" if not path.endswith(".gguf") else None)
        if error is not None:
            self.query_one("#gguf-error", Static).update(error)
            return
        self.dismiss(path)

    def action_dismiss_none(self) -> None:
        self.dismiss(None)


class ConfirmScreen(ModalScreen[bool]):
    """A yes/no question about something that cannot be undone; "No" has the focus (Enter by accident keeps)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n,escape", "answer(False)", "No"),
    ]

    def __init__(self, question: str, detail: str = "", yes: str = "Delete", no: str = "Keep") -> None:
        super().__init__()
        self.question, self.detail, self.yes, self.no = question, detail, yes, no

    def compose(self) -> ComposeResult:
        with Vertical(id="permission-dialog"):
            yield Static(Text(self.question, style="bold"), id="confirm-question")
            if self.detail:
                yield Static(Text(self.detail, style="dim"))
            with Vertical(id="permission-buttons"):
                yield answer_button(f"[y] {self.yes}", "confirm-yes", "error")
                yield answer_button(f"[n] {self.no}", "confirm-no", "primary")

    def on_mount(self) -> None:
        self.query_one("#confirm-no", Button).focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "confirm-yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
