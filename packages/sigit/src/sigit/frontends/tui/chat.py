"""The chat log: one widget per thing the user sees (their message, a reply, thinking, a tool call).

Widgets are fed by `ChatLog`, which a session view drives from the agent's event stream; none of them
knows about the agent. Only the reply being streamed is a Markdown widget (see `reply.py`); past replies
are one `Static` each with a Rich Markdown renderable, and a resumed conversation mounts only its last
`REPLAY_WINDOW` items, with a button that loads earlier ones, so long histories open at once.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on
from textual.containers import VerticalScroll
from textual.markup import escape
from textual.widget import Widget
from textual.widgets import Button, Collapsible, Static

from ..terminal_text import terminal_safe

if TYPE_CHECKING:
    from onde import Message
    from rich.console import RenderableType
    from rich.syntax import Syntax

THINKING_TAIL_LINES = 4
THINKING_TAIL_CHARS = 4000
"""The end of a thought that its live lines are taken from."""
REPLAY_WINDOW = 120
"""Items of a resumed conversation mounted at once (each "load earlier" press mounts this many more)."""


class UserMessage(Static):
    """What the user sent, quoted as typed (no markup)."""

    def __init__(self, text: str) -> None:
        super().__init__(Text(text), classes="user-message")


def markdown_renderable(text: str) -> RenderableType:
    from rich.markdown import Markdown  # markdown-it loads with the first reply, not before first paint

    return Markdown(shown(text), code_theme="ansi_dark", inline_code_theme="ansi_dark")


def shown(text: str) -> str:
    """Untrusted text (a file, a command's output, the model's words) as the screen may draw it: every
    control character a terminal would act on shown as an escape (`terminal_safe`)."""
    return terminal_safe(text, keep_sgr=False)


def plain_title(text: str) -> str:
    """A title Textual reads as markup (a Collapsible's), from untrusted text: one line, no control
    character, and `[` escaped, so `[@click=app.quit]` in a file's first line is text, not an action."""
    return escape(terminal_safe(text, keep_sgr=False, newlines=False))


class PastReply(Static):
    """A finished reply from a resumed conversation: one widget, Markdown drawn by Rich."""

    def __init__(self, text: str) -> None:
        super().__init__(markdown_renderable(text), classes="assistant-message past-reply")
        self.content_text = text


class ThinkingBlock(Collapsible):
    """Reasoning: its last lines shown live while it streams, then collapsed behind a toggle."""

    def __init__(self) -> None:
        self.thought = ""
        self._body = Static("", classes="thinking-body")
        super().__init__(self._body, title="Thinking…", collapsed=False, classes="thinking")

    def add(self, fragment: str) -> None:
        self.thought += fragment
        recent = self.thought[-THINKING_TAIL_CHARS:].rstrip()  # bounded: a long thought costs no more per chunk
        tail = "\n".join(recent.splitlines()[-THINKING_TAIL_LINES:])
        self._body.update(Text(shown(tail), style="italic"))

    def finish(self) -> None:
        lines = len(self.thought.strip().splitlines())
        self.title = f"Thought ({lines} line{'s' if lines != 1 else ''})"
        self._body.update(Text(shown(self.thought.strip()), style="italic"))
        self.collapsed = True


def syntax(code: str, lexer: str) -> Syntax:
    from rich.syntax import Syntax  # pygments loads with the first tool call

    return Syntax(shown(code), lexer, theme="ansi_dark", word_wrap=True, background_color="default")


def diff_renderable(diff: str) -> Syntax:
    return syntax(diff, "diff")


class ToolCallBlock(Collapsible):
    """One tool call as one line (name and title) that expands to its arguments and result.

    The arguments are highlighted only when the block is first expanded: a long history holds many.
    """

    def __init__(self, call_id: str, name: str, title: str, arguments: dict[str, Any]) -> None:
        self.call_id = call_id
        self.name_ = name
        self.call_title = title
        self.arguments = arguments
        self.status = "requested"
        self.output = ""
        self.diff: str | None = None
        self._args = Static("", classes="tool-args")
        self._args_shown = False
        self._result = Static("", classes="tool-result")
        self._diff = Static("", classes="tool-diff")
        self._diff.display = False
        super().__init__(self._args, self._diff, self._result, title=self._line("⏺"), collapsed=True,
                         classes="tool-call")

    def _show_arguments(self) -> None:
        if not self._args_shown:
            self._args_shown = True
            self._args.update(syntax(json.dumps(self.arguments, indent=2, ensure_ascii=False), "json"))

    def on_mount(self) -> None:
        if not self.collapsed:
            self._show_arguments()

    def _watch_collapsed(self, collapsed: bool) -> None:
        if not collapsed:
            self._show_arguments()
        super()._watch_collapsed(collapsed)

    def _line(self, mark: str, suffix: str = "") -> str:
        return plain_title(f"{mark} {self.call_title}{suffix}")

    def mark(self, state: str, note: str = "") -> None:
        self.status = state
        marks = {"asking": "?", "denied": "✗", "running": "…", "done": "✓", "error": "✗"}
        self.title = self._line(marks.get(state, "⏺"), f"  ({note})" if note else "")
        self.set_class(state in ("denied", "error"), "failed")

    def finish(self, output: str, is_error: bool, diff: str | None) -> None:
        self.output = output
        self.diff = diff
        if self.status != "denied":
            self.mark("error" if is_error else "done", summary_line(output))
        self._result.update(Text.from_ansi(terminal_safe(output[:20_000])))  # colour kept, nothing else
        if diff:
            self._diff.update(diff_renderable(diff))
        self._diff.display = bool(diff)


def summary_line(output: str) -> str:
    """The line a finished call's title shows: a command's exit code and its output's last line
    ("exit 0: 2 passed"), else the output's first line."""
    lines = [line.strip() for line in output.strip().splitlines() if line.strip()]
    if not lines:
        return ""
    found = re.match(r"Exit code (-?\d+):\s*(.*)", lines[0])
    if found is None:
        return lines[0][:80]
    rest = ([found.group(2)] if found.group(2) else []) + lines[1:]
    return f"exit {found.group(1)}: {rest[-1] if rest else '(no output)'}"[:80]


class NoticeLine(Static):
    """A line from the app, not the model: plain text, or Markdown (a slash command's result)."""

    def __init__(self, message: str, level: str = "info", *, markdown: bool = False) -> None:
        super().__init__(markdown_renderable(message) if markdown else Text(shown(message)),
                         classes=f"notice notice-{level}")
        self.message = message


class LoadEarlier(Button):
    """Top of a resumed conversation whose older part is not mounted yet."""

    def __init__(self, hidden: int) -> None:
        super().__init__(self.label_for(hidden), id="load-earlier", classes="load-earlier")

    @staticmethod
    def label_for(hidden: int) -> str:
        return f"↑ Load earlier messages ({hidden} not shown)"


PastItem = Callable[[], Widget]


def past_items(messages: Sequence[Message]) -> list[PastItem]:
    """One widget factory per thing shown for a saved conversation; widgets are built only when mounted."""
    from onde import AssistantMessage, ToolMessage
    from onde import UserMessage as RtUser

    results = {m.tool_call_id: m.content for m in messages if isinstance(m, ToolMessage)}
    items: list[PastItem] = []

    def tool_block(call_id: str, name: str, arguments: dict[str, Any]) -> Widget:
        block = ToolCallBlock(call_id, name, name, arguments)
        if call_id in results:
            block.finish(results[call_id], False, None)
        return block

    for message in messages:
        if isinstance(message, RtUser):
            items.append(partial(UserMessage, message.content))
        elif isinstance(message, AssistantMessage):
            if message.content.strip():
                items.append(partial(PastReply, message.content))
            for call in message.tool_calls:
                items.append(partial(tool_block, call.id, call.name, call.arguments))
    return items


class ChatLog(VerticalScroll):
    """The scrollback of one conversation; follows the bottom unless the user scrolled up."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.tool_blocks: dict[str, ToolCallBlock] = {}
        self.earlier: list[PastItem] = []

    def on_mount(self) -> None:
        self.anchor()

    async def add(self, widget: Widget) -> None:
        await self.mount(widget)

    async def clear_log(self) -> None:
        self.tool_blocks.clear()
        self.earlier = []
        await self.remove_children()

    def _built(self, items: Sequence[PastItem]) -> list[Widget]:
        widgets = [make() for make in items]
        for widget in widgets:
            if isinstance(widget, ToolCallBlock):
                self.tool_blocks[widget.call_id] = widget
        return widgets

    async def replay(self, messages: Sequence[Message], window: int = REPLAY_WINDOW) -> None:
        """Show a saved conversation: its last `window` items now, the rest behind "load earlier"."""
        items = past_items(messages)
        self.earlier, shown = items[:-window] if len(items) > window else [], items[-window:]
        widgets = self._built(shown)
        if self.earlier:
            widgets.insert(0, LoadEarlier(len(self.earlier)))
        await self.mount_all(widgets)

    async def load_earlier(self, count: int = REPLAY_WINDOW) -> None:
        button = self.query_one(LoadEarlier)
        batch, self.earlier = self.earlier[-count:], self.earlier[:-count]
        await self.mount_all(self._built(batch), after=button)
        if self.earlier:
            button.label = LoadEarlier.label_for(len(self.earlier))
        else:
            await button.remove()

    @on(Button.Pressed, "#load-earlier")
    async def _load_earlier_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        await self.load_earlier()

    def set_tools_expanded(self, expanded: bool) -> None:
        for block in self.query(ToolCallBlock):
            block.collapsed = not expanded
