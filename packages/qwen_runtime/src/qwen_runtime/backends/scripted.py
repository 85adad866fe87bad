"""An in-process model that replays a script: fast, deterministic, and it records what it was asked.

Every layer above tests against it. It fails loudly when the script runs out (a test asked the
model more often than it meant to) and `assert_consumed()` catches the opposite.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from ..errors import QwenRuntimeError
from ..images import ImageError
from ..runtime import CancelToken, Runtime
from ..scenario import ScriptedCall, ScriptedTurn, chunks, load_scenario
from ..types import (
    ChatRequest,
    Event,
    Finished,
    FinishReason,
    Message,
    ReasoningDelta,
    TextDelta,
    ToolCall,
    ToolCallEvent,
    Usage,
    message_to_dict,
)

Responder = Callable[[ChatRequest], "ScriptedTurn | str"]


class ScriptExhausted(QwenRuntimeError):
    """The model was asked for more turns than the script holds."""


def _message_tokens(message: Message) -> int:
    return max(1, len(str(message_to_dict(message))) // 4)


class ScriptedRuntime(Runtime):
    """Replays `turns` in order, or asks `responder(request)` for each reply.

    A turn may be a `ScriptedTurn`, a plain string (the reply text), or a dict in the scenario
    format. `chunk_size` and `chunk_delay` shape the stream (tests of streaming and cancellation).
    """

    name = "scripted"

    def __init__(
        self,
        turns: Sequence[ScriptedTurn | str | dict[str, object]] | Responder = (),
        *,
        chunk_size: int = 8,
        chunk_delay: float = 0.0,
        context_size: int = 32768,
        supports_tools: bool = True,
        supports_images: bool = True,
    ) -> None:
        self._responder: Responder | None = None
        self._turns: list[ScriptedTurn] = []
        if callable(turns):
            self._responder = turns
        else:
            self._turns = [_as_turn(t) for t in turns]
        self._next = 0
        self._ids = itertools.count(1)
        self.chunk_size = max(1, chunk_size)
        self.chunk_delay = chunk_delay
        self._context_size = context_size
        self.supports_tools = supports_tools
        self.supports_images = supports_images  # a script "sees" what it is sent; False tests refusals
        self.requests: list[ChatRequest] = []
        self._last_messages: tuple[Message, ...] = ()

    @classmethod
    def from_file(cls, path: str | Path, **options: float) -> ScriptedRuntime:
        return cls(load_scenario(path), **options)  # type: ignore[arg-type]

    @property
    def context_size(self) -> int:
        return self._context_size

    @property
    def remaining(self) -> int:
        return len(self._turns) - self._next

    def add_turns(self, *turns: ScriptedTurn | str | dict[str, object]) -> None:
        self._turns.extend(_as_turn(t) for t in turns)

    def assert_consumed(self) -> None:
        if self._responder is None and self._next < len(self._turns):
            raise AssertionError(
                f"script not consumed: {len(self._turns) - self._next} of {len(self._turns)} turns unused"
            )

    def _take(self, request: ChatRequest) -> ScriptedTurn:
        if self._responder is not None:
            return _as_turn(self._responder(request))
        if self._next >= len(self._turns):
            raise ScriptExhausted(
                f"scripted model asked for turn {self._next + 1} but the script has {len(self._turns)}"
            )
        turn = self._turns[self._next]
        self._next += 1
        return turn

    def stream(self, request: ChatRequest, cancel: CancelToken | None = None) -> Iterator[Event]:
        if not self.supports_images and request.images():
            raise ImageError(self.cannot_see())
        self.requests.append(request)
        turn = self._take(request)
        started = time.perf_counter()
        prompt_tokens = sum(_message_tokens(m) for m in request.messages)
        cached = 0
        for old, new in zip(self._last_messages, request.messages, strict=False):
            if old != new:
                break
            cached += _message_tokens(new)
        self._last_messages = request.messages
        produced = 0
        reason: FinishReason = "stop"
        for event in self._events(turn, request):
            if cancel is not None and cancel.cancelled:
                reason = "cancelled"
                break
            if isinstance(event, TextDelta | ReasoningDelta):
                produced += max(1, len(event.text) // 4)
            if self.chunk_delay and isinstance(event, TextDelta | ReasoningDelta):
                if cancel is not None and cancel.wait(self.chunk_delay):
                    reason = "cancelled"
                    break
                if cancel is None:
                    time.sleep(self.chunk_delay)
            if isinstance(event, ToolCallEvent):
                reason = "tool_calls"
            yield event
        if reason != "cancelled" and turn.finish_reason in ("stop", "length", "tool_calls"):
            reason = turn.finish_reason  # type: ignore[assignment]
        elapsed = (time.perf_counter() - started) * 1000
        yield Usage(
            prompt_tokens=prompt_tokens,
            cached_prompt_tokens=min(cached, prompt_tokens),
            completion_tokens=produced,
            generation_ms=elapsed,
            context_size=self._context_size,
        )
        yield Finished(reason, "cancelled" if reason == "cancelled" else "")

    def _events(self, turn: ScriptedTurn, request: ChatRequest) -> Iterator[Event]:
        if turn.raw is not None:
            from ..parsing import ReplyParser

            parser = ReplyParser(request.offered_tools(), id_factory=lambda: f"call_{next(self._ids)}")
            for piece in chunks(turn.raw, self.chunk_size):
                yield from parser.feed(piece)
            yield from parser.finish(truncated=turn.finish_reason == "length")
            return
        for piece in chunks(turn.reasoning, self.chunk_size):
            yield ReasoningDelta(piece)
        for piece in chunks(turn.text, self.chunk_size):
            yield TextDelta(piece)
        for call in turn.tool_calls:
            yield ToolCallEvent(self._to_call(call))

    def _to_call(self, call: ScriptedCall) -> ToolCall:
        return ToolCall(id=call.id or f"call_{next(self._ids)}", name=call.name, arguments=call.arguments,
                        notes=call.notes)


def _as_turn(value: object) -> ScriptedTurn:
    if isinstance(value, ScriptedTurn):
        return value
    if isinstance(value, str):
        return ScriptedTurn(text=value)
    if isinstance(value, dict):
        return ScriptedTurn.from_dict(value)
    raise TypeError(f"a scripted turn must be a ScriptedTurn, str or dict, not {type(value).__name__}")
