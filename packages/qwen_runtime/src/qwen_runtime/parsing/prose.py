"""Reasoning and answer text as they stream out, trimmed the way a reader expects.

Qwen surrounds both with newlines (`<think>\\n...\\n</think>\\n\\n`). Each channel drops leading
whitespace and holds trailing whitespace until more content follows, so the joined deltas equal the
stripped text without ever holding back more than a run of whitespace.
"""

from __future__ import annotations

from collections.abc import Callable

from ..types import Event, ReasoningDelta, TextDelta


class Channel:
    """One kind of streamed prose (reasoning or text)."""

    def __init__(self, make: Callable[[str], ReasoningDelta | TextDelta]) -> None:
        self._make = make
        self._started = False
        self._pending_ws = ""
        self.chars = 0

    def write(self, text: str, out: list[Event]) -> None:
        if not self._started:
            text = text.lstrip()
            if not text:
                return
            self._started = True
        if self._pending_ws:
            text = self._pending_ws + text
        core = text.rstrip()
        self._pending_ws = text[len(core) :]
        if core:
            out.append(self._make(core))
            self.chars += len(core)


def reasoning_channel() -> Channel:
    return Channel(lambda text: ReasoningDelta(text))


def text_channel() -> Channel:
    return Channel(lambda text: TextDelta(text))
