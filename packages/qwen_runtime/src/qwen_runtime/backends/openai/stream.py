"""Reading a streamed reply: SSE lines into events, with tool-call deltas reassembled.

Servers differ in what they parse: some return reasoning in `reasoning_content` (or `reasoning`),
others leave `<think>` inline; some return tool calls as structured deltas, others leave
`<tool_call>` in the text. Content therefore always goes through the same `ReplyParser` the local
backends use, and reassembled tool-call arguments are repaired and validated like theirs.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

from ...errors import QwenRuntimeError, ServerError
from ...parsing import ReplyParser, new_call_id, repair_json, validate_call
from ...parsing.cutoff import cut_off_error
from ...types import (
    ChatRequest,
    Event,
    Finished,
    FinishReason,
    ReasoningDelta,
    ToolCall,
    ToolCallError,
    ToolCallEvent,
    ToolSpec,
    Usage,
)


@dataclass
class PendingCall:
    id: str = ""
    name: str = ""
    arguments: str = ""


@dataclass
class Decoder(ABC):
    """Turns one response's lines into events; `finish()` emits what waits for the end."""

    request: ChatRequest
    url: str
    context_size: int
    done: bool = False
    complete: bool = False
    finish_reason: str | None = None
    saw_tool_call: bool = False
    started: float = field(default_factory=time.perf_counter)
    usage: Usage = field(default_factory=Usage)

    def __post_init__(self) -> None:
        self.tools = self.request.offered_tools()
        self.parser = ReplyParser(self.tools, id_factory=new_call_id)

    @abstractmethod
    def line(self, text: str) -> list[Event]:
        """The events of one line of the response (an SSE `data:` line, or one NDJSON object)."""

    def content(self, text: str) -> list[Event]:
        events = self.parser.feed(text)
        self.saw_tool_call |= any(isinstance(e, ToolCallEvent | ToolCallError) for e in events)
        return events

    def pending_calls(self) -> list[Event]:
        return []

    def finish(self) -> list[Event]:
        events = self.parser.finish(truncated=self.finish_reason == "length") + self.pending_calls()
        self.saw_tool_call |= any(isinstance(e, ToolCallEvent | ToolCallError) for e in events)
        reason: FinishReason
        if self.finish_reason == "length":
            reason = "length"
        elif self.saw_tool_call or self.finish_reason in ("tool_calls", "function_call"):
            reason = "tool_calls"
        else:
            reason = "stop"
        detail = (
            self.finish_reason if self.finish_reason not in (None, "stop", "length", "tool_calls") else ""
        )
        usage = self.usage
        if not usage.generation_ms:
            usage = dataclasses.replace(usage, generation_ms=(time.perf_counter() - self.started) * 1000)
        return [*events, usage, Finished(reason, detail or "")]

    def server_error(self, payload: Any) -> ServerError:
        error = payload.get("error") if isinstance(payload, dict) else payload
        message = error.get("message") if isinstance(error, dict) else error
        return ServerError(self.url, f"the server reported an error mid-stream: {message}")

    def malformed(self, payload: str, exc: Exception) -> ServerError:
        """A chunk that parses as JSON but is not shaped as the protocol says (a field of the wrong type)."""
        return ServerError(self.url, f"sent a malformed stream chunk: {payload[:200]!r} ({exc})")


#: what reading a chunk of the wrong shape raises (`.get` on a list, `int("x")`, iterating a number)
MALFORMED = (AttributeError, TypeError, ValueError)


class SSEDecoder(Decoder):
    """OpenAI's `data: {chunk}` lines, ended by `data: [DONE]` or a finish_reason."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self.calls: dict[int, PendingCall] = {}

    def line(self, text: str) -> list[Event]:
        text = text.strip()
        if not text or text.startswith(":"):
            return []
        if text.startswith("data:"):
            payload = text[5:].strip()
        elif text.startswith(("event:", "id:", "retry:")):
            return []
        else:
            payload = text  # a bare JSON line (some servers send errors so)
        if payload == "[DONE]":
            self.done = self.complete = True
            return []
        try:
            chunk = json.loads(payload)
        except json.JSONDecodeError:
            raise ServerError(self.url, f"sent a stream line that is not JSON: {payload[:200]!r}") from None
        if not isinstance(chunk, dict):
            raise ServerError(self.url, f"sent a stream chunk that is not an object: {payload[:200]!r}")
        if "error" in chunk:
            raise self.server_error(chunk)
        try:
            return self._chunk(chunk)
        except MALFORMED as exc:
            raise self.malformed(payload, exc) from exc

    def _chunk(self, chunk: dict[str, Any]) -> list[Event]:
        self._read_usage(chunk)
        events: list[Event] = []
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or choice.get("message") or {}
            reasoning = delta.get("reasoning_content") or delta.get("reasoning")
            if isinstance(reasoning, str) and reasoning:
                events.append(ReasoningDelta(reasoning))
            content = delta.get("content")
            if isinstance(content, str) and content:
                events.extend(self.content(content))
            for piece in delta.get("tool_calls") or []:
                self._add_call_piece(piece)
            if choice.get("finish_reason"):
                self.finish_reason = str(choice["finish_reason"])
                self.complete = True
        return events

    def _add_call_piece(self, piece: dict[str, Any]) -> None:
        function = piece.get("function") or {}
        index = piece.get("index")
        if not isinstance(index, int):  # no index: a new call when it names itself, else the last one
            starts = bool(piece.get("id") or function.get("name"))
            index = len(self.calls) if starts or not self.calls else max(self.calls)
        call = self.calls.setdefault(index, PendingCall())
        if piece.get("id"):
            call.id = str(piece["id"])
        if function.get("name") and not call.name:
            call.name = str(function["name"])
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            call.arguments += arguments
        elif isinstance(arguments, dict):
            call.arguments = json.dumps(arguments)

    def pending_calls(self) -> list[Event]:
        """The reassembled calls; with finish_reason "length" the last one was still streaming its
        arguments when the limit came (a later index would have started after it closed): cut off."""
        calls = [(call.id or new_call_id(), call) for _, call in sorted(self.calls.items())]
        events = [call_event(call_id, call.name, call.arguments, self.tools) for call_id, call in calls]
        if calls and self.finish_reason == "length":
            last_id, last = calls[-1]
            events[-1] = cut_off_error(last.arguments, last.name or None, lambda: last_id)
        return events

    def _read_usage(self, chunk: dict[str, Any]) -> None:
        usage = chunk.get("usage")
        timings = chunk.get("timings")
        if not isinstance(usage, dict) and not isinstance(timings, dict):
            return
        fields: dict[str, Any] = {"context_size": self.context_size}
        if isinstance(usage, dict):
            fields["prompt_tokens"] = int(usage.get("prompt_tokens") or 0)
            fields["completion_tokens"] = int(usage.get("completion_tokens") or 0)
            cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens")
            if cached is not None:
                fields["cached_prompt_tokens"] = int(cached)
            reasoning = (usage.get("completion_tokens_details") or {}).get("reasoning_tokens")
            if reasoning is not None:
                fields["reasoning_tokens"] = int(reasoning)
        if isinstance(timings, dict):  # llama-server
            fields["prompt_ms"] = float(timings.get("prompt_ms") or 0.0)
            fields["generation_ms"] = float(timings.get("predicted_ms") or 0.0)
            cached_now = fields.get("cached_prompt_tokens", self.usage.cached_prompt_tokens)
            if not cached_now and timings.get("cache_n"):
                fields["cached_prompt_tokens"] = int(timings["cache_n"])
        self.usage = dataclasses.replace(self.usage, **fields)


def call_event(call_id: str, name: str, raw: str, tools: tuple[ToolSpec, ...]) -> Event:
    """A reassembled call: arguments parsed (repaired when the damage is unambiguous) and validated."""
    text = raw.strip() or "{}"
    try:
        value: Any = json.loads(text)
    except json.JSONDecodeError:
        try:
            value, _repairs = repair_json(text)
        except (ValueError, QwenRuntimeError) as exc:
            return ToolCallError(
                raw=raw,
                message=f"arguments of {name or 'a tool call'} are not valid JSON: {exc}",
                name=name or None,
                id=call_id,
            )
    if isinstance(value, str):  # some servers double-encode the arguments
        with contextlib.suppress(json.JSONDecodeError):
            value = json.loads(value)
    if not name:
        return ToolCallError(raw=raw, message="tool call without a function name", id=call_id)
    if not isinstance(value, dict):
        return ToolCallError(
            raw=raw,
            message=f"arguments of {name} must be a JSON object, got {text[:80]}",
            name=name,
            id=call_id,
        )
    problem = validate_call(name, value, tools)
    if problem:
        return ToolCallError(raw=raw, message=problem, name=name, id=call_id)
    return ToolCallEvent(ToolCall(id=call_id, name=name, arguments=value))
