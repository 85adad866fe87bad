"""The chat log: one widget per thing the user sees (their message, the reply, thinking, a tool call).

Widgets are fed by `ChatLog`, which the app drives from the agent's event stream; none of them knows
about the agent.
"""

from __future__ import annotations

import json
from typing import Any

from rich.syntax import Syntax
from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Collapsible, Markdown, Static
from textual.widgets._markdown import MarkdownStream

THINKING_TAIL_LINES = 4


class UserMessage(Static):
    """What the user sent, quoted as typed (no markup)."""

    def __init__(self, text: str) -> None:
        super().__init__(Text(text), classes="user-message")


class AssistantMessage(Markdown):
    """A reply, streamed into Markdown as it arrives (code blocks highlighted by the widget)."""

    def __init__(self, text: str = "") -> None:
        super().__init__(text, classes="assistant-message")
        self._stream: MarkdownStream | None = None
        self.content_text = text

    async def add(self, fragment: str) -> None:
        self.content_text += fragment
        if self._stream is None:
            self._stream = Markdown.get_stream(self)
        await self._stream.write(fragment)

    async def finish(self) -> None:
        if self._stream is not None:
            await self._stream.stop()
            self._stream = None


class ThinkingBlock(Collapsible):
    """Reasoning: its last lines shown live while it streams, then collapsed behind a toggle."""

    def __init__(self) -> None:
        self.thought = ""
        self._body = Static("", classes="thinking-body")
        super().__init__(self._body, title="Thinking…", collapsed=False, classes="thinking")

    def add(self, fragment: str) -> None:
        self.thought += fragment
        tail = "\n".join(self.thought.rstrip().splitlines()[-THINKING_TAIL_LINES:])
        self._body.update(Text(tail, style="italic"))

    def finish(self) -> None:
        lines = len(self.thought.strip().splitlines())
        self.title = f"Thought ({lines} line{'s' if lines != 1 else ''})"
        self._body.update(Text(self.thought.strip(), style="italic"))
        self.collapsed = True


def diff_renderable(diff: str) -> Syntax:
    return Syntax(diff, "diff", theme="ansi_dark", word_wrap=True, background_color="default")


class ToolCallBlock(Collapsible):
    """One tool call as one line (name and title) that expands to its arguments and result."""

    def __init__(self, call_id: str, name: str, title: str, arguments: dict[str, Any]) -> None:
        self.call_id = call_id
        self.name_ = name
        self.call_title = title
        self.status = "requested"
        self.output = ""
        self.diff: str | None = None
        args = json.dumps(arguments, indent=2, ensure_ascii=False)
        self._args = Static(Syntax(args, "json", theme="ansi_dark", word_wrap=True,
                                   background_color="default"), classes="tool-args")
        self._result = Static("", classes="tool-result")
        self._diff = Static("", classes="tool-diff")
        super().__init__(self._args, self._diff, self._result, title=self._line("⏺"), collapsed=True,
                         classes="tool-call")

    def _line(self, mark: str, suffix: str = "") -> str:
        return f"{mark} {self.call_title}{suffix}"

    def mark(self, state: str, note: str = "") -> None:
        self.status = state
        marks = {"asking": "?", "denied": "✗", "running": "…", "done": "✓", "error": "✗"}
        self.title = self._line(marks.get(state, "⏺"), f"  ({note})" if note else "")
        self.set_class(state in ("denied", "error"), "failed")

    def finish(self, output: str, is_error: bool, diff: str | None) -> None:
        self.output = output
        self.diff = diff
        first = output.strip().splitlines()[0][:80] if output.strip() else ""
        if self.status != "denied":
            self.mark("error" if is_error else "done", first)
        self._result.update(Text(output[:20_000]))
        if diff:
            self._diff.update(diff_renderable(diff))
            self._diff.display = True
        else:
            self._diff.display = False


class NoticeLine(Static):
    def __init__(self, message: str, level: str = "info") -> None:
        super().__init__(Text(message), classes=f"notice notice-{level}")


class ChatLog(VerticalScroll):
    """Full scrollback of the conversation; follows the bottom unless the user scrolled up."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.tool_blocks: dict[str, ToolCallBlock] = {}

    def on_mount(self) -> None:
        self.anchor()

    async def add(self, widget: Static | Markdown | Collapsible) -> None:
        await self.mount(widget)

    async def clear_log(self) -> None:
        self.tool_blocks.clear()
        await self.remove_children()

    def set_tools_expanded(self, expanded: bool) -> None:
        for block in self.query(ToolCallBlock):
            block.collapsed = not expanded
