"""What a written value means under its schema: which XML parameters are raw text, whether null is
allowed, and values coerced to the types the schema wants (integral floats, JSON sent as a string).
"""

from __future__ import annotations

from typing import Any

from .json_repair import JsonRepairError, repair_json
from .schema_refs import ANNOTATIONS, types_of


def schema_types(schema: Any) -> set[str]:
    """The simple `type`s a schema names (empty when it names none)."""
    return (types_of(schema) or set()) if isinstance(schema, dict) else set()


def raw_string(schema: Any) -> dict[str, Any] | None:
    """The string schema an XML parameter's raw text keeps to, when it is written raw: its type
    allows a string, or it is pydantic's `Optional[str]` (`anyOf` of a string and null, written raw
    as the template writes strings). None when the value is written as JSON."""
    if not isinstance(schema, dict):
        return None
    if "string" in schema_types(schema):
        return schema
    branches = schema.get("anyOf", schema.get("oneOf"))
    if isinstance(branches, list) and all(k in ("anyOf", "oneOf") or k in ANNOTATIONS for k in schema):
        strings = [b for b in branches if isinstance(b, dict) and schema_types(b) == {"string"}]
        others = [b for b in branches if b not in strings]
        if len(strings) == 1 and all(isinstance(b, dict) and schema_types(b) == {"null"} for b in others):
            return strings[0]
    return None


_JSON_TYPES: dict[type, set[str]] = {
    str: {"string"},
    bool: {"boolean"},
    int: {"integer", "number"},
    float: {"number"},
    type(None): {"null"},
    list: {"array"},
    dict: {"object"},
}


def enumerated(schema: Any) -> list[Any] | None:
    """Every value a schema allows, when it lists them: `enum`/`const`, or an `anyOf`/`oneOf` whose
    branches each list theirs or allow only null (MCP servers write a choice as an `anyOf` of enums,
    pydantic an optional one as an enum or null); a `type` beside them keeps the values of that type.
    None when the schema allows values it does not list. The XML form writes these as literals,
    strings raw and the rest as JSON; the parser reads a raw value that is one of them as that value."""
    if not isinstance(schema, dict):
        return None
    if "enum" in schema:
        options = schema["enum"] if isinstance(schema["enum"], list) else None
    elif "const" in schema:
        options = [schema["const"]]
    else:
        branches = schema.get("anyOf", schema.get("oneOf"))
        if not isinstance(branches, list) or not branches:
            return None
        options = []
        for branch in branches:
            if isinstance(branch, dict) and schema_types(branch) == {"null"} and "enum" not in branch:
                found: list[Any] | None = [None]
            else:
                found = enumerated(branch)
            if found is None:
                return None
            options += found
    kinds = schema_types(schema)
    if options is not None and kinds:
        options = [value for value in options if _JSON_TYPES.get(type(value), set()) & kinds]
    return options


def is_raw_string(schema: Any) -> bool:
    """Whether an XML parameter under `schema` is written as raw text (see `raw_string`)."""
    return raw_string(schema) is not None


def allows_null(schema: Any) -> bool:
    """Whether a schema lets a value be null (`type` naming "null", or an `anyOf`/`oneOf` branch)."""
    if not isinstance(schema, dict):
        return False
    if "null" in schema_types(schema):
        return True
    branches = schema.get("anyOf", schema.get("oneOf"))
    return isinstance(branches, list) and any(allows_null(branch) for branch in branches)


def _container_types(schema: dict[str, Any]) -> set[str]:
    """The types a schema allows, its `anyOf`/`oneOf` branches included (empty: no simple types)."""
    types = set(schema_types(schema))
    branches = schema.get("anyOf", schema.get("oneOf"))
    if isinstance(branches, list):
        for branch in branches:
            found = _container_types(branch) if isinstance(branch, dict) else set()
            if not found:
                return set()
            types |= found
    return types


def _decoded(value: str, schema: dict[str, Any]) -> Any:
    """A string that holds the object or array the schema wants (double-encoded JSON, or a Python
    dict's repr: `"{'key': 'value'}"`), decoded; the string itself otherwise."""
    types = _container_types(schema)
    if not types & {"object", "array"} or not types <= {"object", "array", "null"}:
        return value
    text = value.strip()
    if not text.startswith(("{", "[")):
        return value
    try:
        decoded, _ = repair_json(text)
    except (JsonRepairError, RecursionError):
        return value
    wanted = "object" if isinstance(decoded, dict) else "array" if isinstance(decoded, list) else None
    return decoded if wanted in types else value


def coerce(value: Any, schema: Any) -> Any:
    """`value` with integral floats where the schema wants integers (`10.0000` -> 10), and objects or
    arrays that arrived as a string of themselves decoded, recursively."""
    if not isinstance(schema, dict):
        return value
    if isinstance(value, str):
        decoded = _decoded(value, schema)
        if decoded is not value:
            return coerce(decoded, schema)
        return value
    if isinstance(value, float) and value.is_integer() and "integer" in schema_types(schema) and abs(value) < 2**63:
        return int(value)
    if isinstance(value, dict):
        props = schema.get("properties")
        props = props if isinstance(props, dict) else {}
        extra = schema.get("additionalProperties")
        return {k: coerce(v, props.get(k, extra)) for k, v in value.items()}
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [coerce(v, schema["items"]) for v in value]
    for key in ("anyOf", "oneOf"):
        branches = schema.get(key)
        if isinstance(value, float) and isinstance(branches, list):
            for branch in branches:
                changed = coerce(value, branch)
                if changed is not value:
                    return changed
    return value


__all__ = ["allows_null", "coerce", "enumerated", "is_raw_string", "raw_string", "schema_types"]
