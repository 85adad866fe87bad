"""The reply being streamed: a Markdown widget (code highlighted by the widget).

A module of its own so that markdown-it and Textual's Markdown widgets load with the first reply,
not before the first paint.
"""

from __future__ import annotations

from textual.widgets import Markdown
from textual.widgets._markdown import MarkdownStream

from ..terminal_text import terminal_safe


class AssistantMessage(Markdown):
    """A reply, streamed into Markdown as it arrives."""

    def __init__(self, text: str = "") -> None:
        super().__init__(terminal_safe(text, keep_sgr=False), classes="assistant-message")
        self._stream: MarkdownStream | None = None
        self.content_text = text

    async def add(self, fragment: str) -> None:
        self.content_text += fragment
        if self._stream is None:
            self._stream = Markdown.get_stream(self)
        await self._stream.write(terminal_safe(fragment, keep_sgr=False))  # the model's escapes do nothing

    async def finish(self) -> None:
        if self._stream is not None:
            await self._stream.stop()
            self._stream = None
