"""The SDK's value types: messages, tools and results (the stream's events are in `events`).

They mirror the original's (ToolDefinition with a JSON-string schema, ToolCallRequest with JSON-string
arguments) and convert losslessly to and from qwen_runtime's protocol types, which history stores.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal

from qwen_runtime.images import Image
from qwen_runtime.models.registry import human_size
from qwen_runtime.types import (
    AssistantMessage,
    FinishReason,
    Message,
    SystemMessage,
    ToolCall,
    ToolCallError,
    ToolMessage,
    ToolSpec,
    Usage,
    UserMessage,
)


class ChatRole(StrEnum):
    SYSTEM = "system"
    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"


def _json_object(text: str, what: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{what} is not valid JSON ({exc.msg} at {exc.pos}): {text[:200]!r}") from None
    if not isinstance(value, dict):
        raise ValueError(f"{what} must be a JSON object, got {type(value).__name__}: {text[:200]!r}")
    return value


@dataclass(frozen=True, init=False)
class ToolCallRequest:
    """A tool call the model made: `function_name` (the documented field, `name` its alias), `arguments`
    the JSON text and `parsed_arguments` the object.

    The arguments are parsed once, when the call is made (from the runtime's call: not at all), and
    kept: reading `parsed_arguments` again costs nothing.
    """

    id: str
    function_name: str
    """The tool's name (as in `ToolDefinition.name` and `ToolResult.name`); `name` reads the same."""
    arguments: str
    _parsed: dict[str, Any] = field(init=False, compare=False, repr=False)
    notes: tuple[str, ...] = field(default=(), compare=False)
    """What the runtime says about how the call was made (a value cut to fit the token limit)."""

    def __init__(
        self,
        id: str,
        function_name: str | None = None,
        arguments: str = "{}",
        *,
        name: str | None = None,
        notes: tuple[str, ...] = (),
    ) -> None:
        if function_name is not None and name is not None and function_name != name:
            raise ValueError(f"a tool call has one name: function_name={function_name!r} but name={name!r}")
        chosen = function_name if function_name is not None else name
        if not chosen:
            raise ValueError("a tool call needs a name")
        self._set(id, chosen, arguments, _json_object(arguments, f"arguments of tool call {chosen!r}"))
        if notes:
            object.__setattr__(self, "notes", tuple(notes))

    def _set(self, id: str, name: str, arguments: str, parsed: dict[str, Any]) -> None:
        object.__setattr__(self, "id", id)
        object.__setattr__(self, "function_name", name)
        object.__setattr__(self, "arguments", arguments)
        object.__setattr__(self, "_parsed", parsed)

    @property
    def name(self) -> str:
        """`function_name` under its other spelling: code written either way works."""
        return self.function_name

    @property
    def parsed_arguments(self) -> dict[str, Any]:
        """The arguments object (a shallow copy of the one parsed when the call was made)."""
        return dict(self._parsed)

    @classmethod
    def from_runtime(cls, call: ToolCall) -> ToolCallRequest:
        """The runtime's parsed call, kept as parsed (its JSON text is written once, for `arguments`)."""
        request = cls.__new__(cls)
        request._set(call.id, call.name, call.arguments_json(), call.arguments)
        if call.notes:
            object.__setattr__(request, "notes", call.notes)
        return request

    def to_runtime(self) -> ToolCall:
        return ToolCall(id=self.id, name=self.function_name, arguments=self.parsed_arguments, notes=self.notes)


@dataclass(frozen=True)
class ToolDefinition:
    """A tool offered to the model. `parameters_schema` is a JSON Schema, as text or as a dict."""

    name: str
    description: str
    parameters_schema: str | dict[str, Any] = '{"type": "object", "properties": {}}'

    def __post_init__(self) -> None:
        if not self.name:
            raise ValueError("a tool definition needs a name")
        _ = self.parameters  # fail at construction, naming the tool, not at the first send

    @property
    def parameters(self) -> dict[str, Any]:
        if isinstance(self.parameters_schema, dict):
            return self.parameters_schema
        if not isinstance(self.parameters_schema, str):
            raise ValueError(
                f"parameters_schema of tool {self.name!r} must be a JSON string or a dict, "
                f"not {type(self.parameters_schema).__name__}"
            )
        return _json_object(self.parameters_schema, f"parameters_schema of tool {self.name!r}")

    def to_spec(self) -> ToolSpec:
        return ToolSpec(name=self.name, description=self.description, parameters=self.parameters)

    @classmethod
    def from_spec(cls, spec: ToolSpec) -> ToolDefinition:
        return cls(name=spec.name, description=spec.description, parameters_schema=spec.parameters)


@dataclass(frozen=True)
class ToolResult:
    """What running a tool produced, sent back under the id of the call it answers."""

    tool_call_id: str
    content: str
    name: str | None = None
    images: tuple[Image, ...] = ()
    """Images the result holds (a picture the tool read), for a model that can see."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "images", tuple(Image.coerce(i) for i in self.images))


@dataclass(frozen=True)
class ChatMessage:
    """One history entry, with everything a turn can hold (tool calls and results are not flattened)."""

    role: ChatRole
    content: str = ""
    reasoning: str | None = None
    tool_calls: tuple[ToolCallRequest, ...] = ()
    tool_call_id: str | None = None
    name: str | None = None
    images: tuple[Image, ...] = ()
    """User and tool messages: images (each given as an `Image`, a data: URL, a path or bytes)."""

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "role", ChatRole(self.role))
        except ValueError:
            roles = ", ".join(r.value for r in ChatRole)
            raise ValueError(f"unknown role {self.role!r}; expected one of {roles}") from None
        object.__setattr__(self, "tool_calls", tuple(self.tool_calls))
        object.__setattr__(self, "images", tuple(Image.coerce(i) for i in self.images))
        if self.role is ChatRole.TOOL and not self.tool_call_id:
            raise ValueError("a tool message needs the tool_call_id of the call it answers")
        if self.role is not ChatRole.ASSISTANT and (self.tool_calls or self.reasoning is not None):
            raise ValueError(f"only assistant messages carry tool calls or reasoning, not {self.role.value}")
        if self.role not in (ChatRole.USER, ChatRole.TOOL) and self.images:
            raise ValueError("only user and tool messages carry images")

    @classmethod
    def system(cls, content: str) -> ChatMessage:
        return cls(ChatRole.SYSTEM, content)

    @classmethod
    def user(cls, content: str, images: Sequence[Image | str | bytes | Path] = ()) -> ChatMessage:
        return cls(ChatRole.USER, content, images=tuple(images))  # type: ignore[arg-type]

    @classmethod
    def assistant(
        cls, content: str = "", tool_calls: tuple[ToolCallRequest, ...] = (), reasoning: str | None = None
    ) -> ChatMessage:
        return cls(ChatRole.ASSISTANT, content, reasoning=reasoning, tool_calls=tool_calls)

    @classmethod
    def tool(
        cls, tool_call_id: str, content: str, name: str | None = None, images: Sequence[Image | str | bytes] = ()
    ) -> ChatMessage:
        return cls(ChatRole.TOOL, content, tool_call_id=tool_call_id, name=name, images=tuple(images))  # type: ignore[arg-type]

    def to_runtime(self) -> Message:
        if self.role is ChatRole.SYSTEM:
            return SystemMessage(self.content)
        if self.role is ChatRole.USER:
            return UserMessage(self.content, images=self.images)
        if self.role is ChatRole.ASSISTANT:
            return AssistantMessage(
                content=self.content,
                reasoning=self.reasoning,
                tool_calls=tuple(call.to_runtime() for call in self.tool_calls),
            )
        assert self.tool_call_id is not None  # checked in __post_init__
        return ToolMessage(tool_call_id=self.tool_call_id, content=self.content, name=self.name, images=self.images)

    @classmethod
    def from_runtime(cls, message: Message) -> ChatMessage:
        if isinstance(message, SystemMessage):
            return cls.system(message.content)
        if isinstance(message, UserMessage):
            return cls.user(message.content, images=message.images)
        if isinstance(message, AssistantMessage):
            return cls.assistant(
                message.content,
                tuple(ToolCallRequest.from_runtime(call) for call in message.tool_calls),
                message.reasoning,
            )
        return cls.tool(message.tool_call_id, message.content, message.name, message.images)


@dataclass(frozen=True)
class ToolAwareResult:
    """One reply. `empty_reason` says why an empty reply (no text, no tool calls) came back."""

    text: str
    reasoning: str = ""
    tool_calls: list[ToolCallRequest] = field(default_factory=list)
    tool_call_errors: list[ToolCallError] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    duration_secs: float = 0.0
    finish_reason: FinishReason = "stop"
    empty_reason: str | None = None
    thinking_truncated: bool = False
    """True when the thinking budget cut the reasoning short and the model answered without it."""
    repetition_stopped: bool = False
    """True when the repetition guard stopped a reply that kept repeating itself (`finish_reason` is
    then "length", though no token limit was reached)."""

    @property
    def duration_display(self) -> str:
        if self.duration_secs < 1:
            return f"{self.duration_secs * 1000:.0f}ms"
        if self.duration_secs < 60:
            return f"{self.duration_secs:.1f}s"
        minutes, seconds = divmod(self.duration_secs, 60)
        return f"{minutes:.0f}m {seconds:.0f}s"

    @property
    def has_tool_calls(self) -> bool:
        return bool(self.tool_calls)

    @property
    def cut_off_calls(self) -> list[ToolCallError]:
        """The calls the token limit cut off before they closed: in `tool_call_errors`, never in
        `tool_calls` (nothing of them may run; tell the model to make them again, shorter)."""
        return [error for error in self.tool_call_errors if error.truncated]

    @property
    def is_empty(self) -> bool:
        return self.empty_reason is not None


@dataclass(frozen=True)
class EngineInfo:
    status: Literal["not_loaded", "ready", "generating"]
    model_name: str | None
    runtime: str | None
    context_size: int
    approx_memory_bytes: int
    history_length: int
    tool_capable: bool
    model_details: tuple[tuple[str, str], ...] = ()
    """What the runtime detected about its model: template, call format, layers, context window and why."""

    @property
    def approx_memory_display(self) -> str:
        return human_size(self.approx_memory_bytes)
