"""One normalised view of each tool's JSON Schema, in front of both call formats.

MCP servers publish schemas as pydantic writes them: `$defs` with `$ref`s, `anyOf` with `null`,
`allOf` wrappers, free-form maps. The call grammars nest a tool's schema inside a bigger one, where
a `#/$defs/...` pointer no longer resolves, and llguidance refuses some keywords outright. So every
consumer reads the schema through `tool_schema(tool)`:

- `resolved`: local `$ref`s inlined (`#/$defs/X`, `#/definitions/X`, any pointer into the document),
  a recursive reference unrolled at most `MAX_REF_DEPTH` times (past that the branch is cut as if the
  schema allowed nothing there), `allOf` merged. The XML parser converts values against it.
- `grammar`: what llguidance enforces while generating: `resolved` with `oneOf` as `anyOf`, no
  undeclared keys where properties are declared, number literals bounded (integers within
  +-(10^18-1) unless the schema's bounds say otherwise, numbers within +-10^15 and 10 fraction digits,
  no exponent), untyped values as bounded JSON, and the keywords llguidance cannot enforce removed
  (listed in `dropped`, logged once per tool at INFO).
- `validate`: the original schema, checked with jsonschema when a call is parsed (so whatever the
  grammar dropped is still checked).

Resolving lives in `schema_refs`, what a written value means under a schema in `values`; their
names are re-exported here.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

from ..types import ToolSpec
from .schema_refs import ANNOTATIONS, MAX_REF_DEPTH, SchemaError, resolve_refs, types_of
from .values import allows_null, coerce, enumerated, is_raw_string, raw_string, schema_types

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

log = logging.getLogger(__name__)

INT_BOUND = 10**18 - 1
"""Integers without bounds are kept within +-INT_BOUND (inside int64) while generating."""
NUMBER_BOUND = 10**15
NUMBER_STEP = 1e-10
"""Numbers without a `multipleOf` are written with at most 10 fraction digits."""
ANY_STRING_MAX = 256
ANY_ITEMS_MAX = 8
ANY_KEY = "^[A-Za-z0-9_.-]{1,64}$"
"""The keys a free-form map is offered while generating (llguidance has no `propertyNames`)."""

#: keywords llguidance 1.9 rejects: removed from the grammar and checked when the call is parsed
_UNSUPPORTED = frozenset(
    {
        "not",
        "if",
        "then",
        "else",
        "contains",
        "minContains",
        "maxContains",
        "uniqueItems",
        "propertyNames",
        "dependentRequired",
        "dependentSchemas",
        "dependencies",
        "unevaluatedProperties",
        "unevaluatedItems",
        "additionalItems",
        "$dynamicRef",
        "$recursiveRef",
    }
)
_FORMATS = frozenset({"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid", "uri"})
_LOOKAROUND = re.compile(r"\(\?<?[=!]|\\[1-9]|\\k<|\(\?P[=>]|\\[AZzbBG]")
_NUMERIC = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")


# ---------------------------------------------------------------- what the grammar enforces


def _scalar() -> list[dict[str, Any]]:
    return [
        {"type": "null"},
        {"type": "boolean"},
        {"type": "number", "minimum": -NUMBER_BOUND, "maximum": NUMBER_BOUND, "multipleOf": NUMBER_STEP},
        {"type": "string", "maxLength": ANY_STRING_MAX},
    ]


_ANY = "qwen_runtime_any"
_ANY_REF = "#/$defs/" + _ANY


def bounded_any() -> dict[str, Any]:
    """Any JSON value, but one that ends: short strings, bounded numbers, two levels, few items.

    A reference into `ANY_DEFS`, which `with_any_defs` puts at the root of each grammar's schema:
    llguidance then compiles it once per grammar (inlined, two parameters of it took ~60x longer)."""
    return {"$ref": _ANY_REF}


def _any_defs() -> dict[str, Any]:
    scalar, inner = {"$ref": f"{_ANY_REF}_scalar"}, {"$ref": f"{_ANY_REF}_inner"}
    return {
        f"{_ANY}_scalar": {"anyOf": _scalar()},
        f"{_ANY}_inner": {
            "anyOf": [scalar, {"type": "array", "items": scalar, "maxItems": ANY_ITEMS_MAX}, _map(scalar)]
        },
        _ANY: {"anyOf": [scalar, {"type": "array", "items": inner, "maxItems": ANY_ITEMS_MAX}, _map(inner)]},
    }


def with_any_defs(schema: Any) -> Any:
    """`schema` (the root of one `%json`) with the definitions `bounded_any` refers to, when it does."""
    if isinstance(schema, dict) and _ANY_REF in json.dumps(schema):
        return {**schema, "$defs": ANY_DEFS}
    return schema


def _map(values: Any, limit: int = ANY_ITEMS_MAX) -> dict[str, Any]:
    """A free-form map whose keys end (short names) and whose values follow `values`."""
    return {
        "type": "object",
        "patternProperties": {ANY_KEY: values},
        "additionalProperties": False,
        "maxProperties": limit,
    }


ANY_DEFS = _any_defs()
"""The definitions of `bounded_any`, placed at the root of every `%json` that uses it."""


def pattern_supported(pattern: str) -> bool:
    """Whether llguidance's regex engine takes `pattern` (no look-around, back-references or anchors
    inside)."""
    return not _LOOKAROUND.search(pattern)


def _step_ok(step: Any) -> bool:
    """A `multipleOf` llguidance can turn into a regex (few significant digits)."""
    try:
        exponent = Decimal(repr(step)).normalize().as_tuple().exponent
    except (InvalidOperation, TypeError):
        return False
    return (
        isinstance(exponent, int) and exponent >= -10 and len(Decimal(repr(step)).normalize().as_tuple().digits) <= 10
    )


def _implied_types(node: dict[str, Any]) -> set[str] | None:
    kinds = types_of(node)
    if kinds is not None:
        return kinds
    if any(k in node for k in ("enum", "const", "anyOf", "oneOf", "allOf")):
        return None
    implied = set()
    if any(k in node for k in ("properties", "additionalProperties", "required", "patternProperties")):
        implied.add("object")
    if any(k in node for k in ("items", "prefixItems", "minItems", "maxItems")):
        implied.add("array")
    if any(k in node for k in ("minLength", "maxLength", "pattern", "format")):
        implied.add("string")
    if any(k in node for k in (*_NUMERIC, "multipleOf")):
        implied.add("number")
    return implied or None


class _Enforcer:
    def __init__(self) -> None:
        self.dropped: dict[str, None] = {}

    def drop(self, keyword: str) -> None:
        self.dropped.setdefault(keyword)

    def schema(self, node: Any) -> Any:
        if node is True:
            return bounded_any()
        if not isinstance(node, dict):
            return node
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key in ANNOTATIONS or key.startswith("x-"):
                continue
            if key in _UNSUPPORTED:
                self.drop(key)
            elif key == "format" and value not in _FORMATS:
                self.drop("format")
            elif key == "pattern" and not (isinstance(value, str) and pattern_supported(value)):
                self.drop("pattern")
            elif key == "multipleOf" and not _step_ok(value):
                self.drop("multipleOf")
            elif key in ("anyOf", "oneOf"):
                if key == "oneOf":
                    self.drop("oneOf (enforced as anyOf)")
                out.setdefault("anyOf", [])
                out["anyOf"] += [self.schema(sub) for sub in value]
            elif key == "allOf":
                self.drop("allOf (merged where possible)")
                out[key] = [self.schema(sub) for sub in value]
            elif key in ("properties", "patternProperties"):
                out[key] = {name: self.schema(sub) for name, sub in value.items()}
            elif key == "prefixItems":
                out[key] = [self.schema(sub) for sub in value]
            elif key in ("items", "additionalProperties"):
                out[key] = value if value is False else self.schema(value)
            else:
                out[key] = value
        kinds = _implied_types(out)
        if kinds is None and not any(k in out for k in ("enum", "const", "anyOf", "allOf")):
            return {**bounded_any(), **{k: v for k, v in out.items() if k == "allOf"}}
        if kinds is not None and "type" not in out:
            out["type"] = sorted(kinds) if len(kinds) > 1 else next(iter(kinds))
        kinds = kinds or set()
        if "object" in kinds:
            self._object(out)
        if "array" in kinds and "items" not in out and "prefixItems" not in out:
            out["items"] = bounded_any()
        if kinds & {"integer", "number"}:
            self._bounds(out, kinds)
        return out

    def _object(self, out: dict[str, Any]) -> None:
        """No undeclared keys where the schema declares properties (even none: a tool without
        arguments); a schema without `properties` takes free keys with bounded values."""
        declared = "properties" in out or "patternProperties" in out
        props = out.setdefault("properties", {})
        for name in out.get("required") or ():
            if name not in props and not isinstance(out.get("additionalProperties"), dict):
                props[name] = bounded_any()
        extra = out.get("additionalProperties", True)
        if extra is False:
            return
        if declared:
            if not isinstance(extra, dict):
                out["additionalProperties"] = False
            return
        values = extra if isinstance(extra, dict) else bounded_any()
        if not props:
            out.pop("properties")
        out.update(patternProperties={ANY_KEY: values}, additionalProperties=False)

    def _bounds(self, out: dict[str, Any], kinds: set[str]) -> None:
        bound = INT_BOUND if "number" not in kinds else NUMBER_BOUND
        low = any(isinstance(out.get(k), int | float) for k in ("minimum", "exclusiveMinimum"))
        high = any(isinstance(out.get(k), int | float) for k in ("maximum", "exclusiveMaximum"))
        if not low:
            out["minimum"] = -bound
        if not high:
            out["maximum"] = bound
        if "number" in kinds and "multipleOf" not in out:
            out["multipleOf"] = NUMBER_STEP


def free_values(grammar: dict[str, Any]) -> Any:
    """The schema of the values of undeclared keys a grammar schema offers (None: none offered)."""
    extra = grammar.get("additionalProperties", True)
    if isinstance(extra, dict):
        return extra
    patterns = grammar.get("patternProperties")
    return patterns.get(ANY_KEY) if isinstance(patterns, dict) else None


# ---------------------------------------------------------------- one tool


@dataclass(frozen=True)
class ToolSchema:
    """A tool's schema in the three forms its calls meet: resolved, enforced, validated."""

    name: str
    original: dict[str, Any]
    resolved: dict[str, Any]
    grammar: dict[str, Any]
    dropped: tuple[str, ...] = ()
    _validator: list[Any] = field(default_factory=list, repr=False, compare=False)

    def parameter(self, name: str) -> Any:
        """The resolved schema of one top-level parameter (None when the tool does not declare it)."""
        props = self.resolved.get("properties")
        return props.get(name) if isinstance(props, dict) else None

    def validator(self) -> Validator | None:
        """jsonschema's validator for the original schema (None when the schema itself is broken)."""
        if not self._validator:
            try:
                import jsonschema.validators

                cls = jsonschema.validators.validator_for(self.original)
                cls.check_schema(self.original)
                self._validator.append(cls(self.original))
            except Exception:  # a broken schema is the tool author's bug, not the model's
                self._validator.append(None)
        return self._validator[0]  # type: ignore[no-any-return]


_cache: dict[tuple[str, str], ToolSchema] = {}
_lock = threading.Lock()


def tool_schema(tool: ToolSpec) -> ToolSchema:
    """The normalised schema of `tool` (cached by name and schema text; the first build logs, at INFO,
    which keywords the grammar leaves to validation). SchemaError when it cannot be normalised."""
    params = tool.parameters if isinstance(tool.parameters, dict) else {}
    key = (tool.name, json.dumps(params, sort_keys=True, default=str))
    with _lock:
        hit = _cache.get(key)
    if hit is not None:
        return hit
    built = _build(tool.name, params)
    with _lock:
        if len(_cache) > 512:
            _cache.clear()
        _cache[key] = built
    if built.dropped:
        log.info(
            "tool %r: %s not enforced while generating; checked when the call is parsed",
            tool.name,
            ", ".join(built.dropped),
        )
    return built


def _build(name: str, params: dict[str, Any]) -> ToolSchema:
    try:
        resolved, remote = resolve_refs(params)
    except SchemaError as exc:
        raise SchemaError(f"tool {name!r}: {exc}") from None
    if resolved is False:
        raise SchemaError(f"tool {name!r}: the schema allows no arguments at all ($ref recursion without end?)")
    if not isinstance(resolved, dict):
        resolved = {}
    if types_of(resolved) is None and "properties" not in resolved:
        resolved = {**resolved, "type": "object"}
    enforcer = _Enforcer()
    if remote:
        enforcer.drop("$ref (remote: " + ", ".join(sorted(remote)) + ")")
    grammar = enforcer.schema(resolved)
    if isinstance(grammar, dict) and "anyOf" in grammar and types_of(grammar) is None:
        grammar = {**grammar, "type": "object"}
    return ToolSchema(name, params, resolved, grammar, tuple(enforcer.dropped))


__all__ = [
    "ANY_DEFS",
    "INT_BOUND",
    "MAX_REF_DEPTH",
    "SchemaError",
    "ToolSchema",
    "allows_null",
    "bounded_any",
    "coerce",
    "enumerated",
    "free_values",
    "is_raw_string",
    "pattern_supported",
    "raw_string",
    "resolve_refs",
    "schema_types",
    "tool_schema",
    "with_any_defs",
]
