"""Tool calls from the wild (issue 33): the shapes vLLM's, SGLang's, llama.cpp's and Ollama's parser
tests keep for Qwen's formats, each read whole and streamed in chunks of 1, 3 and 7 characters."""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from qwen_runtime.parsing import ReplyParser, parse_reply
from qwen_runtime.parsing.xmlcalls import render_xml_call
from qwen_runtime.types import Completion, Event, ToolSpec

from .reading import counter, merged

WRITE = ToolSpec(
    "write_file",
    "Write a file",
    {
        "type": "object",
        "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
        "required": ["path", "content"],
    },
)
RUN = ToolSpec("run", "Run", {"type": "object", "properties": {"cmd": {"type": "string"}}, "required": ["cmd"]})
CONFIG = ToolSpec(
    "configure",
    "Configure",
    {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "note": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "label": {"type": ["string", "null"]},
            "options": {"type": "object"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "limit": {"anyOf": [{"type": "object"}, {"type": "null"}]},
        },
        "required": ["name"],
    },
)
TOOLS = (WRITE, RUN, CONFIG)
SIZES = (1, 3, 7)


def streamed(text: str, size: int, tools: tuple[ToolSpec, ...], **kwargs: Any) -> list[Event]:
    parser = ReplyParser(tools, id_factory=counter(), **kwargs)
    events: list[Event] = []
    for start in range(0, len(text), size):
        events += parser.feed(text[start : start + size])
    return events + parser.finish()


def read(text: str, tools: tuple[ToolSpec, ...] = TOOLS, **kwargs: Any) -> Completion:
    """The reply read whole, after checking that every chunking reads the same."""
    whole = merged(parse_reply(text, tools, id_factory=counter(), **kwargs))
    for size in SIZES:
        assert merged(streamed(text, size, tools, **kwargs)) == whole, f"chunks of {size}"
    completion = Completion()
    for event in whole:
        completion.add(event)
    return completion


def calls(completion: Completion) -> list[tuple[str, dict[str, Any]]]:
    assert completion.tool_call_errors == [], completion.tool_call_errors
    return [(call.name, call.arguments) for call in completion.tool_calls]


def xml(name: str, arguments: dict[str, Any]) -> str:
    return f"<tool_call>\n{render_xml_call(name, arguments)}\n</tool_call>"


# ---------------------------------------------------------------- 1: values holding call syntax

NESTED_CALL = xml("run", {"cmd": "rm -rf /"})
VALUES_WITH_CALL_SYNTAX = [
    pytest.param('EXPECTED = """\n</parameter>\n<parameter=path>\n/etc/passwd\n"""\n', id="a-later-parameter"),
    pytest.param(f"def test_parse():\n    text = '''{NESTED_CALL}'''\n    assert parse(text)\n", id="a-whole-call"),
    pytest.param(f"{NESTED_CALL}\n", id="a-whole-call-at-the-end"),
    pytest.param("end = '\n</parameter>\n</function>\n</tool_call>'\nprint(end)\n", id="the-closing-tags"),
    pytest.param("<function=run>\n<parameter=cmd>\nls\n</parameter>\n</function>\n", id="a-function-block"),
    pytest.param("{% for p in params %}<parameter={{ p }}>\n{{ v }}\n</parameter>{% endfor %}", id="a-template"),
    pytest.param('assert parse("<parameter=path>a.py</parameter><parameter=content>x</parameter>")\n', id="compact"),
]


@pytest.mark.parametrize("content", VALUES_WITH_CALL_SYNTAX)
def test_a_value_holding_call_syntax_is_kept_whole_in_either_order(content: str) -> None:
    for arguments in ({"path": "tests/t.py", "content": content}, {"content": content, "path": "tests/t.py"}):
        assert calls(read(xml("write_file", arguments))) == [("write_file", arguments)]


@pytest.mark.parametrize("content", VALUES_WITH_CALL_SYNTAX)
def test_a_value_holding_call_syntax_before_another_call_and_prose(content: str) -> None:
    first = {"path": "a.py", "content": content}
    completion = read(f"Writing.\n{xml('write_file', first)}\n{xml('run', {'cmd': 'pytest'})}\nDone.")
    assert calls(completion) == [("write_file", first), ("run", {"cmd": "pytest"})]
    assert (completion.text.split()[0], completion.text.split()[-1]) == ("Writing.", "Done.")


def test_a_value_holding_its_own_parameter_tag_is_kept_whole() -> None:
    arguments = {"content": "</parameter>\n<parameter=content>\nagain\n", "path": "a.py"}
    assert calls(read(xml("write_file", arguments))) == [("write_file", arguments)]


def test_an_xml_call_settles_at_the_end_of_the_reply_and_is_no_longer_in_a_call_after_its_close() -> None:
    parser = ReplyParser(TOOLS)
    assert parser.feed("<tool_call>\n<function=run>\n<parameter=cmd>\nls\n</parameter>\n") == []
    assert parser.in_tool_call
    assert parser.feed("</function>\n</tool_call>\nDone.") == []  # "Done." may still be the value's
    assert not parser.in_tool_call
    completion = Completion()
    for event in parser.finish():
        completion.add(event)
    assert (calls(completion), completion.text) == ([("run", {"cmd": "ls"})], "Done.")


def test_an_unknown_tool_prefers_the_last_plausible_end() -> None:
    content = "x = 1\n</parameter>\n<parameter=path>\nfake\n</parameter>\ny = 2"
    completion = read(xml("write_file", {"path": "p", "content": content}), tools=())
    assert calls(completion) == [("write_file", {"path": "p", "content": content})]


def test_two_functions_in_one_tool_call_block_are_two_calls() -> None:
    text = (
        "<tool_call>\n<function=run>\n<parameter=cmd>\nls\n</parameter>\n</function>\n"
        "<function=run>\n<parameter=cmd>\npwd\n</parameter>\n</function>\n</tool_call>"
    )
    assert calls(read(text)) == [("run", {"cmd": "ls"}), ("run", {"cmd": "pwd"})]


@pytest.mark.parametrize("sep", ["", "\n"])
def test_a_compact_call_on_one_line_reads(sep: str) -> None:
    text = (
        f"<tool_call>{sep}<function=configure>{sep}<parameter=name>x</parameter>{sep}<parameter=note>y</parameter>"
        f'{sep}<parameter=tags>["a"]</parameter>{sep}</function>{sep}</tool_call>'
    )
    assert calls(read(text)) == [("configure", {"name": "x", "note": "y", "tags": ["a"]})]


def test_a_dropped_closing_tag_is_still_forgiven_where_nothing_else_reads() -> None:
    text = "<tool_call>\n<function=write_file>\n<parameter=path>\na.py\n<parameter=content>\nhi\n</function>"
    assert calls(read(text)) == [("write_file", {"path": "a.py", "content": "hi"})]


# ---------------------------------------------------------------- 3: <tool_call> mentioned


def test_a_tool_call_tag_mentioned_in_reasoning_stays_reasoning() -> None:
    completion = read("<think>I don't need a <tool_call> for this.</think> The answer is 42.")
    assert (completion.reasoning, completion.text) == ("I don't need a <tool_call> for this.", "The answer is 42.")
    assert completion.tool_calls == completion.tool_call_errors == []


@pytest.mark.parametrize(
    "text",
    [
        "Wrap each call in <tool_call> and </tool_call> tags.",
        "A <tool_call>, then the JSON.",
        "No <tool_call> needed: 2 + 2 = 4.\nNext line.",
        "Mention at the end: <tool_call> tag",
        "<tool_call> is the tag the template uses.",
    ],
)
def test_a_tool_call_tag_mentioned_in_prose_stays_text(text: str) -> None:
    completion = read(text)
    assert completion.text == text
    assert completion.tool_calls == completion.tool_call_errors == []


def test_a_call_after_a_mention_is_still_a_call() -> None:
    call = '<tool_call>\n{"name": "run", "arguments": {"cmd": "ls"}}\n</tool_call>'
    completion = read(f"Using a <tool_call> now.\n{call}")
    assert calls(completion) == [("run", {"cmd": "ls"})]
    assert completion.text == "Using a <tool_call> now."


def test_a_pythonic_call_in_tool_call_tags_is_an_error_not_text() -> None:
    completion = read("<tool_call>run(cmd='ls')</tool_call>")
    [error] = completion.tool_call_errors
    assert "holds no JSON object" in error.message


# ---------------------------------------------------------------- 4: null for optional values


@pytest.mark.parametrize("written", ["null", "None", " null "])
def test_null_for_a_nullable_string_is_none(written: str) -> None:
    text = (
        f"<tool_call>\n<function=configure>\n<parameter=name>\nx\n</parameter>\n<parameter=note>\n{written}\n"
        f"</parameter>\n<parameter=label>\n{written}\n</parameter>\n</function>\n</tool_call>"
    )
    assert calls(read(text)) == [("configure", {"name": "x", "note": None, "label": None})]


def test_null_for_a_plain_string_stays_the_word() -> None:
    assert calls(read(xml("configure", {"name": "null"}))) == [("configure", {"name": "null"})]


# ---------------------------------------------------------------- 5: JSON arguments in the XML form


@pytest.mark.parametrize(
    "text",
    [
        '<tool_call>\n<function=run>\n{"cmd": "echo </function> </tool_call>"}\n</function>\n</tool_call>',
        '<tool_call><function=run>{"cmd": "echo </function> </tool_call>"}</function></tool_call>',
        "<function=run>\n{'cmd': 'echo </function> </tool_call>',}\n</function>",
    ],
)
def test_json_arguments_inside_the_xml_form_are_a_call(text: str) -> None:
    assert calls(read(text)) == [("run", {"cmd": "echo </function> </tool_call>"})]


# ---------------------------------------------------------------- 6: wrappers of bare JSON calls

BARE = '{"name": "run", "arguments": {"cmd": "ls"}}'


@pytest.mark.parametrize(
    ("opener", "closer"),
    [
        ("```json\n", "\n```"),
        ("```\n", "```"),
        ("<tools>\n", "\n</tools>"),
        ("<tool>", "</tool>"),
        ("<response>", "</response>"),
        ("<json>\n", "\n</json>"),
        ("<xml>", "</xml>"),
    ],
)
def test_a_bare_call_leaves_no_empty_wrapper_in_the_text(opener: str, closer: str) -> None:
    completion = read(f"I will list the files.\n{opener}{BARE}{closer}\nThen read them.")
    assert calls(completion) == [("run", {"cmd": "ls"})]
    assert completion.text == "I will list the files.\n\nThen read them."
    assert calls(read(f"{opener}{BARE}{closer}")) == [("run", {"cmd": "ls"})]
    assert read(f"{opener}{BARE}{closer}").text == ""


@pytest.mark.parametrize(
    "text",
    [
        '```json\n{"version": "1.0"}\n```',
        '<json>\n{"a": 1}\n</json>',
        "```python\nprint({1: 2})\n```",
        "<tools>\nnone\n</tools>",
        '```json\n{"name": "my-package"}\n```',
    ],
)
def test_a_wrapper_around_anything_but_a_call_stays_text(text: str) -> None:
    completion = read(text)
    assert completion.text == text
    assert completion.tool_calls == []


# ---------------------------------------------------------------- 7: double-encoded objects


@pytest.mark.parametrize(
    "options",
    ["{'key': 'value', 'n': 1}", '{"key": "value", "n": 1}', "{'key': 'value', 'n': 1,}"],
)
def test_an_object_given_as_a_string_of_itself_is_the_object(options: str) -> None:
    body = json.dumps({"name": "configure", "arguments": {"name": "x", "options": options, "limit": options}})
    expected = {"name": "x", "options": {"key": "value", "n": 1}, "limit": {"key": "value", "n": 1}}
    assert calls(read(f"<tool_call>\n{body}\n</tool_call>")) == [("configure", expected)]
    quoted = json.dumps(options)
    text = xml("configure", {"name": "x"}).replace(
        "</function>", f"<parameter=options>\n{quoted}\n</parameter>\n</function>"
    )
    assert calls(read(text)) == [("configure", {"name": "x", "options": {"key": "value", "n": 1}})]


def test_an_array_given_as_a_string_is_the_array_and_a_string_parameter_keeps_its_braces() -> None:
    body = json.dumps({"name": "configure", "arguments": {"name": "{'a': 1}", "tags": '["a", "b"]'}})
    assert calls(read(f"<tool_call>\n{body}\n</tool_call>")) == [
        ("configure", {"name": "{'a': 1}", "tags": ["a", "b"]})
    ]


def test_a_string_that_is_not_an_object_stays_a_string_and_validation_names_it() -> None:
    body = json.dumps({"name": "configure", "arguments": {"name": "x", "options": "{not json"}})
    [error] = read(f"<tool_call>\n{body}\n</tool_call>").tool_call_errors
    assert "'options' should be object" in error.message


# ---------------------------------------------------------------- a call drafted inside <think>

DRAFT = xml("run", {"cmd": "ls"})


def test_a_call_drafted_in_reasoning_and_then_made_runs_once() -> None:
    completion = read(f"<think>I will call:\n{DRAFT}\n</think>\n\n{DRAFT}")
    assert calls(completion) == [("run", {"cmd": "ls"})]
    assert completion.reasoning == "I will call:"  # its markup leaves the reasoning (issue 51)


def test_a_call_only_in_reasoning_runs() -> None:
    completion = read(f"<think>Listing.\n{DRAFT}\n</think>")
    assert calls(completion) == [("run", {"cmd": "ls"})]


def test_a_draft_followed_by_a_different_real_call_does_not_run() -> None:
    completion = read(f"<think>{DRAFT}\nNo, better:</think>\n{xml('run', {'cmd': 'ls -la'})}")
    assert calls(completion) == [("run", {"cmd": "ls -la"})]


def test_a_broken_call_in_reasoning_is_no_error() -> None:
    completion = read('<think>Like <tool_call>\n{"name": run}\n</tool_call> maybe.</think>Answer.')
    assert completion.tool_call_errors == []
    assert completion.text == "Answer."


# ---------------------------------------------------------------- round trip, any call syntax in values

EDIT = ToolSpec(
    "edit",
    "Edit",
    {
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "old": {"type": "string"},
            "new": {"type": "string"},
            "count": {"type": "integer"},
            "meta": {"type": "object"},
        },
        "required": ["path", "old"],
    },
)
SYNTAX = [
    "<tool_call>",
    "</tool_call>",
    "<function=edit>",
    "<function=run>",
    "</function>",
    "<parameter=path>",
    "<parameter=new>",
    "<parameter=old>",
    "<parameter=x>",
    "</parameter>",
    "<think>",
    "</think>",
    "\n",
    " ",
    "{",
    "}",
    '"',
    "```",
    "<tools>",
    "null",
    "<|im_end|>",
]
_OPENS = re.compile(r"<tool_call>(?=\s*(?:<function=|\{))|<function=[^>\n]*>")


_COMPACT_END = re.compile(r"</parameter>[ \t]*(<parameter=|</function>)")


def ambiguous(value: str) -> bool:
    """The texts no reading can tell from something else: a value ending in `</parameter>` (read as the
    duplicate Qwen 3.6 writes), one holding the end of a value written compactly, all on one line (read
    as that end when nothing else fits), and one that ends a call and then opens another (read as two
    calls)."""
    if value.rstrip().endswith("</parameter>") or _COMPACT_END.search(value):
        return True
    closes = [value.find(tag) for tag in ("</parameter>", "</function>", "</tool_call>") if tag in value]
    return bool(closes) and _OPENS.search(value, min(closes)) is not None


call_text = st.lists(st.text(max_size=6) | st.sampled_from(SYNTAX), max_size=10).map("".join)
call_text = call_text.filter(lambda value: not ambiguous(value))
_LINE_TAG = re.compile(r"(?:^|\n)<parameter=([^>\n]*)>")


def swallows(arguments: dict[str, Any]) -> bool:
    """Whether a value holds, at a line start, the tag of a parameter the schema declares and the call
    does not give (read as a `</parameter>` the model dropped there, as the peers read it), or a closed
    value and the tag of a parameter given with that same value (read as the model writing it twice):
    issue 51, xmlreading's docstring."""
    declared = EDIT.parameters["properties"]
    strings = [value for value in arguments.values() if isinstance(value, str)]
    dropped = any(
        name in declared and name not in arguments for value in strings for name in _LINE_TAG.findall(value)
    )
    repeated = any(
        isinstance(given, str) and given.strip()
        and re.search(rf"</parameter>\s*<parameter={re.escape(name)}>\s*{re.escape(given.strip())}\s", value + "\n")
        for value in strings
        for name, given in arguments.items()
    )
    return dropped or repeated


@st.composite
def edit_arguments(draw: st.DrawFn) -> dict[str, Any]:
    arguments: dict[str, Any] = {"path": draw(call_text), "old": draw(call_text)}
    if draw(st.booleans()):
        arguments["new"] = draw(call_text)
    if draw(st.booleans()):
        arguments["count"] = draw(st.integers())
    if draw(st.booleans()):
        arguments["meta"] = draw(st.dictionaries(st.text(max_size=4), call_text, max_size=2))
    keys = draw(st.permutations(list(arguments)))
    assume(not swallows(arguments))
    return {key: arguments[key] for key in keys}


@settings(max_examples=200, deadline=None)
@given(edit_arguments(), st.sampled_from(["xml", "json"]), st.lists(st.integers(0, 10_000), max_size=6))
def test_any_call_syntax_in_values_round_trips_as_the_template_writes_it(
    arguments: dict[str, Any], form: str, cuts: list[int]
) -> None:
    if form == "xml":
        text = xml("edit", arguments)
    else:
        text = f"<tool_call>\n{json.dumps({'name': 'edit', 'arguments': arguments}, ensure_ascii=False)}\n</tool_call>"
    whole = parse_reply(text, (EDIT,), id_factory=counter())
    parser = ReplyParser((EDIT,), id_factory=counter())
    pieces: list[Event] = []
    bounds = sorted({0, len(text), *(cut % (len(text) + 1) for cut in cuts)})
    for start, end in itertools.pairwise(bounds):
        pieces += parser.feed(text[start:end])
    assert merged(pieces + parser.finish()) == merged(whole)
    completion = Completion()
    for event in whole:
        completion.add(event)
    assert calls(completion) == [("edit", arguments)]
