"""What ChatEngine's methods accept, and how it becomes qwen_runtime's types.

Tools may be onde `ToolDefinition`s or runtime `ToolSpec`s, messages onde `ChatMessage`s or runtime
messages; the engine converts them here, once, before a turn touches its history.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from qwen_runtime.images import Image
from qwen_runtime.types import AssistantMessage, Message, SystemMessage, ToolMessage, ToolSpec, UserMessage

from .types import ChatMessage, ToolDefinition

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["Images", "Tools", "runtime_message", "tool_specs"]

Tools = Sequence[ToolDefinition | ToolSpec]
Images = Sequence["Image | str | bytes | Path"]
"""Images for a turn: files (paths), the bytes of files, data: URLs or `Image`s."""


def tool_specs(tools: Tools) -> tuple[ToolSpec, ...]:
    if isinstance(tools, ToolDefinition | ToolSpec | str | dict):
        raise TypeError("tools must be a sequence of ToolDefinition, not a single tool")
    specs = []
    for tool in tools:
        if isinstance(tool, ToolDefinition):
            specs.append(tool.to_spec())
        elif isinstance(tool, ToolSpec):
            specs.append(tool)
        else:
            raise TypeError(f"tools must be ToolDefinition (or ToolSpec), not {type(tool).__name__}")
    names = [s.name for s in specs]
    if duplicates := sorted({n for n in names if names.count(n) > 1}):
        raise ValueError(f"tool names must be unique; repeated: {', '.join(duplicates)}")
    return tuple(specs)


def runtime_message(message: ChatMessage | Message) -> Message:
    if isinstance(message, ChatMessage):
        return message.to_runtime()
    if isinstance(message, SystemMessage | UserMessage | AssistantMessage | ToolMessage):
        return message
    raise TypeError(f"expected a ChatMessage (or a qwen_runtime message), not {type(message).__name__}")
