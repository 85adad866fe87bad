"""XML tool calls (Qwen3-Coder, Qwen 3.5): where one ends while streaming, and what call it holds.

`<tool_call>\\n<function=NAME>\\n<parameter=ARG>\\nVALUE\\n</parameter>\\n...</function>\\n</tool_call>`,
string values raw (newlines, `<`, `>`, code, even call syntax of their own), other values JSON.
Where a value ends is decided from the structure of the whole call (`xmlreading`): only where a
parameter the tool declares, or the call's end, really follows. `<function=NAME>{...}</function>`
(the arguments as one JSON object) is read too. Values are converted to their schema's types when
the tool is known, through the same normalised schema the grammar enforces (`toolschema`).

What Qwen 3.5/3.6 write outside the template is read as meant: `value</parameter>` without the
newline, a duplicated `</parameter>`, integers as `10.0000`, `null` for an optional string.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from ..calls.json_repair import JsonRepairError, repair_json
from ..calls.toolschema import SchemaError, allows_null, coerce, enumerated, is_raw_string, tool_schema
from ..types import ToolCall, ToolCallError, ToolCallEvent, ToolSpec
from .validate import validate_call
from .xmlreading import FUNCTION_OPEN, CallEnds, canonical_name, read_xml_call

_NULLS = ("null", "None")
XML_HINT = "expected <function=NAME> with <parameter=ARG>VALUE</parameter> blocks"


def call_end(body: str, final: bool, tools: Sequence[ToolSpec] = ()) -> tuple[int, int, bool] | None:
    """Where the XML call `body` (the text after `<tool_call>`) ends: (end of the call, start of what
    follows it, whether `</tool_call>` closed it), or None while it may still go on (`CallEnds`)."""
    return CallEnds(tools).call_end(body, final)


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
        if raw.strip() in _NULLS and allows_null(schema):
            return None  # `<parameter=x>null` for an Optional[str]: Qwen 3.6 writes the JSON null
        return raw
    options = enumerated(schema)
    if options is not None and any(isinstance(option, str) and option == raw for option in options):
        return raw  # one of the strings an enum (or an `anyOf` of enums) lists, written raw
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
    reading = read_xml_call(body, tools)
    if reading is None:
        raise ValueError(f"tool call has no <function=NAME>; {XML_HINT}")
    name = reading.name
    if not name:
        raise ValueError(f"tool call has an empty function name; {XML_HINT}")
    spec = next((tool for tool in tools if tool.name == name), None)
    if reading.json_arguments is not None:
        return name, coerce_arguments(name, reading.json_arguments, tools)
    properties, extra = _value_schemas(spec)
    arguments: dict[str, Any] = {}
    for key, raw in reading.values:
        arguments[key] = convert_value(_strip_value(raw), properties.get(key, extra))
    if reading.stray:
        raise _Stray(name, arguments, reading.stray)
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
    "CallEnds",
    "call_end",
    "canonical_name",
    "convert_value",
    "interpret_xml_call",
    "parse_xml_call",
    "render_xml_call",
]
