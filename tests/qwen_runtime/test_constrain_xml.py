"""The XML tool-call grammar (Qwen3-Coder, Qwen 3.5) driven by hand with the tiny model's tokenizer."""

from __future__ import annotations

import random
import re
from typing import Any

import jsonschema
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from llguidance import LLTokenizer
from qwen_runtime.calls.toolformat import ToolCallFormat
from qwen_runtime.grammar.constrain import Phase, ToolCallConstraint
from qwen_runtime.parsing import parse_reply
from qwen_runtime.testing.testmodel import build_test_tokenizer
from qwen_runtime.types import Completion, ToolSpec

XML = ToolCallFormat.XML
EDIT = ToolSpec(
    "edit_file",
    "Replace text",
    {
        "type": "object",
        "properties": {
            "path": {"type": "string", "maxLength": 12},
            "count": {"type": "integer"},
            "ratio": {"type": "number"},
            "force": {"type": "boolean"},
            "mode": {"enum": ["a", "b"]},
            "lines": {"type": "array", "items": {"type": "integer"}, "maxItems": 2},
        },
        "required": ["path", "force"],
        "additionalProperties": False,
    },
)
LIST = ToolSpec("list_files", "List", {"type": "object", "properties": {}})
TOOLS = (EDIT, LIST)
SCHEMAS = {t.name: t.parameters for t in TOOLS}
CALL = re.compile(r"<tool_call>\n(.*?)\n</tool_call>", re.S)


@pytest.fixture(scope="module")
def tok() -> LLTokenizer:
    return LLTokenizer(build_test_tokenizer().to_str())


def ids(tok: LLTokenizer, text: str) -> list[int]:
    return list(tok.tokenize_str(text, parse_special=True))


def accepts(tok: LLTokenizer, body: str, tools: tuple[ToolSpec, ...] = TOOLS) -> bool:
    """Whether the grammar lets the model write `<tool_call>` + body + `</tool_call>`."""
    c = ToolCallConstraint(tok, tools, "auto", call_format=XML)
    for token in ids(tok, "<tool_call>" + body + "</tool_call>"):
        c.consume(token)
        if c.errors:
            return False
    return c.phase is Phase.FREE and c.calls_opened == 1


GOOD = (
    "\n<function=edit_file>\n<parameter=path>\na <b>\n</parameter>\n<parameter=count>\n-3\n</parameter>\n"
    "<parameter=force>\ntrue\n</parameter>\n<parameter=mode>\nb\n</parameter>\n"
    "<parameter=lines>\n[1, 2]\n</parameter>\n</function>\n"
)


def test_a_well_formed_call_is_accepted_and_closes_back_to_free_text(tok: LLTokenizer) -> None:
    assert accepts(tok, GOOD)
    assert accepts(tok, "\n<function=list_files>\n</function>\n")
    assert accepts(tok, "\n<function=edit_file>\n<parameter=path>\n\n</parameter>\n<parameter=force>\nfalse\n"
                        "</parameter>\n</function>\n")


@pytest.mark.parametrize(
    ("wrong", "why"),
    [
        (GOOD.replace("edit_file", "delete_file"), "a tool that is not offered"),
        (GOOD.replace("<parameter=mode>", "<parameter=style>"), "a parameter the tool does not have"),
        (GOOD.replace("<parameter=force>\ntrue\n</parameter>\n", ""), "a required parameter left out"),
        (GOOD.replace("\na <b>\n", "\nmuch too long a path\n"), "a string over maxLength"),
        (GOOD.replace("\n-3\n", "\nthree\n"), "an integer that is not one"),
        (GOOD.replace("\ntrue\n", "\nyes\n"), "a boolean that is not one"),
        (GOOD.replace("\nb\n</parameter>", "\nc\n</parameter>"), "a value outside the enum"),
        (GOOD.replace("[1, 2]", "[1, 2, 3]"), "JSON that breaks the schema (maxItems)"),
        (GOOD.replace("<parameter=count>", "<parameter=force>\ntrue\n</parameter>\n<parameter=count>"),
         "parameters out of the schema's order"),
    ],
)
def test_the_grammar_refuses(tok: LLTokenizer, wrong: str, why: str) -> None:
    assert not accepts(tok, wrong), why


def test_a_string_value_cannot_contain_its_own_closing_tag(tok: LLTokenizer) -> None:
    c = ToolCallConstraint(tok, (EDIT,), "auto", call_format=XML)
    for token in ids(tok, "<tool_call>\n<function=edit_file>\n<parameter=path>\nab\n</parameter>"):
        c.consume(token)
    assert not c.errors  # here the value ended: only the newline before the next tag may follow
    mask = c.allowed_mask()
    assert mask is not None
    assert {tok.decode_bytes([int(i)])[:1] for i in np.flatnonzero(mask)} == {b"\n"}


@pytest.mark.parametrize("schema", [{"type": "string"}, {"type": "string", "maxLength": 400},
                                    {"type": "string", "maxLength": 100_000}])
def test_a_string_value_runs_until_its_closing_tag(tok: LLTokenizer, schema: dict[str, Any]) -> None:
    free = ToolSpec("note", "", {"type": "object", "properties": {"text": schema}, "required": ["text"]})
    # (not `</tool_call>`: that tag is one token, which the grammar keeps for the end of the call)
    value = "def f(x):\n    return x < 3 and x > 1  # </function> <parameter=x>\n" * 3
    assert accepts(tok, f"\n<function=note>\n<parameter=text>\n{value}\n</parameter>\n</function>\n", (free,))
    bounded = ToolSpec("note", "", {"type": "object", "properties": {"text": {"type": "string", "maxLength": 100}},
                                    "required": ["text"]})
    assert not accepts(tok, f"\n<function=note>\n<parameter=text>\n{value}\n</parameter>\n</function>\n",
                       (bounded,))


def test_a_name_forces_that_tool_and_required_opens_the_reply_with_it(tok: LLTokenizer) -> None:
    c = ToolCallConstraint(tok, (LIST,), "list_files", call_format=XML)
    assert c.phase is Phase.OPEN
    c.consume(ids(tok, "<tool_call>")[0])
    assert tok.decode_str(c.forced_tokens()) == "\n<function=list_files>\n</function>\n</tool_call>"


def walk(tok: LLTokenizer, c: ToolCallConstraint, rng: random.Random, steps: int = 300) -> list[int]:
    """A 'model' choosing uniformly among allowed tokens, stopping at the end or after one call."""
    close = ids(tok, "</tool_call>")[0]
    out: list[int] = []
    for _ in range(steps):
        if close in out:
            break
        mask = c.allowed_mask()
        if mask is None:
            break
        choices = np.flatnonzero(mask)
        token = int(rng.choice(list(choices)))
        if token == tok.eos_token:
            break
        out.append(token)
        c.consume(token)
        for forced in c.forced_tokens():
            out.append(forced)
            c.consume(forced)
    return out


@settings(max_examples=40, deadline=None)
@given(rng=st.randoms(use_true_random=False))
def test_any_token_choice_under_required_gives_a_schema_valid_call(tok: LLTokenizer, rng: random.Random) -> None:
    short = ToolSpec(
        "edit_file", "", {**EDIT.parameters, "properties": {**EDIT.parameters["properties"],
                                                          "path": {"type": "string", "maxLength": 4}}}
    )
    c = ToolCallConstraint(tok, (short, LIST), "required", call_format=XML)
    text = tok.decode_str(walk(tok, c, rng))
    assert not c.errors and CALL.search(text), text
    completion = Completion()
    for event in parse_reply(text, (short, LIST)):
        completion.add(event)
    assert completion.tool_calls and not completion.tool_call_errors, text
    for call in completion.tool_calls:
        schema: dict[str, Any] = {**SCHEMAS[call.name]}
        if call.name == "edit_file":
            schema["properties"] = {**schema["properties"], "path": {"type": "string", "maxLength": 4}}
        jsonschema.validate(call.arguments, schema)


# ---------------------------------------------------------------- every keyword the JSON form enforces (issue 51)


def one(schema: dict[str, Any]) -> ToolSpec:
    return ToolSpec("pick", "", {"type": "object", "properties": {"m": schema}, "required": ["m"]})


def call_with(value: str) -> str:
    return f"\n<function=pick>\n<parameter=m>\n{value}\n</parameter>\n</function>\n"


def parsed(text: str, tool: ToolSpec) -> Any:
    completion = Completion()
    for event in parse_reply(text, (tool,)):
        completion.add(event)
    assert completion.tool_calls and not completion.tool_call_errors, text
    jsonschema.validate(completion.tool_calls[0].arguments, tool.parameters)
    return completion.tool_calls[0].arguments["m"]


#: (schema as MCP servers and pydantic write it, values the template writes for it, values it refuses)
CHOICES = [
    ({"anyOf": [{"enum": ["a", "b"]}, {"enum": ["c"]}]}, ["a", "b", "c"], ["d", "a b", "ab"]),
    ({"anyOf": [{"type": "string", "enum": ["fast", "deep"]}, {"type": "null"}]}, ["fast", "deep", "null"],
     ["slow", "fastdeep", "None"]),
    ({"oneOf": [{"const": "x"}, {"const": "y"}]}, ["x", "y"], ["z", "xy"]),
    ({"type": "string", "anyOf": [{"enum": ["p", "q"]}, {"const": "r"}]}, ["p", "q", "r"], ["s", "pq"]),
    ({"anyOf": [{"enum": [1, 2]}, {"enum": ["t"]}, {"type": "null"}]}, ["1", "2", "t", "null"], ["3", "tt"]),
    ({"type": "string", "anyOf": [{"pattern": "^x[0-9]+$", "maxLength": 4}, {"enum": ["zz"]}]},
     ["x1", "x123", "zz"], ["x1234", "y1", "z"]),
]


@pytest.mark.parametrize(("schema", "good", "bad"), CHOICES)
def test_a_choice_of_listed_values_is_held_to_them_in_a_raw_value(
    tok: LLTokenizer, schema: dict[str, Any], good: list[str], bad: list[str]
) -> None:
    tool = one(schema)
    for value in good:
        assert accepts(tok, call_with(value), (tool,)), value
        expected = None if value == "null" else int(value) if value.isdigit() else value
        assert parsed("<tool_call>" + call_with(value) + "</tool_call>", tool) == expected
    for value in bad:
        assert not accepts(tok, call_with(value), (tool,)), value


@pytest.mark.parametrize("schema", [
    {"type": "string", "maxLength": 40},
    {"anyOf": [{"type": "string", "maxLength": 40}, {"type": "null"}]},
    {"type": "string", "anyOf": [{"maxLength": 40}, {"const": "-"}]},
    {"type": "string", "maxLength": 40, "anyOf": [{"minLength": 2}, {"pattern": "^[a-z ]*$"}]},
])
def test_a_raw_string_never_runs_past_its_max_length(tok: LLTokenizer, schema: dict[str, Any]) -> None:
    tool = one(schema)
    assert accepts(tok, call_with("x" * 40), (tool,))
    assert not accepts(tok, call_with("x" * 41), (tool,))
    for seed in range(15):  # and a model choosing any token it is allowed stops in time
        c = ToolCallConstraint(tok, (tool,), "required", call_format=XML)
        text = tok.decode_str(walk(tok, c, random.Random(seed), steps=200))
        assert not c.errors and len(parsed(text, tool) or "") <= 40, text


@pytest.fixture(scope="module")
def hybrid_tok() -> LLTokenizer:
    """The tiny Qwen 3.5-shaped model's tokenizer (its vocabulary has the vision tokens)."""
    return LLTokenizer(build_test_tokenizer("qwen35").to_str())


SPECIALS = ("<|vision_start|>", "<think>", "</think>", "<|im_end|>", "<|endoftext|>", "<tool_call>", "</tool_call>")


@pytest.mark.parametrize("schema", [
    {"type": "string"}, {"type": "string", "maxLength": 40}, {"type": "integer"},
    {"type": "array", "items": {"type": "string"}}, CHOICES[1][0],
])
def test_no_special_token_is_allowed_inside_a_value(hybrid_tok: LLTokenizer, schema: dict[str, Any]) -> None:
    tok = hybrid_tok
    special = [t for text in SPECIALS for t in ids(tok, text) if tok.is_special_token(t)]
    assert len(special) == len(SPECIALS)  # (each is one special token of the vocabulary)
    tool = one(schema)
    start = {"integer": "1", "array": '["a'}.get(str(schema.get("type")), "f")
    c = ToolCallConstraint(tok, (tool,), "required", call_format=XML)
    for token in ids(tok, "<tool_call>\n<function=pick>\n<parameter=m>\n" + start):
        c.consume(token)
    assert not c.errors
    mask = c.allowed_mask()
    assert mask is not None and mask.any()
    assert not mask[special].any()


@pytest.mark.parametrize(("schema", "good", "bad"), [
    ({"type": "integer", "minimum": 1, "maximum": 10}, ["1", "10"], ["0", "11", "-1", "1.5"]),
    ({"type": "number", "exclusiveMinimum": 0, "maximum": 1}, ["0.5", "1"], ["0", "1.5", "-0.1"]),
    ({"anyOf": [{"type": "integer", "minimum": 0}, {"type": "null"}]}, ["0", "7", "null"], ["-1", "x"]),
    ({"type": "string", "pattern": "^[a-z]+-[0-9]{2}$"}, ["ab-12"], ["ab-1", "AB-12", "ab-123"]),
    ({"type": "string", "minLength": 3}, ["abc"], ["ab", ""]),
])
def test_bounds_and_patterns_hold_inside_a_value(
    tok: LLTokenizer, schema: dict[str, Any], good: list[str], bad: list[str]
) -> None:
    tool = one(schema)
    for value in good:
        assert accepts(tok, call_with(value), (tool,)), value
        parsed("<tool_call>" + call_with(value) + "</tool_call>", tool)
    for value in bad:
        assert not accepts(tok, call_with(value), (tool,)), value
