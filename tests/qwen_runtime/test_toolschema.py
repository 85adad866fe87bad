"""Tool schemas from the wild (pydantic `$defs`, unions, bounds, free-form maps) through the one
normaliser in front of both call formats, driven with the tiny model's tokenizer; and what Qwen 3.5/3.6
write outside the template, read back as meant."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from llguidance import LLTokenizer
from qwen_runtime.calls.toolformat import ToolCallFormat
from qwen_runtime.calls.toolschema import MAX_REF_DEPTH, resolve_refs, tool_schema
from qwen_runtime.grammar.constrain import ConstraintError, Phase, ToolCallConstraint
from qwen_runtime.parsing import parse_reply
from qwen_runtime.testing.testmodel import build_test_tokenizer
from qwen_runtime.types import Completion, ToolSpec

JSON, XML = ToolCallFormat.JSON, ToolCallFormat.XML
PERSON = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "maxLength": 20},
        "age": {"anyOf": [{"type": "integer", "minimum": 0}, {"type": "null"}]},
    },
    "required": ["name"],
}
EVENT = ToolSpec(
    "create_event",
    "",
    {
        "$defs": {"Person": PERSON, "Kind": {"enum": ["call", "meeting", 3, None]}},
        "type": "object",
        "properties": {
            "host": {"$ref": "#/$defs/Person"},
            "guests": {"type": "array", "items": {"$ref": "#/$defs/Person"}, "maxItems": 2},
            "kind": {"$ref": "#/$defs/Kind"},
            "size": {"type": "integer", "minimum": 16, "maximum": 4096},
        },
        "required": ["host", "kind", "size"],
    },
)
TREE = ToolSpec(
    "tree",
    "",
    {
        "definitions": {
            "Node": {
                "type": "object",
                "properties": {
                    "label": {"type": "string"},
                    "children": {"type": "array", "items": {"$ref": "#/definitions/Node"}},
                },
                "required": ["label"],
            }
        },
        "type": "object",
        "properties": {"root": {"$ref": "#/definitions/Node"}},
        "required": ["root"],
    },
)


@pytest.fixture(scope="module")
def tok() -> LLTokenizer:
    return LLTokenizer(build_test_tokenizer().to_str())


def accepts(tok: LLTokenizer, tools: tuple[ToolSpec, ...], body: str, fmt: ToolCallFormat) -> bool:
    c = ToolCallConstraint(tok, tools, "auto", call_format=fmt)
    for token in tok.tokenize_str("<tool_call>\n" + body + "\n</tool_call>", parse_special=True):
        c.consume(token)
        if c.errors:
            return False
    return c.phase is Phase.FREE and c.calls_opened == 1


def xml(name: str, **params: str) -> str:
    return (
        f"<function={name}>\n"
        + "".join(f"<parameter={k}>\n{v}\n</parameter>\n" for k, v in params.items())
        + ("</function>")
    )


# ---------------------------------------------------------------- the normaliser


def test_refs_to_defs_and_definitions_are_inlined_and_recursion_is_cut_at_the_depth() -> None:
    view = tool_schema(EVENT)
    assert view.parameter("host") == PERSON
    assert view.parameter("guests")["items"] == PERSON
    assert "$defs" not in view.resolved and "$ref" not in str(view.resolved)
    root, _ = resolve_refs(TREE.parameters)
    depth, node = 0, root["properties"]["root"]
    while "items" in node["properties"]["children"]:
        node = node["properties"]["children"]["items"]
        depth += 1
    assert depth == MAX_REF_DEPTH - 1
    assert node["properties"]["children"]["maxItems"] == 0  # past the depth the list may only be empty


def test_all_of_is_merged_and_what_cannot_be_enforced_is_logged_once_at_info(
    caplog: pytest.LogCaptureFixture,
) -> None:
    odd = ToolSpec(
        "odd_tool_for_logging",
        "",
        {
            "type": "object",
            "properties": {
                "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
                "code": {"type": "string", "pattern": "(?<=a)b"},
                "both": {"allOf": [{"type": "object", "properties": {"a": {"type": "integer"}}}, {"required": ["a"]}]},
            },
        },
    )
    with caplog.at_level(logging.INFO, logger="qwen_runtime.calls.toolschema"):
        view = tool_schema(odd)
        tool_schema(odd)
    lines = [r.getMessage() for r in caplog.records if "odd_tool_for_logging" in r.getMessage()]
    assert len(lines) == 1 and "uniqueItems" in lines[0] and "pattern" in lines[0], lines
    assert view.parameter("both") == {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}
    assert "uniqueItems" not in str(view.grammar)


# ---------------------------------------------------------------- enforced in both formats


@pytest.mark.parametrize("fmt", [JSON, XML])
def test_a_pydantic_defs_schema_is_enforced(tok: LLTokenizer, fmt: ToolCallFormat) -> None:
    def call(host: str, kind: str, size: str, guests: str = "") -> str:
        if fmt is JSON:
            extra = f', "guests": {guests}' if guests else ""
            return f'{{"name": "create_event", "arguments": {{"host": {host}{extra}, "kind": {kind}, "size": {size}}}}}'
        params = {"host": host, **({"guests": guests} if guests else {}), "kind": kind.strip('"'), "size": size}
        return xml("create_event", **params)

    good = call('{"name": "Ann", "age": null}', '"call"', "16", '[{"name": "Bo", "age": 3}]')
    assert accepts(tok, (EVENT,), good, fmt)
    assert accepts(tok, (EVENT,), call('{"name": "Ann"}', "3", "4096"), fmt)
    for wrong in [
        call('{"nom": "Ann"}', '"call"', "16"),  # a key the $defs model does not declare
        call('{"name": "Ann", "age": -1}', '"call"', "16"),  # below the nested minimum
        call('{"name": "Ann"}', '"party"', "16"),  # outside the mixed enum
        call('{"name": "Ann"}', '"call"', "-2222222222222222"),  # the issue's XML integer
        call('{"name": "Ann"}', '"call"', "4097"),
        call('{"name": "Ann"}', '"call"', "10.0000"),
        call('{"name": "Ann"}', '"call"', "16", "[" + ", ".join(['{"name": "B"}'] * 3) + "]"),  # maxItems
    ]:
        assert not accepts(tok, (EVENT,), wrong, fmt), wrong


@pytest.mark.parametrize("fmt", [JSON, XML])
def test_number_literals_and_untyped_values_end(tok: LLTokenizer, fmt: ToolCallFormat) -> None:
    loose = ToolSpec(
        "loose",
        "",
        {
            "type": "object",
            "properties": {"n": {"type": "integer"}, "x": {"type": "number"}, "any": {}},
            "required": ["n", "x", "any"],
        },
    )

    def call(n: str, x: str, anything: str) -> str:
        if fmt is JSON:
            return f'{{"name": "loose", "arguments": {{"n": {n}, "x": {x}, "any": {anything}}}}}'
        return xml("loose", n=n, x=x, any=anything)

    assert accepts(tok, (loose,), call("-7", "2.5", '{"k": [1, "a"]}'), fmt)
    assert accepts(tok, (loose,), call("999999999999999999", "0.0000000001", "null"), fmt)
    assert not accepts(tok, (loose,), call("7" * 19, "1", "1"), fmt)  # past int64-safe digits
    assert not accepts(tok, (loose,), call("7", "0." + "3" * 11, "1"), fmt)  # past 10 fraction digits
    assert not accepts(tok, (loose,), call("7", "1e400", "1"), fmt)
    assert not accepts(tok, (loose,), call("7", "1", '"' + "a" * 1025 + '"'), fmt)  # untyped: bounded JSON
    assert not accepts(tok, (loose,), call("7", "1", "[[[1]]]"), fmt)  # untyped: two levels deep at most


def test_undeclared_keys_are_not_offered_but_a_map_schema_still_takes_free_keys(tok: LLTokenizer) -> None:
    declared = ToolSpec("declared", "", {"type": "object", "properties": {"a": {"type": "integer"}}})
    amap = ToolSpec("amap", "", {"type": "object", "additionalProperties": {"type": "integer", "maximum": 9}})
    assert accepts(tok, (declared,), '{"name": "declared", "arguments": {"a": 1}}', JSON)
    assert not accepts(tok, (declared,), '{"name": "declared", "arguments": {"a": 1, "b": 2}}', JSON)
    assert accepts(tok, (amap,), '{"name": "amap", "arguments": {"x": 1, "y": 9}}', JSON)
    assert not accepts(tok, (amap,), '{"name": "amap", "arguments": {"x": 10}}', JSON)
    assert accepts(tok, (amap,), xml("amap", x="1", y="9"), XML)
    assert not accepts(tok, (amap,), xml("amap", x="10"), XML)


@pytest.mark.parametrize("fmt", [JSON, XML])
def test_type_lists_const_string_bounds_and_patterns(tok: LLTokenizer, fmt: ToolCallFormat) -> None:
    tool = ToolSpec(
        "t",
        "",
        {
            "type": "object",
            "properties": {
                "code": {"type": "string", "pattern": "^[A-Z]{2}[0-9]$", "minLength": 3},
                "mode": {"const": "fast"},
                "limit": {"type": ["integer", "null"], "exclusiveMinimum": 0, "exclusiveMaximum": 10},
            },
            "required": ["code", "mode", "limit"],
        },
    )

    def call(code: str, mode: str, limit: str) -> str:
        if fmt is JSON:
            return f'{{"name": "t", "arguments": {{"code": "{code}", "mode": "{mode}", "limit": {limit}}}}}'
        return xml("t", code=code, mode=mode, limit=limit)

    assert accepts(tok, (tool,), call("AB1", "fast", "9"), fmt)
    assert accepts(tok, (tool,), call("AB1", "fast", "null"), fmt)
    for wrong in [
        call("ab1", "fast", "9"),
        call("AB1", "slow", "9"),
        call("AB1", "fast", "10"),
        call("AB1", "fast", "0"),
    ]:
        assert not accepts(tok, (tool,), wrong, fmt), wrong


@pytest.mark.parametrize("fmt", [JSON, XML])
@pytest.mark.parametrize("name", ["ChaDri.change_drink", "mcp__srv__a-b.c", "x" * 128])
def test_tool_names_as_mcp_allows_them(tok: LLTokenizer, fmt: ToolCallFormat, name: str) -> None:
    tool = ToolSpec(name, "", {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]})
    body = f'{{"name": "{name}", "arguments": {{"n": 1}}}}' if fmt is JSON else xml(name, n="1")
    assert accepts(tok, (tool,), body, fmt)
    completion = Completion()
    for event in parse_reply(f"<tool_call>\n{body}\n</tool_call>", (tool,)):
        completion.add(event)
    assert [(c.name, c.arguments) for c in completion.tool_calls] == [(name, {"n": 1})]


@pytest.mark.parametrize("fmt", [JSON, XML])
def test_a_grammar_that_cannot_compile_is_one_error_naming_the_tool(
    tok: LLTokenizer, fmt: ToolCallFormat, caplog: pytest.LogCaptureFixture
) -> None:
    broken = ToolSpec("broken_tool", "", {"type": "object", "properties": {"x": {"$ref": "#/$defs/Missing"}}})
    with caplog.at_level(logging.ERROR), pytest.raises(ConstraintError, match=r"broken_tool.*Missing"):
        ToolCallConstraint(tok, (broken,), "required", call_format=fmt)
    impossible = ToolSpec(
        "impossible_tool",
        "",
        {"type": "object", "properties": {"x": {"type": "integer", "minimum": 5, "maximum": 1}}, "required": ["x"]},
    )
    with pytest.raises(ConstraintError, match="impossible_tool"):
        ToolCallConstraint(tok, (impossible,), "required", call_format=fmt)


# ---------------------------------------------------------------- what Qwen 3.5/3.6 write


def _calls(text: str, tools: tuple[ToolSpec, ...]) -> list[tuple[str, dict[str, Any]]]:
    completion = Completion()
    for event in parse_reply(text, tools):
        completion.add(event)
    assert not completion.tool_call_errors, completion.tool_call_errors
    return [(c.name, c.arguments) for c in completion.tool_calls]


EDIT = ToolSpec(
    "edit",
    "",
    {
        "type": "object",
        "properties": {"path": {"type": "string"}, "count": {"type": "integer"}, "text": {"type": "string"}},
        "required": ["path"],
    },
)


@pytest.mark.parametrize(
    "body",
    [
        # value</parameter> without the newline the template writes
        "<function=edit>\n<parameter=path>\na.py</parameter>\n<parameter=count>\n3</parameter>\n"
        "<parameter=text>\nhi</parameter>\n</function>",
        # a duplicated </parameter>
        "<function=edit>\n<parameter=path>\na.py\n</parameter>\n</parameter>\n<parameter=count>\n3\n</parameter>"
        "</parameter>\n<parameter=text>\nhi\n</parameter>\n</function>",
        # an integer as 3.0000
        "<function=edit>\n<parameter=path>\na.py\n</parameter>\n<parameter=count>\n3.0000\n</parameter>\n"
        "<parameter=text>\nhi\n</parameter>\n</function>",
    ],
)
def test_the_parser_reads_qwen_3_6_xml_as_meant(body: str) -> None:
    text = f"<think>\nok\n</think>\n\n<tool_call>\n{body}\n</tool_call>"
    [(name, arguments)] = _calls(text, (EDIT,))
    assert (name, arguments) == ("edit", {"path": "a.py", "count": 3, "text": "hi"})
    assert type(arguments["count"]) is int


def test_text_before_the_call_after_thinking_and_json_integers_as_floats() -> None:
    text = (
        '<think>\nplan\n</think>\n\nI will edit it now.<tool_call>\n{"name": "edit", "arguments": '
        '{"path": "a.py", "count": 10.0000}}\n</tool_call>'
    )
    [(name, arguments)] = _calls(text, (EDIT,))
    assert (name, arguments) == ("edit", {"path": "a.py", "count": 10}) and type(arguments["count"]) is int


def test_the_xml_grammar_forbids_a_closing_tag_inside_a_value(tok: LLTokenizer) -> None:
    assert accepts(tok, (EDIT,), xml("edit", path="a.py"), XML)
    assert not accepts(
        tok, (EDIT,), "<function=edit>\n<parameter=path>\na.py</parameter>\n</parameter>\n</function>", XML
    )


# ---------------------------------------------------------------- through the OpenAI-compatible backend


def test_mcp_names_and_ref_schemas_through_the_openai_compatible_backend() -> None:
    from qwen_runtime.backends.openai_compat import OpenAICompatRuntime
    from qwen_runtime.scenario import ScriptedCall, ScriptedTurn
    from qwen_runtime.testing import ScriptedServer
    from qwen_runtime.types import ChatRequest, UserMessage

    long_name = "srv." + "x" * 124
    drink = ToolSpec("ChaDri.change_drink", "", EVENT.parameters)
    other = ToolSpec(long_name, "", EDIT.parameters)
    good = {"host": {"name": "Ann"}, "kind": "call", "size": 16}
    qwen36 = (  # a server that hands Qwen 3.6's XML over as text, malformed the way it writes it
        f"<think>\nok\n</think>\n\nCalling.<tool_call>\n<function={long_name}>\n<parameter=path>\na.py</parameter>\n"
        "</parameter>\n<parameter=count>\n2.0000\n</parameter>\n</function>\n</tool_call>"
    )
    turns = [
        ScriptedTurn(tool_calls=(ScriptedCall("ChaDri.change_drink", good),)),
        ScriptedTurn(tool_calls=(ScriptedCall("ChaDri.change_drink", {**good, "host": {"name": 3}}),)),
        ScriptedTurn(raw=qwen36),
    ]
    with ScriptedServer(turns, chunk_size=7) as server:
        rt = OpenAICompatRuntime(server.base_url, backoff=0.01, max_retries=1)
        request = ChatRequest((UserMessage("go"),), tools=(drink, other), tool_choice="required")
        first, second, third = (rt.complete(request) for _ in range(3))
        bodies = server.requests
    assert [t["function"]["name"] for t in bodies[0]["tools"]] == ["ChaDri.change_drink", long_name]
    assert [(c.name, c.arguments) for c in first.tool_calls] == [("ChaDri.change_drink", good)]
    [error] = second.tool_call_errors  # the nested $defs model is checked on the way back too
    assert error.name == "ChaDri.change_drink" and "host.name" in error.message
    assert [(c.name, c.arguments) for c in third.tool_calls] == [(long_name, {"path": "a.py", "count": 2})]
    assert type(third.tool_calls[0].arguments["count"]) is int


def test_an_optional_string_is_raw_text_in_the_xml_form_as_the_template_writes_it(tok: LLTokenizer) -> None:
    note = ToolSpec(
        "note",
        "",
        {
            "type": "object",
            "properties": {
                "text": {
                    "anyOf": [{"type": "string", "maxLength": 5}, {"type": "null"}],
                    "default": None,
                    "title": "Text",
                }
            },
        },
    )
    assert accepts(tok, (note,), xml("note", text="a <b>"), XML)
    assert not accepts(tok, (note,), xml("note", text="abcdef"), XML)
    assert _calls(f"<tool_call>\n{xml('note', text='a <b>')}\n</tool_call>", (note,)) == [("note", {"text": "a <b>"})]
