"""The Lark grammar of one XML tool call (Qwen3-Coder, Qwen 3.5), for llguidance.

`<function=NAME>\\n` then one `<parameter=ARG>\\nVALUE\\n</parameter>\\n` per argument, then `</function>`.
Only the offered tools' names and their own parameter names can be written, every required parameter
is written (in the schema's property order, optional ones may be left out), and each value is typed:
integers, numbers, booleans and enums as their literals, objects and arrays (and anything without a
simple type) as JSON under the parameter's schema, strings as raw text that cannot contain
`\\n</parameter>` and keeps to `minLength`/`maxLength`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from .types import ToolSpec

PARAM_CLOSE = "\n</parameter>"
#: at most 16 digits (as many as a double holds exactly): a weak model cannot write digits forever
_INTEGER = r"/-?(0|[1-9][0-9]{0,15})/"
_NUMBER = r"/-?(0|[1-9][0-9]{0,15})(\.[0-9]{1,16})?([eE][+-]?[0-9]{1,3})?/"
#: a parameter name of a tool whose schema names none (any arguments allowed)
_ANY_NAME = r"/[A-Za-z_][A-Za-z0-9_.\-]{0,63}/"
#: text without `\n</parameter>` (a bare `~/.../` never ends the lexeme in llguidance 1.9: intersect)
_NO_CLOSE = r"~/(?s:.*\n<\/parameter>.*)/"
MAX_BOUND = 512
"""The longest `maxLength`/`minLength` the grammar enforces: llguidance's lexer gives up
(ParserTooComplex) on a bounded repetition of ~800 intersected with the closing-tag exclusion; longer
bounds are left to validation when the call is parsed."""


def _literal(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _types(schema: dict[str, Any]) -> set[str]:
    kind = schema.get("type")
    if isinstance(kind, str):
        return {kind}
    if isinstance(kind, list):
        return {k for k in kind if isinstance(k, str)}
    return set()


def _raw(value: Any) -> str:
    """A value as the template writes it: strings raw, everything else JSON."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _string_lexeme(schema: dict[str, Any]) -> str:
    """A lexeme for raw text and the `\\n</parameter>` that ends it."""
    low = schema.get("minLength")
    high = schema.get("maxLength")
    low = low if isinstance(low, int) and not isinstance(low, bool) and 0 < low <= MAX_BOUND else 0
    if isinstance(high, int) and not isinstance(high, bool) and low <= high <= MAX_BOUND:
        length = f"{{{low},{high}}}"
    else:
        length = f"{{{low},}}" if low else "*"
    return f"(/(?s:.{length})/ & {_NO_CLOSE}) {_literal(PARAM_CLOSE)}"


class _Rules:
    def __init__(self, lenient: bool, json_options: dict[str, Any]) -> None:
        self.lines: list[str] = []
        self.lenient = lenient
        self.json_options = json_options

    def add(self, name: str, body: str) -> str:
        self.lines.append(f"{name}: {body}")
        return name

    def value(self, prefix: str, schema: Any) -> str:
        """A rule for one parameter's value and the `\\n</parameter>\\n` after it."""
        close = _literal(PARAM_CLOSE + "\n")
        if not isinstance(schema, dict):
            schema = {}
        options = schema.get("enum") if "enum" in schema else [schema["const"]] if "const" in schema else None
        if isinstance(options, list) and options:
            choices = " | ".join(_literal(_raw(option)) for option in options)
            return self.add(prefix, f"({choices}) {close}")
        kinds = _types(schema)
        if "string" in kinds:
            lexeme = self.add(prefix.upper(), _string_lexeme(schema))
            return self.add(prefix, f'{lexeme} "\\n"')
        if kinds == {"integer"}:
            return self.add(prefix, f"{_INTEGER} {close}")
        if kinds <= {"integer", "number"} and kinds:
            return self.add(prefix, f"{_NUMBER} {close}")
        if kinds == {"boolean"}:
            return self.add(prefix, f'("true" | "false") {close}')
        wrapped = {**schema, "x-guidance": {**self.json_options, "lenient": self.lenient}}
        inner = self.add(prefix + "_json", f"%json {json.dumps(wrapped, ensure_ascii=False)}")
        return self.add(prefix, f"{inner} {close}")

    def function(self, index: int, tool: ToolSpec) -> str:
        params = tool.parameters if isinstance(tool.parameters, dict) else {}
        properties = params.get("properties")
        required = set(params.get("required") or ())
        parts = [_literal(f"<function={tool.name}>\n")]
        if isinstance(properties, dict):
            for j, (name, schema) in enumerate(properties.items()):
                prefix = f"f{index}_p{j}"
                value = self.value(prefix + "_v", schema)
                param = self.add(prefix, f"{_literal(f'<parameter={name}>' + chr(10))} {value}")
                parts.append(param if name in required else f"{param}?")
        elif params.get("additionalProperties", True) is not False:
            value = self.value(f"f{index}_any_v", {"type": "string"})
            param = self.add(f"f{index}_any", f'"<parameter=" {_ANY_NAME} ">\\n" {value}')
            parts.append(f"{param}*")
        parts.append(_literal("</function>"))
        return self.add(f"f{index}", " ".join(parts))


def xml_call_rules(tools: Sequence[ToolSpec], *, lenient: bool, json_options: dict[str, Any]) -> str:
    """Lark rules whose `call` is one XML call to one of `tools` (without `<tool_call>` around it)."""
    rules = _Rules(lenient, json_options)
    functions = [rules.function(i, tool) for i, tool in enumerate(tools)]
    return "\n".join([f"call: {' | '.join(functions)}", *rules.lines]) + "\n"


__all__ = ["PARAM_CLOSE", "xml_call_rules"]
