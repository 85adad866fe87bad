"""XML tool calls (Qwen3-Coder, Qwen 3.5): where one ends while streaming, and what call it holds.

`<tool_call>\\n<function=NAME>\\n<parameter=ARG>\\nVALUE\\n</parameter>\\n...</function>\\n</tool_call>`,
string values raw (newlines, `<`, `>`, code, even a `</parameter>` of their own), other values JSON.
A value ends at the `\\n</parameter>` that is followed by the next parameter, `</function>`,
`</tool_call>` or the end; a value whose closing tag was dropped ends at the next parameter or at
`</function>`. Values are converted to their schema's types when the tool is known, through the
same normalised schema the grammar enforces (`toolschema`).

What Qwen 3.5/3.6 write outside the template is read as meant: `value</parameter>` without the
newline, a duplicated `</parameter>`, integers as `10.0000`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Any

from ..toolschema import SchemaError, coerce, is_raw_string, tool_schema
from ..types import ToolCall, ToolCallError, ToolCallEvent, ToolSpec
from .json_repair import JsonRepairError, repair_json
from .tags import CALL_CLOSE
from .validate import validate_call

FUNCTION_OPEN = "<function="
FUNCTION_CLOSE = "</function>"
PARAM_OPEN = "<parameter="
PARAM_CLOSE = "</parameter>"
_FUNCTION = re.compile(r"\s*<function=([^>\n]*)>")
_PARAM = re.compile(r"\s*<parameter=([^>\n]*)>")
XML_HINT = "expected <function=NAME> with <parameter=ARG>VALUE</parameter> blocks"
_FUNCTIONS_PREFIX = "functions."


def canonical_name(name: str, names: frozenset[str] | set[str]) -> str:
    """The tool name without OpenAI's `functions.` prefix, which some models write."""
    name = name.strip()
    if name.startswith(_FUNCTIONS_PREFIX) and name not in names:
        bare = name[len(_FUNCTIONS_PREFIX) :]
        if not names or bare in names:
            return bare
    return name


def _inside_value(prefix: str) -> bool:
    """Whether text ending here is inside a parameter's value (a tag here would be content)."""
    tail = prefix.rstrip()
    if tail.endswith((FUNCTION_CLOSE, PARAM_CLOSE)):
        return False
    return PARAM_OPEN in prefix


def call_end(body: str, final: bool) -> tuple[int, int, bool] | None:
    """Where the XML call `body` (the text after `<tool_call>`) ends: (end of the call, start of what
    follows it, whether `</tool_call>` closed it), or None while it may still go on."""
    at = body.find(CALL_CLOSE)
    while at >= 0:
        if not _inside_value(body[:at]):
            return at, at + len(CALL_CLOSE), True
        at = body.find(CALL_CLOSE, at + 1)
    at = body.find(FUNCTION_CLOSE)
    while at >= 0:
        if not _inside_value(body[:at]):
            after = at + len(FUNCTION_CLOSE)
            rest = body[after:].lstrip()
            if rest and not CALL_CLOSE.startswith(rest[: len(CALL_CLOSE)]):
                return after, after, False  # text after the call: its </tool_call> was dropped
            if not rest and final:
                return after, after, False
        at = body.find(FUNCTION_CLOSE, at + 1)
    if final:
        cut = body.find(CALL_CLOSE)
        if cut >= 0:  # a value never closed: the first </tool_call> is taken as the end
            return cut, cut + len(CALL_CLOSE), True
        return len(body), len(body), False
    return None


def _next_param(text: str, start: int, names: frozenset[str] | None) -> int:
    """Where a `\n<parameter=NAME>` of this tool (any name when the schema names none) starts, or -1."""
    at = text.find(f"\n{PARAM_OPEN}", start)
    while at >= 0 and names is not None:
        close = text.find(">", at)
        if close >= 0 and text[at + 1 + len(PARAM_OPEN) : close].strip() in names:
            break
        at = text.find(f"\n{PARAM_OPEN}", at + 1)
    return at


def _value_end(text: str, start: int, names: frozenset[str] | None) -> tuple[int, int]:
    """(end of the value, where parsing goes on) for a value starting at `start`: the `</parameter>`
    followed by the call's structure, or (its closing tag dropped) the next parameter or `</function>`."""
    close = -1
    at = text.find(PARAM_CLOSE, start)
    while at >= 0:
        after = at + len(PARAM_CLOSE)
        rest = text[after:].lstrip()
        if not rest or rest.startswith((PARAM_OPEN, FUNCTION_CLOSE, CALL_CLOSE, PARAM_CLOSE)):
            close = at  # (a `</parameter>` right after it is a duplicate Qwen 3.6 writes)
            break
        at = text.find(PARAM_CLOSE, after)
    following = _next_param(text, start, names)
    if following >= 0 and (close < 0 or following < close):
        return following, following + 1
    if close >= 0:
        after = close + len(PARAM_CLOSE)
        while text[after:].lstrip().startswith(PARAM_CLOSE):
            after = text.index(PARAM_CLOSE, after) + len(PARAM_CLOSE)
        return close, after
    at = text.find(f"\n{FUNCTION_CLOSE}", start)
    if at >= 0:
        return at, at + 1
    end = text.rfind(FUNCTION_CLOSE, start)
    end = end if end >= 0 and not text[end + len(FUNCTION_CLOSE) :].strip() else len(text)
    return end, end


def _strip_value(value: str) -> str:
    """The value without the newline the template writes after `>` and before `</parameter>`."""
    if value.startswith("\n"):
        value = value[1:]
    return value[:-1] if value.endswith("\n") else value


def convert_value(raw: str, schema: Any) -> Any:
    """A raw value as its (resolved) schema's type: strings stay raw, other types are read as lenient
    JSON, integral numbers become integers where the schema wants them (`10.0000`). A value that does
    not read as its type stays a string, so validation names the mismatch."""
    if is_raw_string(schema):
        return raw
    enum = schema.get("enum") if isinstance(schema, dict) else None
    if isinstance(enum, list) and raw in enum:
        return raw
    text = raw.strip()
    if not schema and not text.startswith(("{", "[")):
        return raw  # nothing says it is not a string
    # a typed value, or a schema without a simple type (anyOf...): JSON, as the grammar writes it
    try:
        value, _ = repair_json(text)
    except (JsonRepairError, RecursionError):
        return raw
    return coerce(value, schema)  # (Jinja writes Python's True/False/None; repair_json reads those too)


def coerce_arguments(name: str, arguments: dict[str, Any], tools: Sequence[ToolSpec]) -> dict[str, Any]:
    """JSON-format arguments with integral numbers as integers where the tool's schema wants them."""
    spec = next((tool for tool in tools if tool.name == name), None)
    if spec is None:
        return arguments
    try:
        resolved = tool_schema(spec).resolved
    except SchemaError:
        return arguments
    value = coerce(arguments, resolved)
    return value if isinstance(value, dict) else arguments


def _value_schemas(spec: ToolSpec | None) -> tuple[dict[str, Any], Any]:
    """(declared parameters, the schema of undeclared ones) of a tool, resolved."""
    if spec is None:
        return {}, None
    try:
        resolved = tool_schema(spec).resolved
    except SchemaError:
        resolved = spec.parameters
    properties = resolved.get("properties")
    extra = resolved.get("additionalProperties")
    return (properties if isinstance(properties, dict) else {}), (extra if isinstance(extra, dict) else None)


def parse_xml_call(body: str, tools: Sequence[ToolSpec]) -> tuple[str, dict[str, Any]]:
    """(name, arguments) of one XML call; ValueError naming what is wrong."""
    match = _FUNCTION.match(body)
    if match is None:
        raise ValueError(f"tool call has no <function=NAME>; {XML_HINT}")
    name = canonical_name(match.group(1), frozenset(tool.name for tool in tools))
    if not name:
        raise ValueError(f"tool call has an empty function name; {XML_HINT}")
    spec = next((tool for tool in tools if tool.name == name), None)
    properties, extra = _value_schemas(spec)
    param_names = frozenset(properties) if properties else None
    arguments: dict[str, Any] = {}
    index = match.end()
    while True:
        param = _PARAM.match(body, index)
        if param is None:
            break
        key = param.group(1).strip()
        end, index = _value_end(body, param.end(), param_names)
        arguments[key] = convert_value(_strip_value(body[param.end() : end]), properties.get(key, extra))
    rest = body[index:].strip()
    if rest and not rest.startswith(FUNCTION_CLOSE):
        raise _Stray(name, arguments, rest)
    return name, arguments


class _Stray(ValueError):
    def __init__(self, name: str, arguments: dict[str, Any], rest: str) -> None:
        shown = rest if len(rest) <= 40 else rest[:37] + "..."
        super().__init__(f"unexpected text {shown!r} in the call of {name}; {XML_HINT}")
        self.name = name
        self.arguments = arguments


def interpret_xml_call(
    body: str,
    raw: str,
    tools: Sequence[ToolSpec],
    new_id: Callable[[], str],
    *,
    closed: bool = True,
) -> list[ToolCallEvent | ToolCallError]:
    """The event for one XML call body; never raises."""
    ending = "" if closed else " (the reply ended before </tool_call>)"
    try:
        name, arguments = parse_xml_call(body, tools)
    except _Stray as exc:
        return [ToolCallError(raw=raw, message=f"{exc}{ending}", name=exc.name, id=new_id())]
    except ValueError as exc:
        return [ToolCallError(raw=raw, message=f"{exc}{ending}", id=new_id())]
    problem = validate_call(name, arguments, tools) if tools else None
    if problem is not None:
        return [ToolCallError(raw=raw, message=problem, name=name, id=new_id())]
    return [ToolCallEvent(ToolCall(id=new_id(), name=name, arguments=arguments))]


def render_xml_call(name: str, arguments: dict[str, Any]) -> str:
    """A call as Qwen3-Coder's and Qwen 3.5's templates write it (strings raw, other values JSON)."""
    parts = [f"<function={name}>\n"]
    for key, value in arguments.items():
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        parts.append(f"<parameter={key}>\n{text}\n</parameter>\n")
    parts.append("</function>")
    return "".join(parts)


__all__ = [
    "FUNCTION_OPEN",
    "call_end",
    "canonical_name",
    "convert_value",
    "interpret_xml_call",
    "parse_xml_call",
    "render_xml_call",
]
