"""The runtime protocol's data: what goes into a model and what comes out.

Every backend takes a `ChatRequest` and yields `Event`s; everything above (onde, sigit) speaks only
these types, so swapping llama.cpp for a server or a script changes nothing upstream.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any, Literal, TypeAlias

from .images import Image

# ---------------------------------------------------------------- messages


@dataclass(frozen=True)
class ToolCall:
    """A completed, parsed tool call. `arguments` is always a JSON object. `notes`: what the runtime
    says about how the call was made, for whoever runs it (a value cut to fit the token limit)."""

    id: str
    name: str
    arguments: dict[str, Any]
    notes: tuple[str, ...] = ()

    def arguments_json(self) -> str:
        return json.dumps(self.arguments, ensure_ascii=False)


@dataclass(frozen=True)
class SystemMessage:
    content: str
    role: Literal["system"] = "system"


@dataclass(frozen=True)
class UserMessage:
    """A user turn; `images` go before the text. Each may be given as an `Image`, a data: URL, a path or
    the bytes of a file, and is held as an `Image`."""

    content: str
    images: tuple[Image, ...] = ()
    role: Literal["user"] = "user"

    def __post_init__(self) -> None:
        if self.images and not all(isinstance(i, Image) for i in self.images):
            object.__setattr__(self, "images", tuple(Image.coerce(i) for i in self.images))
        elif not isinstance(self.images, tuple):
            object.__setattr__(self, "images", tuple(self.images))


@dataclass(frozen=True)
class AssistantMessage:
    """An assistant turn: text, optional reasoning, and any tool calls it made."""

    content: str = ""
    reasoning: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    role: Literal["assistant"] = "assistant"


@dataclass(frozen=True)
class ToolMessage:
    """The result of one tool call, sent back to the model; `images` (a file it read) go before the text."""

    tool_call_id: str
    content: str
    name: str | None = None
    role: Literal["tool"] = "tool"
    images: tuple[Image, ...] = ()

    def __post_init__(self) -> None:
        if self.images and not all(isinstance(i, Image) for i in self.images):
            object.__setattr__(self, "images", tuple(Image.coerce(i) for i in self.images))


Message: TypeAlias = SystemMessage | UserMessage | AssistantMessage | ToolMessage


def message_to_dict(message: Message) -> dict[str, Any]:
    """The OpenAI / chat-template shape of a message (what Jinja templates and servers expect)."""
    if isinstance(message, AssistantMessage):
        out: dict[str, Any] = {"role": "assistant", "content": message.content}
        if message.reasoning:
            out["reasoning_content"] = message.reasoning
        if message.tool_calls:
            out["tool_calls"] = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments},
                }
                for call in message.tool_calls
            ]
        return out
    if isinstance(message, ToolMessage):
        out = {"role": "tool", "tool_call_id": message.tool_call_id, "content": message.content}
        if message.name:
            out["name"] = message.name
        return out
    return {"role": message.role, "content": message.content}


# ---------------------------------------------------------------- tools and sampling


@dataclass(frozen=True)
class ToolSpec:
    """A tool offered to the model: name, description and the JSON schema of its arguments."""

    name: str
    description: str
    parameters: dict[str, Any] = field(
        default_factory=lambda: {"type": "object", "properties": {}}
    )

    def to_openai(self) -> dict[str, Any]:
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ToolSpec:
        """Accepts `{"name", "description", "parameters"}` or OpenAI's `{"type": "function", ...}`."""
        if data.get("type") == "function" and isinstance(data.get("function"), dict):
            data = data["function"]
        if not isinstance(data.get("name"), str) or not data["name"]:
            raise ValueError(f"tool definition without a name: {json.dumps(data)[:200]}")
        params = data.get("parameters") or {"type": "object", "properties": {}}
        if isinstance(params, str):
            try:
                params = json.loads(params)
            except json.JSONDecodeError as exc:
                raise ValueError(f"parameters of tool {data['name']!r} are not valid JSON: {exc}") from None
            if not isinstance(params, dict):
                raise ValueError(
                    f"parameters of tool {data['name']!r} must be a JSON object (a schema), got {params!r:.80}"
                )
        return cls(name=data["name"], description=str(data.get("description", "")), parameters=params)


ToolChoice: TypeAlias = str
""""auto", "required", "none", or the name of one tool (as in OpenAI's API)."""


@dataclass(frozen=True)
class Sampling:
    temperature: float = 0.7
    top_p: float = 0.95
    top_k: int = 20
    min_p: float = 0.0
    presence_penalty: float = 0.0
    frequency_penalty: float = 0.0
    repeat_penalty: float = 1.0
    max_tokens: int = 4096
    seed: int | None = None
    stop: tuple[str, ...] = ()

    def with_(self, **changes: Any) -> Sampling:
        return replace(self, **changes)


@dataclass(frozen=True)
class ChatRequest:
    messages: tuple[Message, ...]
    tools: tuple[ToolSpec, ...] = ()
    sampling: Sampling = field(default_factory=Sampling)
    enable_thinking: bool = True
    tool_choice: ToolChoice = "auto"
    thinking_budget: int | None = None
    """Reasoning tokens after which the runtime closes `<think>` and lets the model answer."""
    preserve_thinking: bool | None = None
    """Keep past turns' reasoning in the prompt (Qwen 3.6 off by default, 3.8 on); None: the template's
    own default. Refused by a template that does not take it."""
    reasoning_effort: str | None = None
    """How hard to think (Qwen 3.8: "xhigh" by default, "medium", "low"); None: the template's default.
    Refused by a template that does not take it."""

    def template_options(self) -> dict[str, Any]:
        """The template variables this request sets beyond `enable_thinking` (unset ones stay undefined,
        so each template keeps its own default)."""
        options: dict[str, Any] = {}
        if self.preserve_thinking is not None:
            options["preserve_thinking"] = self.preserve_thinking
        if self.reasoning_effort is not None:
            options["reasoning_effort"] = self.reasoning_effort
        return options

    def images(self) -> tuple[Image, ...]:
        """Every image in the conversation, in the order the model reads them."""
        return tuple(i for m in self.messages if isinstance(m, UserMessage | ToolMessage) for i in m.images)

    def offered_tools(self) -> tuple[ToolSpec, ...]:
        """The tools the model may call under `tool_choice` (none for "none")."""
        if self.tool_choice == "none":
            return ()
        if self.tool_choice in ("auto", "required"):
            return self.tools
        return tuple(t for t in self.tools if t.name == self.tool_choice)


# ---------------------------------------------------------------- events

FinishReason: TypeAlias = Literal["stop", "length", "tool_calls", "cancelled", "error"]


@dataclass(frozen=True)
class ReasoningDelta:
    text: str
    type: Literal["reasoning"] = "reasoning"


@dataclass(frozen=True)
class TextDelta:
    text: str
    type: Literal["text"] = "text"


@dataclass(frozen=True)
class ToolCallEvent:
    call: ToolCall
    type: Literal["tool_call"] = "tool_call"


@dataclass(frozen=True)
class ToolCallError:
    """A tool call the model tried to make but that could not be parsed or validated.

    `message` names what was wrong; the agent sends it back so the model can retry. `truncated`: the
    reply ended at the token limit (finish_reason "length") before the call closed, so nothing may run.
    """

    raw: str
    message: str
    name: str | None = None
    id: str = ""
    type: Literal["tool_call_error"] = "tool_call_error"
    truncated: bool = False


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int = 0
    cached_prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = 0
    prompt_ms: float = 0.0
    generation_ms: float = 0.0
    context_size: int = 0
    #: speculative decoding: tokens evaluated as a draft, and those of them the model confirmed
    drafted_tokens: int = 0
    accepted_draft_tokens: int = 0
    type: Literal["usage"] = "usage"
    restored_prompt_tokens: int = 0
    """Of `cached_prompt_tokens`, those restored from a saved state (a checkpoint, the prompt cache on disk)."""
    prefilled_prompt_tokens: int = 0
    """Of `cached_prompt_tokens`, those `prefill` evaluated ahead of this request: work done in this
    process that no earlier request reported."""
    image_tokens: int = 0
    """Of `prompt_tokens`, those that are images (what the pictures in the conversation cost)."""
    draft_length: int = 0
    """Speculative decoding: the draft length the runtime chose for most of the reply's steps (0: mostly
    none; it weighs what verifying costs against how often drafts are right)."""
    draft_verify_cost: float = 0.0
    """What verifying a draft of `draft_length` tokens (of the longest allowed, when 0) costs, in
    one-token decode steps, as measured on this machine (0.0: no drafting)."""
    draft_acceptance: float = 0.0
    """The per-token acceptance rate of the drafts (smoothed over the runtime's requests)."""
    draft_backed_off: bool = False
    """Drafting was not paying and was backed off (only short probes now and then) when the reply ended."""

    @property
    def cache_read_tokens(self) -> int:
        """Prompt tokens nobody evaluated for this request (restored, or kept from an earlier request)."""
        return max(0, self.cached_prompt_tokens - self.prefilled_prompt_tokens)

    @property
    def evaluated_prompt_tokens(self) -> int:
        """Prompt tokens evaluated for this request, its prefill included."""
        return self.prompt_tokens - self.cache_read_tokens

    @property
    def tokens_per_second(self) -> float:
        return self.completion_tokens / (self.generation_ms / 1000) if self.generation_ms > 0 else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "prompt_tokens": self.prompt_tokens,
            "cached_prompt_tokens": self.cached_prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "reasoning_tokens": self.reasoning_tokens,
            "prompt_ms": round(self.prompt_ms, 3),
            "generation_ms": round(self.generation_ms, 3),
            "context_size": self.context_size,
            "restored_prompt_tokens": self.restored_prompt_tokens,
            "prefilled_prompt_tokens": self.prefilled_prompt_tokens,
            "drafted_tokens": self.drafted_tokens,
            "accepted_draft_tokens": self.accepted_draft_tokens,
            "image_tokens": self.image_tokens,
            "draft_length": self.draft_length,
            "draft_verify_cost": round(self.draft_verify_cost, 3),
            "draft_acceptance": round(self.draft_acceptance, 3),
            "draft_backed_off": self.draft_backed_off,
        }


@dataclass(frozen=True)
class Finished:
    reason: FinishReason
    detail: str = ""
    type: Literal["finished"] = "finished"


Event: TypeAlias = ReasoningDelta | TextDelta | ToolCallEvent | ToolCallError | Usage | Finished


@dataclass
class Completion:
    """A whole reply, folded from the event stream (the non-streaming view of the same call)."""

    text: str = ""
    reasoning: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    tool_call_errors: list[ToolCallError] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    finish_reason: FinishReason = "stop"
    finish_detail: str = ""

    def add(self, event: Event) -> None:
        if isinstance(event, TextDelta):
            self.text += event.text
        elif isinstance(event, ReasoningDelta):
            self.reasoning += event.text
        elif isinstance(event, ToolCallEvent):
            self.tool_calls.append(event.call)
        elif isinstance(event, ToolCallError):
            self.tool_call_errors.append(event)
        elif isinstance(event, Usage):
            self.usage = event
        elif isinstance(event, Finished):
            self.finish_reason = event.reason
            self.finish_detail = event.detail

    def to_message(self) -> AssistantMessage:
        return AssistantMessage(
            content=self.text, reasoning=self.reasoning or None, tool_calls=tuple(self.tool_calls)
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "reasoning": self.reasoning,
            "tool_calls": [
                {"id": c.id, "name": c.name, "arguments": c.arguments} for c in self.tool_calls
            ],
            "tool_call_errors": [
                {"raw": e.raw, "message": e.message, "name": e.name, "truncated": e.truncated}
                for e in self.tool_call_errors
            ],
            "usage": self.usage.to_dict(),
            "finish_reason": self.finish_reason,
        }
