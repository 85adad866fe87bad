"""One turn's agent events as Claude Code's messages: `assistant` blocks, `user` tool results, and
with `--include-partial-messages` the Anthropic streaming events in between."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterable
from typing import Any

from ...events import (
    Notice,
    PermissionAnswered,
    ReasoningDelta,
    TextDelta,
    ToolCallRequested,
    ToolFinished,
    TurnFinished,
    UsageUpdated,
)
from ...tools import Tool, all_tools
from ..adapter import Printer
from . import messages
from .tool_names import to_claude

Emit = Callable[[dict[str, Any]], None]


class TurnWriter(Printer):
    """Turns the agent's event stream into the lines an SDK reads (one writer per turn), and progress
    lines on stderr (`progress`: each call's title where stdout does not carry it, and notices)."""

    def __init__(self, emit: Emit, *, model: str, session_id: str, partial: bool,
                 tools: Iterable[Tool[Any]] | None = None, progress: Callable[[str], None] | None = None,
                 show_calls: bool = False) -> None:
        self._emit = emit
        self.tools = list(tools) if tools is not None else all_tools()
        self.progress = progress
        self.show_calls = show_calls
        self.finished: TurnFinished | None = None
        self.model = model
        self.session_id = session_id
        self.partial = partial
        self._blocks: list[tuple[str, list[str]]] = []  # ("text" | "thinking", fragments) in order
        self._message_id = ""
        self._streaming = False
        self._blocks_count = 0
        self._usage: dict[str, int] = {}
        self.calls: dict[str, tuple[str, dict[str, Any]]] = {}
        """call id -> (Claude name, Claude input) of each call this turn."""
        self.denials: list[dict[str, Any]] = []
        self.last_call_id: str | None = None

    def handle_text_delta(self, event: TextDelta) -> None:
        self._fragment("text", event.text)

    def handle_reasoning_delta(self, event: ReasoningDelta) -> None:
        self._fragment("thinking", event.text)

    def handle_tool_call_requested(self, event: ToolCallRequested) -> None:
        self.flush()
        name, arguments = to_claude(event.name, event.arguments, self.tools)
        self.calls[event.call_id] = (name, arguments)
        self.last_call_id = event.call_id
        self._tool_use(event.call_id, name, arguments)
        if self.show_calls and self.progress is not None:
            self.progress(f"⏺ {event.title}")  # stream-JSON carries the call itself

    def handle_permission_answered(self, event: PermissionAnswered) -> None:
        if not event.allowed:
            name, arguments = self.calls.get(event.call_id, ("", {}))
            self.denials.append({"tool_name": name, "tool_use_id": event.call_id, "tool_input": arguments})

    def handle_tool_finished(self, event: ToolFinished) -> None:
        if event.call_id not in self.calls:  # refused before it was announced (bad arguments, a guard)
            self.flush()
            name, _ = to_claude(event.name, {}, self.tools)
            self.calls[event.call_id] = (name, {})
            self._tool_use(event.call_id, name, {})
        self._emit(messages.tool_result(event.call_id, event.output, event.is_error, session_id=self.session_id))

    def handle_usage_updated(self, event: UsageUpdated) -> None:
        self._usage = {"input_tokens": event.prompt_tokens, "output_tokens": event.completion_tokens,
                       "cache_read_input_tokens": event.cached_prompt_tokens}

    def handle_notice(self, event: Notice) -> None:
        if self.progress is not None:
            self.progress(f"[{event.level}] {event.message}")

    def handle_turn_finished(self, event: TurnFinished) -> None:
        self.finished = event
        self.flush()

    def flush(self) -> None:
        """The text and thinking so far, as one `assistant` message."""
        if not self._blocks:
            return
        content = [messages.text_block("".join(parts)) if kind == "text" else messages.thinking_block("".join(parts))
                   for kind, parts in self._blocks]
        self._blocks = []
        self._stop_stream("end_turn")
        self._emit(messages.assistant(content, model=self.model, session_id=self.session_id,
                                      message_id=self._take_message_id(), usage=self._usage))

    # ------------------------------------------------------------------ helpers

    def _fragment(self, kind: str, text: str) -> None:
        if not text:
            return
        if not self._blocks or self._blocks[-1][0] != kind:
            if self.partial:
                self._start_stream()
                if self._blocks:
                    self._stream({"type": "content_block_stop", "index": len(self._blocks) - 1})
                empty = messages.text_block("") if kind == "text" else messages.thinking_block("")
                self._stream({"type": "content_block_start", "index": len(self._blocks), "content_block": empty})
            self._blocks.append((kind, []))
        self._blocks[-1][1].append(text)
        if self.partial:
            delta = {"type": "text_delta", "text": text} if kind == "text" else {
                "type": "thinking_delta", "thinking": text}
            self._stream({"type": "content_block_delta", "index": len(self._blocks) - 1, "delta": delta})

    def _tool_use(self, call_id: str, name: str, arguments: dict[str, Any]) -> None:
        block = messages.tool_use_block(call_id, name, arguments)
        if self.partial:
            self._start_stream()
            self._stream({"type": "content_block_start", "index": 0, "content_block": {**block, "input": {}}})
            self._stream({"type": "content_block_delta", "index": 0,
                          "delta": {"type": "input_json_delta", "partial_json": json.dumps(arguments)}})
            self._stream({"type": "content_block_stop", "index": 0})
            self._stop_stream("tool_use", blocks_open=False)
        self._emit(messages.assistant([block], model=self.model, session_id=self.session_id,
                                      message_id=self._take_message_id(), usage=self._usage))

    def _message(self) -> str:
        if not self._message_id:
            self._message_id = f"msg_{uuid.uuid4().hex[:24]}"
        return self._message_id

    def _take_message_id(self) -> str:
        message_id, self._message_id = self._message(), ""
        return message_id

    def _start_stream(self) -> None:
        if self._streaming:
            return
        self._streaming = True
        self._stream({"type": "message_start", "message": {
            "id": self._message(), "type": "message", "role": "assistant", "model": self.model, "content": [],
            "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 0, "output_tokens": 0}}})

    def _stop_stream(self, reason: str, *, blocks_open: bool = True) -> None:
        if not self._streaming:
            return
        if blocks_open and self._blocks_count:
            self._stream({"type": "content_block_stop", "index": self._blocks_count - 1})
        self._stream({"type": "message_delta", "delta": {"stop_reason": reason, "stop_sequence": None},
                      "usage": {"output_tokens": self._usage.get("output_tokens", 0)}})
        self._stream({"type": "message_stop"})
        self._streaming = False
        self._blocks_count = 0

    def _stream(self, event: dict[str, Any]) -> None:
        if event["type"] == "content_block_start":
            self._blocks_count = event["index"] + 1
        self._emit(messages.stream_event(event, session_id=self.session_id))
