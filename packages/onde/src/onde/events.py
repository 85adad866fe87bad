"""What a streamed reply yields: a small union of frozen dataclasses told apart by their `type`.

Reasoning and text fragments are the runtime's own `ReasoningDelta` and `TextDelta`, passed through
unchanged (one type from the model to the user interface). The last event is always `Done`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

from qwen_runtime.types import FinishReason, ReasoningDelta, TextDelta, ToolCallError, Usage

from .types import ToolAwareResult, ToolCallRequest


@dataclass(frozen=True)
class ToolCallReady:
    """The model finished a tool call (parsed and checked against the offered tools)."""

    call: ToolCallRequest
    type: Literal["tool_call_ready"] = "tool_call_ready"


@dataclass(frozen=True)
class ToolCallFailed:
    """The model tried to call a tool but the call could not be parsed or validated."""

    error: ToolCallError
    type: Literal["tool_call_failed"] = "tool_call_failed"

    @property
    def message(self) -> str:
        return self.error.message

    @property
    def truncated(self) -> bool:
        """The reply hit max_tokens before this call closed (it is not a call at all)."""
        return self.error.truncated


@dataclass(frozen=True)
class GuardNotice:
    """The engine stepped in: the model kept repeating itself, or its thinking ran over budget or in
    circles and it answers without further thinking."""

    message: str
    type: Literal["guard_notice"] = "guard_notice"


@dataclass(frozen=True)
class Done:
    """The last event: the whole reply (already recorded in history unless cancelled)."""

    result: ToolAwareResult
    type: Literal["done"] = "done"

    @property
    def finish_reason(self) -> FinishReason:
        return self.result.finish_reason

    @property
    def usage(self) -> Usage:
        return self.result.usage


StreamEvent: TypeAlias = ReasoningDelta | TextDelta | ToolCallReady | ToolCallFailed | GuardNotice | Done

__all__ = [
    "Done",
    "FinishReason",
    "GuardNotice",
    "ReasoningDelta",
    "StreamEvent",
    "TextDelta",
    "ToolCallFailed",
    "ToolCallReady",
]
