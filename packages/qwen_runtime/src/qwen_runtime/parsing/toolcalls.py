"""Tool-call bodies: where the JSON ends while streaming, and what call (or error) it holds.

The streaming parser needs to know when a call's JSON is complete and whether a `</tool_call>` is
inside a string value (then it is content, not the end of the call); `JsonTracker` follows depth and
string state incrementally. `interpret_call` turns a finished body into events, accepting every shape
small models produce (Qwen's `arguments`, Hermes' `parameters`, OpenAI's `function` wrapper, arguments
as a JSON string) and naming precisely what is wrong otherwise.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from typing import Any

from ..calls.json_repair import JsonRepairError, repair_json
from ..types import ToolCall, ToolCallError, ToolCallEvent, ToolSpec
from .validate import json_type, validate_call
from .xmlcalls import canonical_name, coerce_arguments

_IN_DOUBLE = re.compile(r'[\\"]')
_IN_SINGLE = re.compile(r"[\\']")
_NAME = re.compile(r"""["']name["']\s*:\s*["']([^"'\n]{1,100})["']""")
_ARGUMENT_KEYS = ("arguments", "parameters", "args", "input")
CALL_KEYS = ("name", "function", "arguments", "parameters", "type")
"""First keys that make a bare `{` at the start of a line worth holding back as a possible call."""
_VERDICT_SPAN = 64
SHAPE_HINT = 'expected {"name": "<tool>", "arguments": {...}}'


class JsonTracker:
    """Depth, string and comment state of JSON arriving in pieces (double- or single-quoted strings,
    `//` and `/* */` comments, whose quotes and braces do not count)."""

    def __init__(self) -> None:
        self.depth = 1
        self.quote: str | None = None
        self.escape = False
        self.complete = False
        self.comment: str | None = None  # "//" or "/*" while inside one
        self._slash = False  # the last piece ended in '/' outside strings
        self._star = False  # the last piece ended in '*' inside a /* comment

    def _skip_comment(self, text: str, index: int, end: int) -> int:
        """Past the end of the current comment, or `end` when it goes on."""
        if self.comment == "//":
            newline = text.find("\n", index, end)
            if newline < 0:
                return end
            self.comment = None
            return newline + 1
        if self._star and index < end and text[index] == "/":
            self._star = False
            self.comment = None
            return index + 1
        self._star = False
        close = text.find("*/", index, end)
        if close < 0:
            self._star = end > index and text[end - 1] == "*"
            return end
        self.comment = None
        return close + 2

    def run(self, text: str, index: int, end: int) -> int:
        """Advance until the value completes (returns the index after it), a '<' outside strings
        (returns its index), or `end`."""
        while index < end:
            if self.quote is not None:
                if self.escape:
                    self.escape = False
                    index += 1
                    continue
                pattern = _IN_DOUBLE if self.quote == '"' else _IN_SINGLE
                match = pattern.search(text, index, end)
                if match is None:
                    return end
                index = match.start()
                if text[index] == "\\":
                    self.escape = True
                else:
                    self.quote = None
                index += 1
                continue
            char = text[index]
            if char == "<":
                return index
            if char == "/":
                if index + 1 >= end:
                    self._slash = True
                elif text[index + 1] in "/*":
                    self.comment = "/" + text[index + 1]
                    index += 2
                    continue
            if char in "\"'":
                self.quote = char
            elif char in "{[":
                self.depth += 1
            elif char in "}]":
                self.depth -= 1
                if self.depth == 0:
                    self.complete = True
                    return index + 1
            index += 1
        return end


def call_start_verdict(prefix: str) -> bool | None:
    """Whether text starting with '{' opens a tool call: True, False, or None (cannot tell yet).

    Decided from the first key alone, and the same however the prefix was chunked: a longer prefix
    never changes a decision, and past `_VERDICT_SPAN` characters an open question becomes False.
    """
    prefix = prefix[:_VERDICT_SPAN]
    rest = prefix[1:].lstrip()
    if not rest:
        return None if len(prefix) < _VERDICT_SPAN else False
    quote = rest[0]
    if quote not in "\"'":
        return False
    close = rest.find(quote, 1)
    if close < 0:
        key = rest[1:]
        if any(name.startswith(key) for name in CALL_KEYS):
            return None if len(prefix) < _VERDICT_SPAN else False
        return False
    return rest[1:close] in CALL_KEYS


def guess_name(text: str) -> str | None:
    """The tool name in damaged call JSON, for an error report."""
    match = _NAME.search(text)
    return match.group(1) if match else None


class CallShapeError(ValueError):
    def __init__(self, message: str, name: str | None = None) -> None:
        super().__init__(message)
        self.name = name


def call_shape(item: Any) -> tuple[str, dict[str, Any]]:
    """(name, arguments) from one decoded call in any of the accepted shapes."""
    if not isinstance(item, dict):
        raise CallShapeError(f"a tool call must be a JSON object, got {json_type(item)}; {SHAPE_HINT}")
    function = item.get("function")
    source = function if isinstance(function, dict) else item
    name = source.get("name")
    if name is None and isinstance(function, str):
        name = function
    if not isinstance(name, str) or not name.strip():
        raise CallShapeError(f'tool call has no "name" string; {SHAPE_HINT}')
    arguments: Any = {}
    for key in _ARGUMENT_KEYS:
        if key in source:
            arguments = source[key]
            break
    if isinstance(arguments, str):
        if not arguments.strip():
            arguments = {}
        else:
            try:
                arguments, _ = repair_json(arguments)
            except JsonRepairError as exc:
                raise CallShapeError(f'"arguments" is a string that is not valid JSON: {exc}', name) from None
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise CallShapeError(f'"arguments" must be a JSON object, got {json_type(arguments)}', name)
    return name, arguments


def names_offered_call(body: str, names: Collection[str]) -> bool:
    """Whether bare JSON is a call to one of `names` (only then is unwrapped JSON taken as a call)."""
    try:
        value, _ = repair_json(body)
        name, _arguments = call_shape(value)
    except ValueError:
        return False
    return canonical_name(name, set(names)) in names


def interpret_call(
    body: str,
    raw: str,
    tools: Sequence[ToolSpec],
    new_id: Callable[[], str],
    *,
    closed: bool = True,
) -> list[ToolCallEvent | ToolCallError]:
    """The events for one tool-call body; never raises."""
    ending = "" if closed else " (the reply ended before </tool_call>)"
    if not body.strip():
        return [ToolCallError(raw=raw, message=f"tool call holds no JSON object; {SHAPE_HINT}", id=new_id())]
    try:
        value, _repairs = repair_json(body)
    except JsonRepairError as exc:
        message = f"tool call is not valid JSON: {exc}{ending}"
        return [ToolCallError(raw=raw, message=message, name=guess_name(body), id=new_id())]
    items = value if isinstance(value, list) and value else [value]
    events: list[ToolCallEvent | ToolCallError] = []
    names = frozenset(tool.name for tool in tools)
    for item in items:
        try:
            name, arguments = call_shape(item)
        except CallShapeError as exc:
            events.append(ToolCallError(raw=raw, message=str(exc), name=exc.name, id=new_id()))
            continue
        name = canonical_name(name, names)
        arguments = coerce_arguments(name, arguments, tools)
        problem = validate_call(name, arguments, tools) if tools else None
        if problem is not None:
            events.append(ToolCallError(raw=raw, message=problem, name=name, id=new_id()))
        else:
            events.append(ToolCallEvent(ToolCall(id=new_id(), name=name, arguments=arguments)))
    return events
