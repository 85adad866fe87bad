"""The conversation as typed runtime messages, and its JSON form.

Entries are qwen_runtime messages, kept exactly as sent and received (tool call ids, argument key
order, unicode), so a history saved and loaded again renders the identical next prompt. sigit's
session files are built on `message_to_dict` / `message_from_dict` (one message a line).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Iterator
from typing import Any

from qwen_runtime.images import Image
from qwen_runtime.types import AssistantMessage, Message, SystemMessage, ToolCall, ToolMessage, UserMessage

from .images import ImageStore

FORMAT = "onde.history"
VERSION = 1


def message_to_dict(message: Message, images: ImageStore | None = None) -> dict[str, Any]:
    """A JSON-ready dict; optional fields appear only when set. With `images`, pictures are copied into
    that store and kept as references (hash and file name); without, as paths or data: URLs."""
    out: dict[str, Any] = {"role": message.role, "content": message.content}
    if isinstance(message, UserMessage | ToolMessage) and message.images:
        out["images"] = [images.put(i) if images is not None else i.to_json() for i in message.images]
    if isinstance(message, AssistantMessage):
        if message.reasoning is not None:
            out["reasoning"] = message.reasoning
        if message.tool_calls:
            out["tool_calls"] = [
                {"id": call.id, "name": call.name, "arguments": call.arguments} for call in message.tool_calls
            ]
    elif isinstance(message, ToolMessage):
        out["tool_call_id"] = message.tool_call_id
        if message.name is not None:
            out["name"] = message.name
    return out


def _str(data: dict[str, Any], key: str, where: str, *, optional: bool = False) -> Any:
    value = data.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise ValueError(f"{where}: {key!r} must be a string, got {type(value).__name__}")
    return value


def _images(data: dict[str, Any], where: str, store: ImageStore | None) -> tuple[Image, ...]:
    raw = data.get("images", [])
    if not isinstance(raw, list):
        raise ValueError(f"{where}: 'images' must be a list")
    out = []
    for i, item in enumerate(raw):
        if isinstance(item, dict) and "sha256" in item:
            if store is None:
                raise ValueError(f"{where}, image {i}: a stored image reference needs the session's image folder")
            out.append(store.get(item, f"{where}, image {i}"))
        else:
            try:
                out.append(Image.from_json(item))
            except (ValueError, TypeError) as exc:
                raise ValueError(f"{where}, image {i}: {exc}") from None
    return tuple(out)


def message_from_dict(data: Any, where: str = "message", images: ImageStore | None = None) -> Message:
    """The inverse of `message_to_dict`; bad input names the entry and the field."""
    if not isinstance(data, dict):
        raise ValueError(f"{where}: expected a JSON object, got {type(data).__name__}")
    role = data.get("role")
    content = _str(data, "content", where)
    if role == "system":
        return SystemMessage(content)
    if role == "user":
        return UserMessage(content, images=_images(data, where, images))
    if role == "assistant":
        calls = []
        raw_calls = data.get("tool_calls", [])
        if not isinstance(raw_calls, list):
            raise ValueError(f"{where}: 'tool_calls' must be a list")
        for i, raw in enumerate(raw_calls):
            call_where = f"{where}, tool call {i}"
            if not isinstance(raw, dict):
                raise ValueError(f"{call_where}: expected a JSON object")
            arguments = raw.get("arguments")
            if not isinstance(arguments, dict):
                raise ValueError(f"{call_where}: 'arguments' must be a JSON object")
            calls.append(ToolCall(_str(raw, "id", call_where), _str(raw, "name", call_where), arguments))
        return AssistantMessage(
            content=content, reasoning=_str(data, "reasoning", where, optional=True), tool_calls=tuple(calls)
        )
    if role == "tool":
        return ToolMessage(
            tool_call_id=_str(data, "tool_call_id", where),
            content=content,
            name=_str(data, "name", where, optional=True),
            images=_images(data, where, images),
        )
    raise ValueError(f"{where}: unknown role {role!r}; expected system, user, assistant or tool")


class ChatHistory:
    """An ordered, thread-safe list of messages."""

    def __init__(self, messages: Iterable[Message] = ()) -> None:
        self._lock = threading.Lock()
        self._messages: list[Message] = list(messages)

    def __len__(self) -> int:
        return len(self._messages)

    def __iter__(self) -> Iterator[Message]:
        return iter(self.messages())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ChatHistory) and self.messages() == other.messages()

    __hash__ = None  # type: ignore[assignment]

    def messages(self) -> tuple[Message, ...]:
        with self._lock:
            return tuple(self._messages)

    def append(self, *messages: Message) -> None:
        with self._lock:
            self._messages.extend(messages)

    def clear(self) -> int:
        with self._lock:
            count = len(self._messages)
            self._messages.clear()
            return count

    def replace(self, messages: Iterable[Message]) -> None:
        new = list(messages)
        with self._lock:
            self._messages = new

    def last_tool_calls(self) -> tuple[ToolCall, ...]:
        """The calls of the latest assistant turn (the ones tool results may answer)."""
        with self._lock:
            for message in reversed(self._messages):
                if isinstance(message, AssistantMessage):
                    return message.tool_calls
        return ()

    def to_json(self, *, indent: int | None = None) -> str:
        payload = {"format": FORMAT, "version": VERSION, "messages": [message_to_dict(m) for m in self]}
        return json.dumps(payload, ensure_ascii=False, indent=indent)

    @classmethod
    def from_json(cls, text: str) -> ChatHistory:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"history is not valid JSON ({exc.msg} at {exc.pos})") from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError(f'not an onde history: expected an object with "format": "{FORMAT}"')
        if data.get("version") != VERSION:
            raise ValueError(f"unsupported onde history version {data.get('version')!r} (this is {VERSION})")
        messages = data.get("messages")
        if not isinstance(messages, list):
            raise ValueError("history: 'messages' must be a list")
        return cls(message_from_dict(m, f"history message {i}") for i, m in enumerate(messages))
