"""The host protocol's data: requests and events as JSON, one object a line.

The runtime's own types travel as they are (`ChatRequest`, its messages, tools and sampling; every
`Event`), each tagged with its class, so a hosted runtime yields exactly the events an in-process one
does. Only the classes named here are rebuilt: a line that names anything else is refused. Images go
as their bytes (a data: URL), never as a path for the host to open.
"""

from __future__ import annotations

import dataclasses
import json
import socket
from typing import Any

from ..images import Image
from ..types import (
    AssistantMessage,
    ChatRequest,
    Event,
    Finished,
    ReasoningDelta,
    Sampling,
    SystemMessage,
    TextDelta,
    ToolCall,
    ToolCallError,
    ToolCallEvent,
    ToolMessage,
    ToolSpec,
    Usage,
    UserMessage,
)

MAX_LINE = 256 * 1024 * 1024
"""The longest line either end reads (a conversation with images is long, but not without bound)."""

_CLASSES: dict[str, type[Any]] = {
    cls.__name__: cls
    for cls in (ChatRequest, Sampling, SystemMessage, UserMessage, AssistantMessage, ToolMessage, ToolSpec,
                ToolCall, ReasoningDelta, TextDelta, ToolCallEvent, ToolCallError, Usage, Finished)
}
_EVENTS = (ReasoningDelta, TextDelta, ToolCallEvent, ToolCallError, Usage, Finished)


class WireError(ValueError):
    """A line that is not what the protocol sends."""


def encode(value: Any) -> Any:
    """`value` as plain JSON data, dataclasses tagged with their class (`"@"`)."""
    if isinstance(value, Image):
        return {"@": "Image", "data_url": value.data_url()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out: dict[str, Any] = {"@": type(value).__name__}
        for f in dataclasses.fields(value):
            out[f.name] = encode(getattr(value, f.name))
        return out
    if isinstance(value, tuple | list):
        return [encode(v) for v in value]
    if isinstance(value, dict):
        return {str(k): encode(v) for k, v in value.items()}
    return value


def decode(value: Any) -> Any:
    """The objects `encode` made `value` from (free dicts, tool arguments and schemas, stay dicts)."""
    if isinstance(value, list):
        return [decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    tag = value.get("@")
    if tag is None:
        return {k: decode(v) for k, v in value.items()}
    if tag == "Image":
        url = value.get("data_url")
        if not isinstance(url, str):
            raise WireError("an image without its data")
        return Image.from_data_url(url)
    cls = _CLASSES.get(tag) if isinstance(tag, str) else None
    if cls is None:
        raise WireError(f"unknown type on the wire: {str(tag)[:60]!r}")
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.name not in value:
            continue
        item = decode(value[f.name])
        if isinstance(item, list) and str(f.type).startswith("tuple"):
            item = tuple(item)
        kwargs[f.name] = item
    try:
        return cls(**kwargs)
    except (TypeError, ValueError) as exc:
        raise WireError(f"a {tag} that does not fit: {exc}") from None


def request_from(data: Any) -> ChatRequest:
    request = decode(data)
    if not isinstance(request, ChatRequest):
        raise WireError("a request that is not a ChatRequest")
    return request


def event_from(data: Any) -> Event:
    event = decode(data)
    if not isinstance(event, _EVENTS):
        raise WireError("an event of no known kind")
    return event


class Lines:
    """One connection, read and written a JSON object a line."""

    def __init__(self, conn: socket.socket) -> None:
        self.conn = conn
        self._reader = conn.makefile("rb")

    def send(self, message: dict[str, Any]) -> None:
        self.conn.sendall(json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode() + b"\n")

    def receive(self) -> dict[str, Any] | None:
        """The next object, None at the end of the connection."""
        line = self._reader.readline(MAX_LINE + 1)
        if not line:
            return None
        if len(line) > MAX_LINE or not line.endswith(b"\n"):
            raise WireError("a line cut short or too long")
        try:
            message = json.loads(line)
        except json.JSONDecodeError as exc:
            raise WireError(f"not JSON: {exc}") from None
        if not isinstance(message, dict):
            raise WireError("a line that is not a JSON object")
        return message

    def close(self) -> None:
        self._reader.close()
        self.conn.close()
