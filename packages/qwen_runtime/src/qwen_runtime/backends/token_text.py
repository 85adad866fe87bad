"""What the token loop makes of tokens besides events: text whole across UTF-8 splits, stop strings
cut, whether a prompt opened `<think>` and the thinking budget a request gets; and the sampler a
backend hands the loop.
"""

from __future__ import annotations

import codecs
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from ..calls.tags import THINK_CLOSE, THINK_OPEN
from ..types import ChatRequest

THINK_CLOSE_TEXT = f"\n{THINK_CLOSE}\n\n"
"""What the runtime appends when `thinking_budget` runs out (Qwen's own spacing)."""

_ASSISTANT_OPEN = "<|im_start|>assistant"
REQUIRED_THINKING_CAP = 1024
"""The most reasoning tokens a call that must be made (`required` or a name) gets by default."""


def default_thinking_budget(request: ChatRequest) -> int | None:
    """The request's `thinking_budget`; when it names none but a call is owed (`tool_choice` "required"
    or a tool's name) and thinking is on: a quarter of `max_tokens`, at most 1,024 tokens, so the
    call is always reached."""
    if request.thinking_budget is not None:
        return request.thinking_budget
    if request.enable_thinking and request.tool_choice not in ("auto", "none") and request.offered_tools():
        return min(request.sampling.max_tokens // 4, REQUIRED_THINKING_CAP)
    return None


def starts_in_think(prompt: str) -> bool:
    """True when the generation prompt already opened `<think>` (templates that pre-fill it)."""
    tail = prompt[prompt.rfind(_ASSISTANT_OPEN) :] if _ASSISTANT_OPEN in prompt else prompt[-64:]
    return tail.rfind(THINK_OPEN) > tail.rfind(THINK_CLOSE)


@dataclass
class StopFilter:
    """Holds back text that may be the start of a stop string; cuts the text at a whole one."""

    stops: tuple[str, ...]
    held: str = ""
    hit: bool = False
    longest: int = field(init=False)

    def __post_init__(self) -> None:
        self.stops = tuple(s for s in self.stops if s)
        self.longest = max((len(s) for s in self.stops), default=0)

    def push(self, text: str) -> str:
        if not self.stops:
            return text
        self.held += text
        cut = min((i for i in (self.held.find(s) for s in self.stops) if i >= 0), default=-1)
        if cut >= 0:
            self.hit = True
            out, self.held = self.held[:cut], ""
            return out
        keep = self.longest - 1
        out, self.held = (self.held[:-keep], self.held[-keep:]) if keep else (self.held, "")
        return out

    def flush(self) -> str:
        out, self.held = self.held, ""
        return out


class Utf8Detokenizer:
    """Token bytes in, text out; a UTF-8 character split over tokens comes out whole, once complete."""

    def __init__(self, piece: Callable[[int], bytes]) -> None:
        self._piece = piece
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def push(self, token: int) -> str:
        return str(self._decoder.decode(self._piece(token)))

    def flush(self) -> str:
        return str(self._decoder.decode(b"", final=True))


class TokenSampler(Protocol):
    """A backend's per-request sampler over the logits of the last evaluated position."""

    def accept(self, token: int) -> None:
        """Count a token the penalties should see (forced or appended by the runtime)."""

    def sample(self) -> int:
        """One token from the current logits (already masked); counts it for the penalties itself."""

    def close(self) -> None:
        """Free what the sampler holds."""


__all__ = [
    "REQUIRED_THINKING_CAP",
    "THINK_CLOSE_TEXT",
    "StopFilter",
    "TokenSampler",
    "Utf8Detokenizer",
    "default_thinking_budget",
    "starts_in_think",
]
