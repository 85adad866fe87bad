"""One turn's generation: the runtime's stream, read under three guards, as onde's events.

The guards: the user's `cancel()`, a repetition guard on the text (stops a reply that loops), and
on the thinking (reasoning that goes round in circles, or past `thinking_budget` on a runtime that
does not close `</think>` itself). A thinking guard cuts the attempt short and the turn is asked
again, once, with thinking off. `ChatEngine` owns history and the busy lock; this owns the rest.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Literal

from qwen_runtime.runtime import CancelToken, Runtime
from qwen_runtime.types import (
    AssistantMessage,
    ChatRequest,
    Completion,
    Event,
    Finished,
    FinishReason,
    Message,
    ReasoningDelta,
    TextDelta,
    ToolCallError,
    ToolCallEvent,
    ToolSpec,
    Usage,
)

from .config import SamplingConfig
from .errors import Cancelled, Inference, translate_generation_error
from .events import Done, GuardNotice, StreamEvent, ToolCallFailed, ToolCallReady
from .repetition import Loop, RepetitionGuard
from .types import ToolAwareResult, ToolCallRequest

_DRAIN_SECONDS = 5.0


@dataclass(frozen=True)
class Turn:
    """What one generation is asked: the whole prompt, the tools, the sampling."""

    messages: tuple[Message, ...]
    tools: tuple[ToolSpec, ...]
    tool_choice: str
    sampling: SamplingConfig
    record: bool
    """Whether the reply goes into history (False for the stateless `generate`)."""


class InFlight:
    """The generation in flight: what `cancel()` reaches from another thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.cancelled = False
        self._token: CancelToken | None = None

    def attach(self, token: CancelToken) -> None:
        with self._lock:
            self._token = token
            if self.cancelled:
                token.cancel()

    def cancel(self) -> None:
        with self._lock:
            self.cancelled = True
            if self._token is not None:
                self._token.cancel()


ThinkingCut = Literal["budget", "circles"]


@dataclass
class _Attempt:
    """One pass over the runtime's stream, and what it has produced so far."""

    token: CancelToken = field(default_factory=CancelToken)
    part: Completion = field(default_factory=Completion)
    text_guard: RepetitionGuard = field(default_factory=RepetitionGuard)
    thought_guard: RepetitionGuard = field(default_factory=RepetitionGuard)
    thought_tokens: int = 0
    cut: ThinkingCut | None = None
    """Why the thinking was cut short (the turn is then asked again without thinking)."""
    stopped: bool = False

    def stop(self, reason: FinishReason, detail: str) -> None:
        """Stop generating and reading: the producer may be far ahead of the reader."""
        self.token.cancel()
        self.part.add(Finished(reason, detail))
        self.stopped = True


class Generation:
    """One turn: `events()` yields its stream and ends with `Done`; `record` receives the reply
    to keep in history (a loop the guard stopped appears once), unless the turn was cancelled."""

    def __init__(
        self,
        runtime: Runtime,
        turn: Turn,
        in_flight: InFlight,
        record: Callable[[AssistantMessage], None] | None,
    ) -> None:
        self.runtime, self.in_flight, self.record = runtime, in_flight, record
        sampling = turn.sampling
        thinking = sampling.enable_thinking if sampling.enable_thinking is not None else True
        self.budget = sampling.thinking_budget if thinking else None
        self.watch_budget = self.budget is not None and not runtime.enforces_thinking_budget
        self.max_tokens = sampling.max_tokens
        self.request = ChatRequest(
            messages=turn.messages,
            tools=turn.tools,
            sampling=sampling.to_runtime(),
            enable_thinking=thinking,
            tool_choice=turn.tool_choice,
            thinking_budget=self.budget,
            preserve_thinking=sampling.preserve_thinking,
            reasoning_effort=sampling.reasoning_effort,
        )
        self.earlier: Completion | None = None
        """The attempt whose thinking was cut short, when there was one."""
        self.text_loop: Loop | None = None

    async def events(self) -> AsyncIterator[StreamEvent]:
        started = time.perf_counter()
        while True:
            attempt = _Attempt()
            self.in_flight.attach(attempt.token)
            async for event in self._read(attempt):
                yield event
            if attempt.cut is None or self.in_flight.cancelled or self.earlier is not None:
                break
            self.earlier = attempt.part
            why = ("its thinking went round in circles" if attempt.cut == "circles"
                   else f"thinking budget of {self.budget} tokens reached")
            yield GuardNotice(f"{why}; the model answers without further thinking")
            self.request = replace(self.request, enable_thinking=False, thinking_budget=None)
            self.watch_budget = False
        if attempt.part.finish_reason == "error":
            raise Inference(attempt.part.finish_detail or "the runtime reported a generation error")
        result = _result(attempt.part, self.earlier, time.perf_counter() - started, self.max_tokens,
                         looped=self.text_loop is not None)
        if result.finish_reason != "cancelled" and self.record is not None:
            self.record(self._reply(result, attempt.part))
        yield Done(result)

    async def _read(self, attempt: _Attempt) -> AsyncIterator[StreamEvent]:
        events = self.runtime.astream(self.request, attempt.token)
        try:
            async for event in events:
                for out in self._take(attempt, event):
                    yield out
                if attempt.stopped:
                    break
                if self.in_flight.cancelled or attempt.cut is not None:
                    attempt.stop("cancelled", "generation cancelled")
                    break
            if attempt.stopped:
                await _drain_usage(events, attempt.part)
        except Exception as exc:
            raise translate_generation_error(exc) from exc
        finally:
            await _aclose(events)

    def _take(self, attempt: _Attempt, event: Event) -> Iterator[StreamEvent]:
        """Fold one runtime event into the attempt; yield what the caller sees of it."""
        if isinstance(event, ToolCallEvent) and not event.call.id:
            event = ToolCallEvent(replace(event.call, id=f"call_{uuid.uuid4().hex[:12]}"))
        attempt.part.add(event)
        if isinstance(event, TextDelta):
            yield event
            if (looped := attempt.text_guard.feed(event.text)) is not None:
                self.text_loop = looped
                yield GuardNotice(
                    f"the model kept repeating itself ({looped.repeats} times a {looped.period}-character "
                    "block); generation stopped"
                )
                attempt.stop("length", "the model kept repeating itself")
        elif isinstance(event, ReasoningDelta):
            yield event
            if self.watch_budget and self.budget is not None:
                attempt.thought_tokens += self.runtime.count_tokens(event.text)
                if attempt.thought_tokens > self.budget:
                    attempt.cut = "budget"
            if attempt.thought_guard.feed(event.text) and self.earlier is None:
                attempt.cut = "circles"  # like a spent budget: answer without thinking
        elif isinstance(event, ToolCallEvent):
            yield ToolCallReady(ToolCallRequest.from_runtime(event.call))
        elif isinstance(event, ToolCallError):
            yield ToolCallFailed(event)

    def _reply(self, result: ToolAwareResult, part: Completion) -> AssistantMessage:
        # one copy of a loop the guard stopped: the history must not teach the model the loop
        text = result.text[: len(result.text) - self.text_loop.surplus] if self.text_loop else result.text
        return AssistantMessage(content=text, reasoning=result.reasoning or None, tool_calls=tuple(part.tool_calls))


async def collect(events: AsyncIterator[StreamEvent]) -> ToolAwareResult:
    """The result a generation's events end with (`Done`); `Cancelled`, carrying it, when it was cancelled."""
    result: ToolAwareResult | None = None
    async for event in events:
        if isinstance(event, Done):
            result = event.result
    if result is None:  # a generation always ends with Done
        raise Inference("the generation ended without a result")
    if result.finish_reason == "cancelled":
        raise Cancelled(partial=result)
    return result


async def _drain_usage(events: AsyncIterator[Event], part: Completion) -> None:
    """After a stop, read the cancelled stream to its end for its `Usage` (the prompt was evaluated
    all the same); a runtime ends within a token of being cancelled, and this waits a few seconds at most."""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(_DRAIN_SECONDS):
            async for event in events:
                if isinstance(event, Usage):
                    part.usage = event


async def _aclose(events: AsyncIterator[Event]) -> None:
    aclose = getattr(events, "aclose", None)
    if aclose is not None:
        await aclose()


def _merge_usage(first: Usage, second: Usage) -> Usage:
    """Counts add up; what the draft length controller decided (`draft_length`...) is the later part's."""
    return replace(
        second,
        completion_tokens=first.completion_tokens + second.completion_tokens,
        reasoning_tokens=first.reasoning_tokens + second.reasoning_tokens,
        prompt_ms=first.prompt_ms + second.prompt_ms,
        generation_ms=first.generation_ms + second.generation_ms,
        restored_prompt_tokens=first.restored_prompt_tokens + second.restored_prompt_tokens,
        prefilled_prompt_tokens=first.prefilled_prompt_tokens + second.prefilled_prompt_tokens,
        drafted_tokens=first.drafted_tokens + second.drafted_tokens,
        accepted_draft_tokens=first.accepted_draft_tokens + second.accepted_draft_tokens,
    )


def _result(
    part: Completion, earlier: Completion | None, seconds: float, max_tokens: int, *, looped: bool = False
) -> ToolAwareResult:
    reasoning = (earlier.reasoning if earlier else "") + part.reasoning
    result = ToolAwareResult(
        text=part.text,
        reasoning=reasoning,
        tool_calls=[ToolCallRequest.from_runtime(c) for c in part.tool_calls],
        tool_call_errors=list(part.tool_call_errors),
        usage=_merge_usage(earlier.usage, part.usage) if earlier else part.usage,
        duration_secs=seconds,
        finish_reason=part.finish_reason,
        thinking_truncated=earlier is not None,
        repetition_stopped=looped,
    )
    return replace(result, empty_reason=_empty_reason(result, max_tokens))


def _empty_reason(result: ToolAwareResult, max_tokens: int) -> str | None:
    if result.text.strip() or result.tool_calls:
        return None
    if result.finish_reason == "cancelled":
        return "the generation was cancelled before the model answered"
    if result.tool_call_errors:
        first = result.tool_call_errors[0]
        if first.truncated:
            return f"the model's tool call did not fit in max_tokens ({max_tokens}): {first.message}"
        return f"the model tried to call a tool but the call was invalid: {first.message}"
    if result.finish_reason == "length":
        if result.reasoning:
            return (
                f"the model spent all {max_tokens} tokens (max_tokens) thinking and gave no answer; "
                "raise max_tokens or set a thinking_budget"
            )
        return f"the model hit max_tokens ({max_tokens}) before answering"
    if result.reasoning:
        return "the model spent its tokens thinking and gave no answer"
    return "the model returned an empty reply"
