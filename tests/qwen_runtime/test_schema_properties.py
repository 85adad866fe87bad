"""Random tool schemas built from what MCP servers publish (`$defs`/`$ref`, type lists with null,
anyOf/oneOf/allOf, mixed enums, const, exclusive bounds, item and length bounds, patterns, free-form
maps, nested arrays of objects), offered to the tiny Qwen 3 model (JSON calls) and the tiny
Qwen3-Coder-template model (XML calls) under `tool_choice` "required": every reply holds one call,
and it validates with jsonschema against the schema as the tool published it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from qwen_runtime.backends.llamacpp.runtime import LlamaCppRuntime
from qwen_runtime.types import ChatRequest, Sampling, ToolSpec, UserMessage

PATTERNS = ["^[a-z]{1,6}$", "^[A-Z]{2}[0-9]{1,3}$", "[0-9]", "^(red|green|blue)$"]


def _string(draw: st.DrawFn) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string", "maxLength": draw(st.integers(1, 12))}
    if draw(st.booleans()):
        schema["minLength"] = draw(st.integers(0, schema["maxLength"]))
    if draw(st.integers(0, 3)) == 0:
        schema = {"type": "string", "pattern": draw(st.sampled_from(PATTERNS)), "maxLength": 12}
    return schema


def _number(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["integer", "number"]))
    low = draw(st.integers(-1000, 1000))
    schema: dict[str, Any] = {"type": kind}
    if draw(st.booleans()):
        schema["exclusiveMinimum" if draw(st.booleans()) else "minimum"] = low
    if draw(st.booleans()):
        schema["exclusiveMaximum" if draw(st.booleans()) else "maximum"] = low + draw(st.integers(2, 5000))
    return schema


@st.composite
def leaf(draw: st.DrawFn) -> Any:
    kind = draw(st.sampled_from(["string", "number", "boolean", "enum", "const", "nullable"]))
    if kind == "string":
        return _string(draw)
    if kind == "number":
        return _number(draw)
    if kind == "boolean":
        return {"type": "boolean"}
    if kind == "enum":
        return {
            "enum": draw(
                st.lists(st.sampled_from(["a", "b c", 3, 2.5, True, None, "x"]), min_size=1, max_size=4, unique_by=repr)
            )
        }
    if kind == "const":
        return {"const": draw(st.sampled_from(["fixed", 7, False, None]))}
    inner = draw(st.sampled_from([_string(draw), _number(draw)]))
    return {**inner, "type": [inner["type"], "null"]} if draw(st.booleans()) else {"anyOf": [inner, {"type": "null"}]}


def _object(draw: st.DrawFn, children: st.SearchStrategy[Any]) -> dict[str, Any]:
    names = draw(st.lists(st.sampled_from(["a", "b_c", "d", "e.f", "g"]), min_size=1, max_size=3, unique=True))
    props = {name: draw(children) for name in names}
    required = [name for name in names if draw(st.booleans())]
    return {"type": "object", "properties": props, "required": required}


@st.composite
def node(draw: st.DrawFn, depth: int) -> Any:
    if depth <= 0:
        return draw(leaf())
    child = node(depth - 1)
    kind = draw(st.sampled_from(["leaf", "object", "array", "anyOf", "oneOf", "allOf", "map"]))
    if kind == "object":
        return _object(draw, child)
    if kind == "array":
        schema: dict[str, Any] = {"type": "array", "items": draw(child), "maxItems": draw(st.integers(0, 3))}
        if draw(st.booleans()):
            schema["minItems"] = draw(st.integers(0, schema["maxItems"]))
        return schema
    if kind == "anyOf":
        return {"anyOf": draw(st.lists(child, min_size=1, max_size=3))}
    if kind == "oneOf":  # as MCP servers use it: branches of different types
        return {
            "oneOf": [_string(draw), {"type": "integer", "maximum": 0}, _object(draw, st.just({"type": "boolean"}))]
        }
    if kind == "allOf":
        first, second = _object(draw, child), _object(draw, child)
        return {
            "allOf": [
                first,
                {
                    **second,
                    "properties": {f"x{k}": v for k, v in second["properties"].items()},
                    "required": [f"x{k}" for k in second["required"]],
                },
            ]
        }
    if kind == "map":
        return {"type": "object", "additionalProperties": draw(leaf()), "maxProperties": 2}
    return draw(leaf())


@st.composite
def tool_schemas(draw: st.DrawFn) -> dict[str, Any]:
    """An object schema whose properties are often `$ref`s into `$defs` (as pydantic writes them)."""
    defs = {f"M{i}": draw(node(1)) for i in range(draw(st.integers(0, 2)))}
    schema = _object(draw, node(2))
    for name in list(schema["properties"]):
        if defs and draw(st.booleans()):
            ref = {"$ref": f"#/$defs/{draw(st.sampled_from(sorted(defs)))}"}
            schema["properties"][name] = {"type": "array", "items": ref, "maxItems": 2} if draw(st.booleans()) else ref
    if defs:
        schema["$defs"] = defs
    return schema


@pytest.fixture(scope="module")
def json_model(tiny_gguf: Path) -> Iterator[LlamaCppRuntime]:
    runtime = LlamaCppRuntime(str(tiny_gguf), n_ctx=4096)
    yield runtime
    runtime.close()


@pytest.fixture(scope="module")
def xml_model(xml_template_gguf: Callable[[str], Path]) -> Iterator[LlamaCppRuntime]:
    runtime = LlamaCppRuntime(str(xml_template_gguf("qwen3-coder")), n_ctx=4096)
    yield runtime
    runtime.close()


def _check(runtime: LlamaCppRuntime, schema: dict[str, Any], seed: int) -> None:
    Draft202012Validator.check_schema(schema)
    tool = ToolSpec("mcp.random_tool", "A tool", schema)
    request = ChatRequest(
        (UserMessage("call the tool"),),
        tools=(tool,),
        tool_choice="required",
        sampling=Sampling(max_tokens=600, seed=seed),
        enable_thinking=False,
    )
    runtime.clear_cache()
    done = runtime.complete(request)
    errors = list(done.tool_call_errors)
    cut_off = done.finish_reason == "length" and errors
    if cut_off and not errors[-1].raw.rstrip().endswith(("</function>", "</tool_call>")):
        errors.pop()  # a further call max_tokens cut off mid-way is reported as an error, as it should be
    assert done.tool_calls and not errors, (schema, done.to_dict())
    for call in done.tool_calls:
        errors = [e.message for e in Draft202012Validator(schema).iter_errors(call.arguments)]
        assert not errors, (schema, call.arguments, errors)


@pytest.mark.slow
@settings(max_examples=12, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(schema=tool_schemas(), seed=st.integers(0, 2**31 - 1))
def test_random_schemas_give_valid_json_calls(json_model: LlamaCppRuntime, schema: dict[str, Any], seed: int) -> None:
    _check(json_model, schema, seed)


@pytest.mark.slow
@settings(max_examples=12, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(schema=tool_schemas(), seed=st.integers(0, 2**31 - 1))
def test_random_schemas_give_valid_xml_calls(xml_model: LlamaCppRuntime, schema: dict[str, Any], seed: int) -> None:
    _check(xml_model, schema, seed)
