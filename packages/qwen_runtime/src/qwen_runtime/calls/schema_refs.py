"""Local `$ref`s inlined and `allOf` merged: the resolved form of a tool's schema (`toolschema`).

MCP servers publish schemas as pydantic writes them, with `$defs` and `$ref`s that stop resolving
once a call grammar nests the schema inside a bigger one; a recursive reference is unrolled at most
`MAX_REF_DEPTH` times and the branch past it cut as if the schema allowed nothing there.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

from ..errors import QwenRuntimeError

MAX_REF_DEPTH = 3
"""How many times one recursive `$ref` is unrolled inside itself before the branch is cut."""
MAX_NODES = 20_000
"""A resolved schema larger than this (exponential `$ref` fan-out) unrolls recursion less deeply."""
ANNOTATIONS = frozenset(
    {
        "title",
        "description",
        "default",
        "examples",
        "example",
        "$schema",
        "$id",
        "$comment",
        "$anchor",
        "readOnly",
        "writeOnly",
        "deprecated",
        "discriminator",
        "nullable",
        "contentEncoding",
        "contentMediaType",
        "contentSchema",
        "$dynamicAnchor",
        "$vocabulary",
    }
)
"""Keywords that only describe: no constraint on a value."""
_SCHEMA_MAPS = ("properties", "patternProperties", "dependentSchemas", "$defs", "definitions")
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SCHEMA_ONE = (
    "items",
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "additionalItems",
    "unevaluatedProperties",
    "unevaluatedItems",
)


class SchemaError(QwenRuntimeError, ValueError):
    """A tool schema that cannot be turned into a grammar (named tool, named keyword)."""


class _Resolver:
    def __init__(self, root: Any, depth: int) -> None:
        self.root = root
        self.depth = depth
        self.nodes = 0
        self.remote: set[str] = set()

    def pointer(self, ref: str) -> Any:
        if not ref.startswith("#"):
            self.remote.add(ref)
            return True  # a remote document we do not fetch: anything, checked on parse
        node = self.root
        for part in ref[1:].split("/")[1:] if ref != "#" else []:
            part = part.replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict) and part in node:
                node = node[part]
            elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            else:
                raise SchemaError(f"$ref {ref!r} points at nothing in the schema")
        return node

    def resolve(self, node: Any, stack: tuple[str, ...] = ()) -> Any:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise _TooBig
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str):
            if stack.count(ref) >= self.depth:
                return False  # recursion cut: nothing more of this shape
            target = self.resolve(self.pointer(ref), (*stack, ref))
            rest = {k: v for k, v in node.items() if k != "$ref" and k not in ANNOTATIONS}
            if not rest:
                return target
            return _merge_all([target, self.resolve(rest, stack)])
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key in ("$defs", "definitions"):
                continue
            if key in _SCHEMA_MAPS and isinstance(value, dict):
                out[key] = {name: self.resolve(sub, stack) for name, sub in value.items()}
            elif key in _SCHEMA_LISTS and isinstance(value, list):
                out[key] = [self.resolve(sub, stack) for sub in value]
            elif key in _SCHEMA_ONE or (key == "items" and isinstance(value, list)):
                out[key] = (
                    [self.resolve(sub, stack) for sub in value]
                    if isinstance(value, list)
                    else (self.resolve(value, stack))
                )
            else:
                out[key] = value
        if isinstance(out.get("allOf"), list):
            parts = out.pop("allOf")
            out = _merge_all([out, *parts]) if out else _merge_all(parts)
            if not isinstance(out, dict):
                return out
        return _prune(out)


class _TooBig(Exception):
    pass


def _prune(node: dict[str, Any]) -> Any:
    """Take out the branches a recursion cut left impossible (`False`); False when the node needs one."""
    required = set(node.get("required") or ())
    props = node.get("properties")
    if isinstance(props, dict):
        for name, sub in list(props.items()):
            if sub is False:
                if name in required:
                    return False
                props = {k: v for k, v in props.items() if k != name}
        node["properties"] = props
    items = node.get("items")
    if items is False:
        if (node.get("minItems") or 0) > 0:
            return False
        node["maxItems"] = 0
        node.pop("items")
    for key in ("anyOf", "oneOf"):
        branches = node.get(key)
        if isinstance(branches, list):
            kept = [b for b in branches if b is not False]
            if not kept and branches:
                return False
            node[key] = kept
    prefix = node.get("prefixItems")
    if isinstance(prefix, list) and False in prefix:
        cut = prefix.index(False)
        if (node.get("minItems") or 0) > cut:
            return False
        node["prefixItems"] = prefix[:cut]
        node["maxItems"] = min(cut, node.get("maxItems", cut))
    return node


def types_of(node: dict[str, Any]) -> set[str] | None:
    kind = node.get("type")
    if isinstance(kind, str):
        return {kind}
    if isinstance(kind, list):
        return {k for k in kind if isinstance(k, str)}
    return None


def _merge_all(parts: Iterable[Any]) -> Any:
    """`allOf` as one schema: properties and required united, bounds tightened, types intersected.

    Keywords that conflict in a way this cannot express stay in an `allOf` of the rest."""
    merged: dict[str, Any] = {}
    leftover: list[Any] = []
    for part in parts:
        if part is True or part == {}:
            continue
        if part is False:
            return False
        if not isinstance(part, dict):
            continue
        for key, value in part.items():
            if key not in merged:
                merged[key] = copy.deepcopy(value)
            elif key == "properties" and isinstance(value, dict):
                props = merged[key]
                for name, sub in value.items():
                    props[name] = _merge_all([props[name], sub]) if name in props else sub
            elif key == "required" and isinstance(value, list):
                merged[key] = list(dict.fromkeys([*merged[key], *value]))
            elif key == "type":
                old, new = types_of(merged) or set(), types_of(part) or set()
                both = old & new
                if ("number" in old and "integer" in new) or ("integer" in old and "number" in new):
                    both.add("integer")  # an integer is a number
                if not both:
                    return False
                merged[key] = sorted(both) if len(both) > 1 else next(iter(both))
            elif key in ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties"):
                merged[key] = max(merged[key], value)
            elif key in ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties"):
                merged[key] = min(merged[key], value)
            elif key == "enum" and isinstance(value, list):
                merged[key] = [v for v in merged[key] if v in value]
            elif merged[key] != value:
                leftover.append({key: value})
    if leftover:
        merged["allOf"] = leftover
    return merged


def resolve_refs(schema: Any, depth: int = MAX_REF_DEPTH) -> tuple[Any, set[str]]:
    """`schema` with local `$ref`s inlined (recursion unrolled `depth` times), and the remote refs left."""
    while True:
        resolver = _Resolver(schema, depth)
        try:
            return resolver.resolve(schema), resolver.remote
        except _TooBig:
            if depth <= 1:
                raise SchemaError(f"the schema inlines to more than {MAX_NODES} nodes") from None
            depth -= 1


__all__ = ["ANNOTATIONS", "MAX_NODES", "MAX_REF_DEPTH", "SchemaError", "resolve_refs", "types_of"]
