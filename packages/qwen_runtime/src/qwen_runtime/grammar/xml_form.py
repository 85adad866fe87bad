"""The Lark grammar of one XML tool call (Qwen3-Coder, Qwen 3.5), for llguidance.

`<function=NAME>\\n` then one `<parameter=ARG>\\nVALUE\\n</parameter>\\n` per argument, then `</function>`.
Only the offered tools' names and their own parameter names can be written, every required parameter
is written (in the schema's property order, optional ones may be left out), and each value is typed:
integers, numbers, booleans as their literals; a schema that lists its values (`enum`, `const`, an
`anyOf`/`oneOf` of enums or null, as MCP servers and pydantic write a choice) as one of them, strings
raw and the rest as JSON; objects and arrays (and anything without a simple type) as JSON under the
parameter's schema; strings as raw text that cannot contain `</parameter>` and keeps to
`minLength`/`maxLength` (and `pattern`, where llguidance's regexes can say it), each `anyOf` branch of
a string schema an alternative under the bounds around it. A value never holds a special token
(llguidance's regexes match text, never a control token's id). Every schema is read through
`toolschema` (references inlined, numbers bounded), the same view the parser converts values with.
Qwen 3.6 sometimes ends a value as `value</parameter>` without the newline: the grammar forbids that
form (a raw value never holds `</parameter>`); the parser still reads it when a server or
unconstrained text hands it over.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from ..calls.toolschema import (
    bounded_any,
    enumerated,
    free_values,
    pattern_supported,
    raw_string,
    schema_types,
    tool_schema,
    with_any_defs,
)
from ..types import ToolSpec

PARAM_CLOSE = "\n</parameter>"
#: a parameter name of a tool whose schema names none (any arguments allowed)
_ANY_NAME = r"/[A-Za-z_][A-Za-z0-9_.\-]{0,63}/"
#: text without `</parameter>` (a bare `~/.../` never ends the lexeme in llguidance 1.9: intersect)
_NO_CLOSE = r"~/(?s:.*<\/parameter>.*)/"
MAX_FREE_PARAMETERS = 32
"""Undeclared parameters a call may write (unless `maxProperties` says): the call ends."""
MAX_BOUND = 512
"""The longest `maxLength`/`minLength` the grammar enforces: llguidance's lexer gives up
(ParserTooComplex) on a bounded repetition of ~800 intersected with the closing-tag exclusion; longer
bounds are left to validation when the call is parsed."""


def _literal(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _raw(value: Any) -> str:
    """A value as the template writes it: strings raw, everything else JSON."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _search(pattern: str) -> str:
    """A JSON Schema `pattern` (found anywhere in the value) as a regex the whole value must match."""
    if pattern.startswith("^"):
        body, head = pattern[1:], ""
    else:
        body, head = pattern, "(?s:.*)"
    if body.endswith("$") and not body.endswith("\\$"):
        body, tail = body[:-1], ""
    else:
        tail = "(?s:.*)"
    return head + "(?:" + re.sub(r"(?<!\\)/", r"\/", body) + ")" + tail


def _bound(schema: dict[str, Any], key: str) -> int | None:
    value = schema.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_BOUND else None


def _text_shape(parts: Sequence[dict[str, Any]]) -> str:
    """A Lark lexeme for raw text that keeps to every one of `parts` (string schemas whose
    `minLength`, `maxLength` and `pattern` all apply) and never holds `</parameter>`."""
    lows = [b for b in (_bound(part, "minLength") for part in parts) if b]
    highs = [b for b in (_bound(part, "maxLength") for part in parts) if b is not None]
    low, high = max(lows, default=0), min(highs, default=None)
    unbounded = f"{{{low},}}" if low else "*"
    length = f"{{{low},{high}}}" if high is not None and low <= high else unbounded
    shapes = [f"/(?s:.{length})/"]
    for part in parts:
        pattern = part.get("pattern")
        if isinstance(pattern, str) and pattern_supported(pattern):
            shapes.append(f"/{_search(pattern)}/")
    return "(" + " & ".join([*shapes, _NO_CLOSE]) + ")"


def _writable(text: str) -> bool:
    """Whether a literal can be a raw value (the value's own closing tag cannot be in it)."""
    return "</parameter>" not in text


def _raw_choices(schema: dict[str, Any], outer: tuple[dict[str, Any], ...] = ()) -> list[str]:
    """Lark alternatives for the raw text of a string schema: the strings it lists (`enum`, `const`,
    an `anyOf` of enums) as literals, else text within its (and `outer`'s) length and `pattern`;
    an `anyOf`/`oneOf` gives each branch that allows a string, under the bounds around it."""
    options = enumerated(schema)
    if options is not None:
        return [_literal(o) for o in dict.fromkeys(o for o in options if isinstance(o, str)) if _writable(o)]
    branches = schema.get("anyOf", schema.get("oneOf"))
    if isinstance(branches, list) and len(outer) < 4:
        own = {k: v for k, v in schema.items() if k not in ("anyOf", "oneOf")}
        choices: list[str] = []
        for branch in branches:
            if isinstance(branch, dict) and (not schema_types(branch) or "string" in schema_types(branch)):
                choices += _raw_choices(branch, (*outer, own))
        return choices
    return [_text_shape((*outer, schema))]


def _string_lexeme(schema: dict[str, Any]) -> str:
    """A lexeme for raw text and the `\\n</parameter>` that ends it."""
    choices = list(dict.fromkeys(_raw_choices(schema))) or [_text_shape((schema,))]
    return f"({' | '.join(choices)}) {_literal(PARAM_CLOSE)}"


class _Rules:
    def __init__(self, json_options: dict[str, Any]) -> None:
        self.lines: list[str] = []
        self.json_options = json_options

    def add(self, name: str, body: str) -> str:
        self.lines.append(f"{name}: {body}")
        return name

    def json(self, prefix: str, schema: Any) -> str:
        wrapped = {**with_any_defs(schema), "x-guidance": self.json_options} if isinstance(schema, dict) else schema
        return self.add(prefix + "_json", f"%json {json.dumps(wrapped, ensure_ascii=False)}")

    def value(self, prefix: str, schema: Any) -> str:
        """A rule for one parameter's value (its schema as `toolschema` enforces it) and the
        `\\n</parameter>\\n` after it."""
        close = _literal(PARAM_CLOSE + "\n")
        if not isinstance(schema, dict):
            schema = {}
        options = enumerated(schema)  # enum, const, an `anyOf` of enums (or null): the listed values
        written = list(dict.fromkeys(_raw(option) for option in options or ()))
        if any(_writable(text) for text in written):
            choices = " | ".join(_literal(text) for text in written if _writable(text))
            return self.add(prefix, f"({choices}) {close}")
        kinds = schema_types(schema)
        text = raw_string(schema)
        if text is not None:
            lexeme = self.add(prefix.upper(), _string_lexeme(text))
            return self.add(prefix, f'{lexeme} "\\n"')
        if kinds == {"boolean"}:
            return self.add(prefix, f'("true" | "false") {close}')
        # numbers (bounded by toolschema), objects, arrays, unions: JSON, as the template writes them
        return self.add(prefix, f"{self.json(prefix, schema)} {close}")

    def function(self, index: int, tool: ToolSpec) -> str:
        view = tool_schema(tool)
        grammar = view.grammar
        properties = grammar.get("properties")
        required = set(grammar.get("required") or ())
        parts = [_literal(f"<function={tool.name}>\n")]
        if isinstance(properties, dict):
            for j, (name, schema) in enumerate(properties.items()):
                prefix = f"f{index}_p{j}"
                value = self.value(prefix + "_v", schema)
                param = self.add(prefix, f"{_literal(f'<parameter={name}>' + chr(10))} {value}")
                parts.append(param if name in required else f"{param}?")
        extra = free_values(grammar)
        if extra is not None:
            # free keys: values under the map's own schema, else (untyped) raw text of bounded length
            untyped = extra == bounded_any()
            value = self.value(f"f{index}_any_v", {"type": "string", "maxLength": MAX_BOUND} if untyped else extra)
            param = self.add(f"f{index}_any", f'"<parameter=" {_ANY_NAME} ">\\n" {value}')
            limit = grammar.get("maxProperties")
            limit = limit - len(properties or ()) if isinstance(limit, int) else MAX_FREE_PARAMETERS
            parts.append(f"{param}{{0,{max(limit, 0)}}}")
        parts.append(_literal("</function>"))
        return self.add(f"f{index}", " ".join(parts))


def xml_call_rules(tools: Sequence[ToolSpec], *, json_options: dict[str, Any]) -> str:
    """Lark rules whose `call` is one XML call to one of `tools` (without `<tool_call>` around it)."""
    rules = _Rules(json_options)
    functions = [rules.function(i, tool) for i, tool in enumerate(tools)]
    return "\n".join([f"call: {' | '.join(functions)}", *rules.lines]) + "\n"


__all__ = ["PARAM_CLOSE", "xml_call_rules"]
