"""The prompt: a multi-line TextArea (any Unicode) with history and slash-command completion.

Enter sends; Shift+Enter or Ctrl+J inserts a newline; Up on the first line and Down on the last walk
the history; Tab completes a slash command (built-in or the session's custom ones) from the list shown above the
input.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from urllib.parse import unquote, urlparse

from onde import expand_home
from textual import events, on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import OptionList, Static, TextArea
from textual.widgets.option_list import Option

from ...attachments import chip, mentioned_images
from ...errors import UsageError

NEWLINE_KEYS = ("shift+enter", "ctrl+j")


class PromptInput(TextArea):
    """Multi-line input with a history of what was sent."""

    class Submitted(Message):
        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    class CompletionRequested(Message):
        pass

    def __init__(self, **kwargs: object) -> None:
        super().__init__(soft_wrap=True, show_line_numbers=False, tab_behavior="focus", **kwargs)  # type: ignore[arg-type]
        self.sent: list[str] = []
        self._history_index: int | None = None
        self._draft = ""

    async def _on_key(self, event: events.Key) -> None:
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            self.submit()
            return
        if event.key in NEWLINE_KEYS:
            event.stop()
            event.prevent_default()
            self.insert("\n")
            return
        if event.key == "tab" and self.text.startswith("/"):
            event.stop()
            event.prevent_default()
            self.post_message(self.CompletionRequested())
            return
        await super()._on_key(event)

    async def _on_paste(self, event: events.Paste) -> None:
        """A pasted path or file URI of an image becomes an `@path` mention (attached when sent); any other
        paste is inserted by TextArea's own handler, which Textual calls next (down the MRO): calling it
        here as well inserted every paste twice. Stopped here, so that it does not bubble to the app, which
        forwards a paste it did not send to the focused widget: this one, a second time."""
        event.stop()
        path = _pasted_image(event.text)
        if path is None:
            return
        event.prevent_default()  # TextArea's handler must not insert the path's text after the mention
        self.insert(f"@{path} ")

    def submit(self) -> None:
        text = self.text
        if not text.strip():
            return
        if not self.sent or self.sent[-1] != text:
            self.sent.append(text)
        self._history_index = None
        self.clear()
        self.post_message(self.Submitted(text))

    def _show(self, text: str) -> None:
        self.load_text(text)
        self.move_cursor(self.document.end)

    def action_cursor_up(self, select: bool = False) -> None:
        if select or self.cursor_location[0] > 0 or not self.sent:
            super().action_cursor_up(select)
            return
        if self._history_index is None:
            self._draft = self.text
            self._history_index = len(self.sent)
        if self._history_index > 0:
            self._history_index -= 1
            self._show(self.sent[self._history_index])

    def action_cursor_down(self, select: bool = False) -> None:
        last_row = self.document.line_count - 1
        if select or self.cursor_location[0] < last_row or self._history_index is None:
            super().action_cursor_down(select)
            return
        self._history_index += 1
        if self._history_index >= len(self.sent):
            self._history_index = None
            self._show(self._draft)
        else:
            self._show(self.sent[self._history_index])


class SlashSuggestions(OptionList):
    """The slash commands matching what is typed, shown while the input holds a lone `/word`."""

    can_focus = False


class PromptArea(Vertical):
    """Suggestions above the input; owns completion so the app only hears `Submitted`."""

    def __init__(self, commands: Sequence[tuple[str, str]], **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.builtin = list(commands)
        self.commands = list(commands)

    def set_custom(self, custom: Sequence[tuple[str, str]]) -> None:
        """Add the session's own commands (markdown files) to the list; a built-in name wins."""
        taken = {name for name, _ in self.builtin}
        self.commands = self.builtin + [(name, help_) for name, help_ in custom if name not in taken]

    cwd: Path | None = None
    """The session's folder, where `@shot.png` mentions are looked up (set once the session opens)."""

    def compose(self) -> ComposeResult:
        suggestions = SlashSuggestions(id="suggestions")
        suggestions.display = False
        yield suggestions
        attachments = Static("", id="attachments")
        attachments.display = False
        yield attachments
        yield PromptInput(id="prompt")

    @on(TextArea.Changed, "#prompt")
    def _update_attachments(self) -> None:
        """A chip (name, pixels, size) for each image the prompt's `@` mentions attach, before sending."""
        bar = self.query_one("#attachments", Static)
        text = self.input.text
        if self.cwd is None or "@" not in text:
            bar.display = False
            return
        try:
            chips = [chip(image) for image in mentioned_images(text, self.cwd)]
        except UsageError as exc:
            chips = [f"[{exc}]"]
        bar.update("  ".join(f"[image {c}]" for c in chips))
        bar.display = bool(chips)

    @property
    def input(self) -> PromptInput:
        return self.query_one(PromptInput)

    def matches(self, text: str) -> list[tuple[str, str]]:
        if not text.startswith("/") or any(c.isspace() for c in text):
            return []
        word = text[1:].lower()
        return [(name, help_) for name, help_ in self.commands if name.startswith(word)]

    @on(TextArea.Changed, "#prompt")
    def _update_suggestions(self) -> None:
        suggestions = self.query_one(SlashSuggestions)
        found = self.matches(self.input.text)
        suggestions.clear_options()
        if found:
            suggestions.add_options([Option(f"/{name}  {help_}", id=name) for name, help_ in found])
            suggestions.highlighted = 0
        suggestions.display = bool(found)

    @on(PromptInput.CompletionRequested)
    def complete(self) -> None:
        suggestions = self.query_one(SlashSuggestions)
        found = self.matches(self.input.text)
        if not found:
            return
        index = suggestions.highlighted or 0
        name = found[min(index, len(found) - 1)][0]
        self.input.load_text(f"/{name} ")
        self.input.move_cursor(self.input.document.end)
        suggestions.display = False

    @on(OptionList.OptionSelected, "#suggestions")
    def _picked(self, event: OptionList.OptionSelected) -> None:
        self.input.load_text(f"/{event.option.id} ")
        self.input.move_cursor(self.input.document.end)
        self.input.focus()


def _pasted_image(text: str) -> Path | None:
    """The image file a pasted text names (a path or a file:// URI, on one line), or None."""
    text = text.strip().strip("'\"")
    if not text or "\n" in text:
        return None
    path = Path(unquote(urlparse(text).path)) if text.startswith("file://") else expand_home(text)
    if not path.is_absolute() or not path.is_file():
        return None
    try:
        mentioned = mentioned_images(f"@{path}", path.parent)
    except UsageError:
        return None
    return path if mentioned else None
