"""What the parsing tests share: call ids that count, a stream's deltas merged, events folded into the
completion a backend would return."""

from __future__ import annotations

import itertools
from collections.abc import Callable

from qwen_runtime.types import Completion, Event, ReasoningDelta, TextDelta


def counter() -> Callable[[], str]:
    numbers = itertools.count()
    return lambda: f"id{next(numbers)}"


def merged(events: list[Event]) -> list[Event]:
    """Consecutive text and reasoning deltas joined: what a reply reads as, however it was split."""
    out: list[Event] = []
    for event in events:
        last = out[-1] if out else None
        if isinstance(event, TextDelta) and isinstance(last, TextDelta):
            out[-1] = TextDelta(last.text + event.text)
        elif isinstance(event, ReasoningDelta) and isinstance(last, ReasoningDelta):
            out[-1] = ReasoningDelta(last.text + event.text)
        else:
            out.append(event)
    return out


def fold(events: list[Event]) -> Completion:
    completion = Completion()
    for event in events:
        completion.add(event)
    return completion
