"""Check a parsed call against the offered tools, with messages a small model can act on.

The schema checked is the tool's original one (references resolved by jsonschema), through the
validator `toolschema` keeps per tool: whatever the grammar could not enforce is caught here.
The message goes back to the model as the tool result, so it names the tool, the parameter, and what
was expected versus given, rather than jsonschema's generic wording.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..calls.toolschema import SchemaError, tool_schema
from ..types import ToolSpec

if TYPE_CHECKING:  # jsonschema costs ~150 ms to import: loaded on the first validation only
    from jsonschema.exceptions import ValidationError

_MAX_ERRORS = 5
_JSON_TYPES: tuple[tuple[type | tuple[type, ...], str], ...] = (
    (bool, "boolean"),
    ((int, float), "number"),
    (str, "string"),
    (dict, "object"),
    (list, "array"),
    (type(None), "null"),
)


def json_type(value: Any) -> str:
    """The JSON name of a Python value's type (bool before number: bool is an int in Python)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return "integer"
    for kind, name in _JSON_TYPES:
        if isinstance(value, kind):
            return name
    return type(value).__name__


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def _where(error: ValidationError) -> str:
    path = ".".join(str(part) for part in error.absolute_path)
    return f"parameter {path!r}" if path else "the arguments"


def _describe(error: ValidationError) -> str:
    where = _where(error)
    if error.validator == "required" and isinstance(error.instance, dict):
        required = error.validator_value if isinstance(error.validator_value, list) else []
        missing = [name for name in required if name not in error.instance]
        names = ", ".join(repr(name) for name in missing) or str(error.message)
        inside = f" (in {where})" if error.absolute_path else ""
        noun = "parameter" if len(missing) == 1 else "parameters"
        return f"missing required {noun} {names}{inside}"
    if error.validator == "type":
        expected = error.validator_value
        expected_text = " or ".join(expected) if isinstance(expected, list) else str(expected)
        return f"{where} should be {expected_text}, got {json_type(error.instance)} {_short(error.instance)}"
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        allowed = set(error.schema.get("properties", {})) if isinstance(error.schema, dict) else set()
        extra = sorted(key for key in error.instance if key not in allowed)
        accepted = ", ".join(sorted(allowed)) or "none"
        return f"unexpected parameter {', '.join(map(repr, extra))} (accepted: {accepted})"
    if error.validator == "enum" and isinstance(error.validator_value, list):
        options = ", ".join(_short(option) for option in error.validator_value)
        return f"{where} must be one of {options}, got {_short(error.instance)}"
    return f"{where}: {error.message}"


def validate_call(name: str, arguments: Any, tools: Sequence[ToolSpec]) -> str | None:
    """None when `name` is an offered tool and `arguments` satisfy its schema, else what is wrong."""
    spec = next((tool for tool in tools if tool.name == name), None)
    if spec is None:
        available = ", ".join(tool.name for tool in tools) or "none"
        return f"unknown tool {name!r}; available tools: {available}"
    if not isinstance(arguments, dict):
        return f"arguments of {name} must be a JSON object, got {json_type(arguments)} {_short(arguments)}"
    try:
        validator = tool_schema(spec).validator()
    except SchemaError:
        validator = None
    if validator is None:  # a broken tool schema (bad type, bad $ref) is the tool author's bug, not the model's
        return None
    try:
        errors = sorted(validator.iter_errors(arguments), key=lambda e: ([str(p) for p in e.absolute_path], e.message))
    except Exception:  # a broken tool schema (bad type, bad regex) is the tool author's bug, not the model's
        return None
    if not errors:
        return None
    problems = [_describe(error) for error in errors[:_MAX_ERRORS]]
    more = f" (and {len(errors) - _MAX_ERRORS} more)" if len(errors) > _MAX_ERRORS else ""
    return f"invalid arguments for {name}: " + "; ".join(problems) + more
