"""Issue 51, the parser's part: XML calls read with the tool's schema, as the peers read them.

1. Wrong arguments, silently: a value no longer swallows the parameter that follows it when the model
   drops `</parameter>`, nor a parameter Qwen3-Coder-Next writes a second time.
2. A cut fragment is no call: `<tool_call><function=get_weather>` and the end of the reply.
3. Text after a call survives any streamed split.
4. A call drafted inside `<think>` leaves the reasoning's text; a fence or `<JSON>` tag around a call
   leaves the answer's text.

Every shape is read whole and streamed in chunks of 1, 3 and 7 characters, which must read the same.
The property at the end cuts well-formed renderings of calls to real-world and generated schemas
anywhere: what comes out is the call as written, the arguments written so far, or no call.
"""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from qwen_runtime.parsing import ReplyParser, parse_reply
from qwen_runtime.parsing.xmlcalls import render_xml_call
from qwen_runtime.types import Completion, Event, ToolSpec

from .reading import counter, fold, merged

WEATHER = ToolSpec(
    "get_weather",
    "Weather for a place",
    {
        "type": "object",
        "properties": {
            "location": {"type": "string"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
        },
    },
)
#: opencode's write tool, as Qwen3-Coder-Next calls it
WRITE = ToolSpec(
    "write",
    "Write a file",
    {
        "type": "object",
        "properties": {"filePath": {"type": "string"}, "content": {"type": "string"}},
        "required": ["filePath", "content"],
    },
)
TOOLS = (WEATHER, WRITE)
SIZES = (1, 3, 7)


def pieces(parts: list[str], tools: tuple[ToolSpec, ...] = TOOLS, **kwargs: Any) -> list[Event]:
    truncated = kwargs.pop("truncated", False)
    parser = ReplyParser(tools, id_factory=counter(), **kwargs)
    events = [event for part in parts for event in parser.feed(part)]
    return events + parser.finish(truncated=truncated)


def read(text: str, tools: tuple[ToolSpec, ...] = TOOLS, **kwargs: Any) -> Completion:
    """The reply read whole, after checking that every chunking reads the same."""
    whole = merged(parse_reply(text, tools, id_factory=counter(), **kwargs))
    for size in SIZES:
        parts = [text[start : start + size] for start in range(0, len(text), size)]
        assert merged(pieces(parts, tools, **kwargs)) == whole, f"chunks of {size}"
    return fold(whole)


def calls(completion: Completion) -> list[tuple[str, dict[str, Any]]]:
    assert completion.tool_call_errors == [], completion.tool_call_errors
    return [(call.name, call.arguments) for call in completion.tool_calls]


# ---------------------------------------------------------------- 1: wrong arguments, silently


@pytest.mark.parametrize(
    "unit_end", ["\n</parameter>\n</function>", "\n</function>", "\n</parameter>\n</tool_call>", "\n</tool_call>"]
)
def test_a_dropped_parameter_close_ends_the_value_at_the_next_parameter_of_the_schema(unit_end: str) -> None:
    """Issue 51: `location` was "Paris\\n<parameter=unit>\\ncelsius"; the peers end the value at the next
    parameter tag (vLLM at any), and so does the reader now where the schema declares that parameter."""
    text = f"<tool_call>\n<function=get_weather>\n<parameter=location>\nParis\n<parameter=unit>\ncelsius{unit_end}"
    assert calls(read(text)) == [("get_weather", {"location": "Paris", "unit": "celsius"})]


def test_a_dropped_close_between_required_and_optional_parameters_of_a_write() -> None:
    text = (
        "<tool_call>\n<function=write>\n<parameter=filePath>\nnotes.md\n<parameter=content>\n# Notes\n"
        "</parameter>\n</function>\n</tool_call>"
    )
    assert calls(read(text)) == [("write", {"filePath": "notes.md", "content": "# Notes"})]


def test_a_tag_the_schema_does_not_declare_or_the_call_gives_later_stays_in_the_value() -> None:
    """What protects a file holding call syntax: only a declared parameter the call gives nowhere else
    ends a value at its tag (test_wild_calls holds the rest of these shapes)."""
    undeclared = "<tool_call>\n<function=get_weather>\n<parameter=location>\nParis\n<parameter=lang>\nfr\n</function>"
    assert calls(read(undeclared)) == [("get_weather", {"location": "Paris\n<parameter=lang>\nfr"})]
    content = "<parameter=filePath>\nexample\n"  # a fixture file, then the real filePath
    text = f"<tool_call>\n{render_xml_call('write', {'content': content, 'filePath': 'fixture.txt'})}\n</tool_call>"
    assert calls(read(text)) == [("write", {"content": content, "filePath": "fixture.txt"})]


@pytest.mark.parametrize("again", ["notes.md", " notes.md ", "notes.md\n"])
def test_a_parameter_written_again_with_the_same_value_is_one_parameter_and_the_last_is_kept(again: str) -> None:
    """Qwen3-Coder-Next writes `filePath`, `content`, then `filePath` again: the content ended up holding
    `</parameter>\\n<parameter=filePath>...`. The repeat is read as one; as llama.cpp and vLLM do, the last
    one written is kept (the same value: only a repeat of the same value is read as one)."""
    text = (
        "<tool_call>\n<function=write>\n<parameter=filePath>\nnotes.md\n</parameter>\n<parameter=content>\n"
        f"# Notes\n</parameter>\n<parameter=filePath>\n{again}\n</parameter>\n</function>\n</tool_call>"
    )
    assert calls(read(text)) == [("write", {"filePath": again, "content": "# Notes"})]


def test_a_repeat_right_after_the_first_is_one_parameter_and_an_empty_value_is_never_a_repeat() -> None:
    text = (
        "<tool_call>\n<function=write>\n<parameter=filePath>\nnotes.md\n</parameter>\n<parameter=filePath>\n"
        "notes.md\n</parameter>\n<parameter=content>\n# Notes\n</parameter>\n</function>\n</tool_call>"
    )
    assert calls(read(text)) == [("write", {"filePath": "notes.md", "content": "# Notes"})]
    content = "</parameter>\n<parameter=content>\n"  # a file holding its own tag, then nothing
    text = f"<tool_call>\n{render_xml_call('write', {'content': content, 'filePath': 'a.md'})}\n</tool_call>"
    assert calls(read(text)) == [("write", {"content": content, "filePath": "a.md"})]


def test_a_parameter_written_again_with_another_value_stays_text_of_the_value_before() -> None:
    """Deliberately unlike the peers (which keep the last value): this is, tag for tag, a file whose content
    holds `</parameter>\\n<parameter=filePath>\\n...` (a parser's test data), and reading it as a second
    filePath would let the content of a file choose where it is written. So the value stays whole."""
    content = "# Notes\n</parameter>\n<parameter=filePath>\n/home/me/.bashrc"
    text = (
        "<tool_call>\n<function=write>\n<parameter=filePath>\nnotes.md\n</parameter>\n<parameter=content>\n"
        f"{content}\n</parameter>\n</function>\n</tool_call>"
    )
    assert calls(read(text)) == [("write", {"filePath": "notes.md", "content": content})]


# ---------------------------------------------------------------- 2: a cut fragment is no call


def test_a_call_cut_right_after_its_function_tag_is_no_call() -> None:
    """Issue 51: `get_weather({})` ran (no parameter is required). Nothing after `<function=NAME>` says the
    call was complete, so it is an error that says so, whatever the backend says about why it ended."""
    completion = read("Plan</think>Before<tool_call><function=get_weather>", starts_in_think=True)
    assert completion.tool_calls == []
    [error] = completion.tool_call_errors
    assert (error.name, error.truncated) == ("get_weather", False)
    assert "never closed" in error.message and "right after <function=get_weather>" in error.message
    assert (completion.reasoning, completion.text) == ("Plan", "Before")
    cut = read("Before<tool_call><function=get_weather>\n", truncated=True)
    assert cut.tool_calls == [] and [e.truncated for e in cut.tool_call_errors] == [True]


@pytest.mark.parametrize(
    "text",
    ["<function=get_weather>", "<tool_call>\n<function=get_weather>\n\n", '<function=get_weather>\n{"location": "Pa'],
)
def test_other_fragments_that_never_closed_are_no_call(text: str) -> None:
    completion = read(text)
    assert completion.tool_calls == []
    assert [e.name for e in completion.tool_call_errors] == ["get_weather"]
    assert "never closed" in completion.tool_call_errors[0].message


def test_a_call_cut_after_a_closing_tag_and_the_next_tags_start_is_no_call() -> None:
    """Found by the property below: the `<` after the last `</parameter>` made the reading forgive that
    `</parameter>`, and the value ran on to the end ("# Notes\n</parameter>\n<") in a call that ran."""
    text = (
        "<tool_call>\n<function=write>\n<parameter=filePath>\nnotes.md\n</parameter>\n<parameter=content>\n"
        "# Notes\n</parameter>\n<"
    )
    completion = read(text)
    assert completion.tool_calls == []
    [error] = completion.tool_call_errors
    assert "never closed" in error.message and "'content'" in error.message


@pytest.mark.parametrize(
    "text",
    [
        "<tool_call>\n<function=get_weather>\n</function>",  # closed, no parameter
        "<tool_call>\n<function=get_weather>\n</tool_call>",  # the call closed
        '<tool_call>\n<function=get_weather>\n{"location": "Paris"}',  # its JSON arguments closed
        "<tool_call>\n<function=get_weather>\n<parameter=location>\nParis\n</parameter>\n",  # the value closed
    ],
)
def test_a_call_whose_end_is_written_still_runs_without_its_last_tags(text: str) -> None:
    expected = {} if "Paris" not in text else {"location": "Paris"}
    assert calls(read(text)) == [("get_weather", expected)]


# ---------------------------------------------------------------- 3: text after a call in a streamed split

BODIES = [
    "\n<function=get_weather>\n<parameter=location>\nParis\n</parameter>\n</function>\n",
    "<function=get_weather><parameter=location>Paris</parameter></function>",
    '\n{"name": "get_weather", "arguments": {"location": "Paris"}}\n',
]


@pytest.mark.parametrize("body", BODIES)
def test_text_after_a_call_survives_every_split_in_three(body: str) -> None:
    """Issue 51: `Hello　<tool` / `_call>...` / `</tool_call>def` lost "def"."""
    text = f"Hello\u3000<tool_call>{body}</tool_call>def"
    for first, second in itertools.combinations(range(1, len(text)), 2):
        completion = fold(pieces([text[:first], text[first:second], text[second:]]))
        assert (completion.text, calls(completion)) == (
            "Hello\u3000def",
            [("get_weather", {"location": "Paris"})],
        ), (first, second)


# ---------------------------------------------------------------- 4: markup left in reasoning and text

DRAFT = "<tool_call>\n<function=get_weather>\n<parameter=location>\nParis\n</parameter>\n</function>\n</tool_call>"


def test_a_call_drafted_in_reasoning_leaves_the_reasoning_text_whether_it_runs_or_not() -> None:
    """The peers take a call out of the reasoning. The reasoning streams before the reply's end decides
    whether a draft runs (it does when no real call follows), so a draft that reads as a call leaves it in
    both cases: a call that did not run would read as one that did. A broken one is thinking aloud."""
    runs = read(f"<think>Let me look.\n{DRAFT}\nThat is all.</think>")
    assert calls(runs) == [("get_weather", {"location": "Paris"})]
    assert runs.reasoning == "Let me look.\n\nThat is all."
    replaced = read(f"<think>Maybe\n{DRAFT}\nno, Rome.</think>\n{DRAFT.replace('Paris', 'Rome')}")
    assert calls(replaced) == [("get_weather", {"location": "Rome"})]
    assert replaced.reasoning == "Maybe\n\nno, Rome."
    broken = read("<think>Like <tool_call>\n<function=get_weather>\nParis\n</function>\n</tool_call> maybe.</think>Ok.")
    assert broken.reasoning.startswith("Like <tool_call>\n<function=get_weather>") and broken.text == "Ok."


@pytest.mark.parametrize(
    ("opener", "closer"),
    [("```xml\n", "\n```"), ("```\n", "\n```"), ("<JSON>\n", "\n</JSON>"), ("<tools>\n", "\n</tools>")],
)
@pytest.mark.parametrize(
    "call",
    [DRAFT, DRAFT.removeprefix("<tool_call>\n").removesuffix("\n</tool_call>"),
     '{"name": "get_weather", "arguments": {"location": "Paris"}}'],
    ids=["tool_call", "function", "bare-json"],
)
def test_a_fence_or_tag_around_a_call_leaves_the_text(opener: str, closer: str, call: str) -> None:
    completion = read(f"Checking.\n{opener}{call}{closer}\nDone.")
    assert calls(completion) == [("get_weather", {"location": "Paris"})]
    assert completion.text == "Checking.\n\nDone."


def test_one_fence_around_two_calls_leaves_the_text_and_a_fence_around_a_mention_stays() -> None:
    rome = DRAFT.replace("Paris", "Rome")
    completion = read(f"Checking.\n```xml\n{DRAFT}\n{rome}\n```\nDone.")
    assert [c.arguments["location"] for c in completion.tool_calls] == ["Paris", "Rome"]
    assert completion.text == "Checking.\n\nDone."
    example = "A call looks like:\n```\n<tool_call> then the JSON\n```\nand no more."
    assert read(example).text == example


# ---------------------------------------------------------------- property: cut anywhere


def _strings() -> st.SearchStrategy[str]:
    """Text a value may hold: code, markup, newlines; no tag of the call's own structure."""
    bits = st.sampled_from(
        ["a", "é", " ", "\n", "    ", "<", ">", "</", "<div>", "</div>", "{", "}", '"', "=", "parameter",
         "def f():\n    return 1 < 2\n", "null", "0"]
    )
    text = st.lists(st.text(max_size=4) | bits, max_size=6).map("".join)
    return text.filter(lambda v: re.search(r"</?(parameter|function|tool_call|think)\b", v) is None)


def values_of(schema: dict[str, Any], defs: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Values valid under a schema of the kinds below (what the corpus and the generator use)."""
    if "$ref" in schema:
        return values_of(defs[schema["$ref"].rsplit("/", 1)[1]], defs)
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    if "anyOf" in schema:
        return st.one_of([values_of(branch, defs) for branch in schema["anyOf"]])
    kind = schema.get("type")
    if kind == "string":
        return _strings()
    if kind == "integer":
        return st.integers(schema.get("minimum", -(10**6)), schema.get("maximum", 10**6))
    if kind == "number":
        return st.floats(-1e6, 1e6, allow_nan=False).map(lambda x: round(x, 3))
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    if kind == "array":
        items = values_of(schema.get("items", {"type": "string"}), defs)
        return st.lists(items, max_size=min(3, schema.get("maxItems", 3)))
    properties = schema.get("properties", {})
    required = set(schema.get("required", []))
    return st.fixed_dictionaries(
        {name: values_of(sub, defs) for name, sub in properties.items() if name in required},
        optional={name: values_of(sub, defs) for name, sub in properties.items() if name not in required},
    )


PERSON = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "age": {"anyOf": [{"type": "integer", "minimum": 0}, {"type": "null"}]}},
    "required": ["name"],
}
#: tools as agents publish them (opencode, Claude Code, an MCP server with pydantic `$defs`)
CORPUS = [
    WEATHER,
    WRITE,
    ToolSpec("edit", "", {"type": "object", "properties": {
        "filePath": {"type": "string"}, "oldString": {"type": "string"}, "newString": {"type": "string"},
        "replaceAll": {"type": "boolean"}}, "required": ["filePath", "oldString", "newString"]}),
    ToolSpec("bash", "", {"type": "object", "properties": {
        "command": {"type": "string"}, "timeout": {"type": "number"}, "description": {"type": "string"}},
        "required": ["command", "description"]}),
    ToolSpec("Read", "", {"type": "object", "properties": {
        "file_path": {"type": "string"}, "offset": {"type": "integer"}, "limit": {"type": "integer"}},
        "required": ["file_path"]}),
    ToolSpec("todowrite", "", {"type": "object", "properties": {"todos": {"type": "array", "items": {
        "type": "object", "properties": {"content": {"type": "string"},
                                         "status": {"enum": ["pending", "in_progress", "completed"]}},
        "required": ["content", "status"]}}}, "required": ["todos"]}),
    ToolSpec("create_event", "", {
        "$defs": {"Person": PERSON, "Kind": {"enum": ["call", "meeting", 3, None]}},
        "type": "object",
        "properties": {"host": {"$ref": "#/$defs/Person"},
                       "guests": {"type": "array", "items": {"$ref": "#/$defs/Person"}},
                       "kind": {"$ref": "#/$defs/Kind"}, "note": {"anyOf": [{"type": "string"}, {"type": "null"}]}},
        "required": ["host", "kind"]}),
]
LEAVES = st.sampled_from([
    {"type": "string"}, {"type": "integer"}, {"type": "number"}, {"type": "boolean"},
    {"type": "string", "enum": ["a", "b c", "null"]}, {"type": "array", "items": {"type": "string"}},
    {"type": "object", "properties": {"k": {"type": "string"}}}, {"anyOf": [{"type": "string"}, {"type": "null"}]},
])


@st.composite
def generated_tools(draw: st.DrawFn) -> ToolSpec:
    names = draw(st.lists(st.sampled_from(["path", "content", "a", "b_c", "filePath", "x1", "mode"]),
                          min_size=1, max_size=5, unique=True))
    properties = {name: draw(LEAVES) for name in names}
    required = [name for name in names if draw(st.booleans())]
    return ToolSpec("tool", "", {"type": "object", "properties": properties, "required": required})


def _nullable_string_nulls(tool: ToolSpec, arguments: dict[str, Any]) -> bool:
    """A string that reads as null where the schema allows null (`<parameter=x>\\nnull`: written as null)."""
    properties = tool.parameters["properties"]
    return any(
        isinstance(value, str) and value.strip() in ("null", "None") and "anyOf" in properties.get(key, {})
        for key, value in arguments.items()
    )


@st.composite
def written_calls(draw: st.DrawFn) -> tuple[ToolSpec, dict[str, Any]]:
    tool = draw(st.sampled_from(CORPUS) | generated_tools())
    arguments = draw(values_of(tool.parameters, tool.parameters.get("$defs", {})))
    assume(not _nullable_string_nulls(tool, arguments))
    keys = draw(st.permutations(list(arguments)))
    return tool, {key: arguments[key] for key in keys}


@settings(max_examples=150, deadline=None)
@given(written_calls(), st.data())
def test_a_call_cut_anywhere_is_the_call_as_written_so_far_or_none(
    written: tuple[ToolSpec, dict[str, Any]], data: st.DataObject
) -> None:
    """Whole, the rendering reads back as written. Cut anywhere before its end: with the backend saying
    it was cut, never a call; without, either no call or one whose arguments are exactly those whose
    `</parameter>` came (at least one), valid for the schema. Never a value cut short, never an argument
    that was not written."""
    tool, arguments = written
    body = render_xml_call(tool.name, arguments)
    text = f"Sure.\n<tool_call>\n{body}\n</tool_call>"
    validator = Draft202012Validator(tool.parameters)
    whole = fold(parse_reply(text, (tool,)))
    assert calls(whole) == [(tool.name, arguments)]
    # where each parameter's block ends, in order
    ends, at = [], text.index("<function=")
    for key in arguments:
        at = text.index("</parameter>", text.index(f"<parameter={key}>", at)) + len("</parameter>")
        ends.append(at)
    function_end = text.index("</function>", at) + len("</function>")
    cut = data.draw(st.integers(text.index("<tool_call>"), len(text) - 1), label="cut")
    size = data.draw(st.sampled_from(SIZES), label="chunk")
    for truncated in (True, False):
        events = parse_reply(text[:cut], (tool,), truncated=truncated)
        parts = [text[:cut][start : start + size] for start in range(0, cut, size)]
        assert merged(pieces(parts, (tool,), truncated=truncated)) == merged(
            parse_reply(text[:cut], (tool,), id_factory=counter(), truncated=truncated)
        )
        made = [(c.name, c.arguments) for c in fold(events).tool_calls]
        if truncated:
            assert made == [], text[:cut]
            continue
        if not made:
            continue
        written_so_far = sum(1 for end in ends if end <= cut)
        assert written_so_far >= 1 or cut >= function_end, text[:cut]
        assert made == [(tool.name, dict(list(arguments.items())[:written_so_far]))], text[:cut]
        assert not list(validator.iter_errors(made[0][1])), (text[:cut], made)


def test_the_corpus_renders_and_reads_back() -> None:
    """(The property's own ground: every corpus tool's rendering, typed values included, reads back.)"""
    arguments = {"host": {"name": "Ann", "age": None}, "kind": 3, "guests": [], "note": "bring <cake>"}
    text = f"<tool_call>\n{render_xml_call('create_event', arguments)}\n</tool_call>"
    assert calls(read(text, tuple(CORPUS))) == [("create_event", arguments)]
    assert json.loads(json.dumps(arguments)) == arguments
