"""XML tool calls (Qwen3-Coder, Qwen 3.5) through ReplyParser and parse_reply: the form the models
were trained on, the damage they do to it, and its mix with Qwen 3's JSON calls."""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from qwen_runtime.parsing import ReplyParser, parse_reply
from qwen_runtime.parsing.xmlcalls import render_xml_call
from qwen_runtime.types import Event, ToolSpec

from .reading import counter, fold, merged

WRITE = ToolSpec(
    "write_file",
    "Write a file",
    {
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "content": {"type": "string"},
            "mode": {"type": "integer"},
            "append": {"type": "boolean"},
            "meta": {"type": "object"},
            "tags": {"type": "array"},
            "ratio": {"type": ["number", "null"]},
        },
        "required": ["path"],
    },
)
RUN = ToolSpec("run", "Run", {"type": "object", "properties": {"cmd": {"type": "string"}}, "required": ["cmd"]})
TOOLS = (WRITE, RUN)


def calls(text: str, **kwargs: Any) -> list[tuple[str, dict[str, Any]]]:
    completion = fold(parse_reply(text, TOOLS, **kwargs))
    assert completion.tool_call_errors == [], completion.tool_call_errors
    return [(c.name, c.arguments) for c in completion.tool_calls]


def fed(text: str, cuts: list[int], **kwargs: Any) -> list[Event]:
    parser = ReplyParser(TOOLS, id_factory=counter(), **kwargs)
    events: list[Event] = []
    bounds = sorted({0, len(text), *(cut % (len(text) + 1) for cut in cuts)})
    for start, end in itertools.pairwise(bounds):
        events += parser.feed(text[start:end])
    return events + parser.finish()


def xml(name: str, arguments: dict[str, Any]) -> str:
    return f"<tool_call>\n{render_xml_call(name, arguments)}\n</tool_call>"


# ---------------------------------------------------------------- examples


def test_the_trained_form_parses_with_values_converted_to_the_schema_types() -> None:
    text = (
        "I will write it.\n\n<tool_call>\n<function=write_file>\n<parameter=path>\nsrc/a.py\n</parameter>\n"
        "<parameter=mode>\n644\n</parameter>\n<parameter=append>\nTrue\n</parameter>\n"
        '<parameter=meta>\n{"owner": "me", "n": [1, 2]}\n</parameter>\n<parameter=ratio>\nnull\n</parameter>\n'
        "</function>\n</tool_call>"
    )
    completion = fold(parse_reply(text, TOOLS))
    assert completion.text == "I will write it."
    assert [(c.name, c.arguments) for c in completion.tool_calls] == [
        ("write_file", {"path": "src/a.py", "mode": 644, "append": True, "meta": {"owner": "me", "n": [1, 2]},
                        "ratio": None})
    ]


def test_code_values_keep_angle_brackets_newlines_and_their_own_closing_tags() -> None:
    content = 'if a < b and c > d:\n    print("</parameter> is just text here")\n\n<div>\n</div>\n'
    assert calls(xml("write_file", {"path": "x.html", "content": content})) == [
        ("write_file", {"path": "x.html", "content": content})
    ]


def test_missing_closing_tags_are_forgiven() -> None:
    no_param_close = "<tool_call>\n<function=run>\n<parameter=cmd>\nls -la\n</function>\n</tool_call>"
    no_function_close = "<tool_call>\n<function=run>\n<parameter=cmd>\nls -la\n</parameter>\n</tool_call>"
    no_call_close = "<tool_call>\n<function=run>\n<parameter=cmd>\nls -la\n</parameter>\n</function>\n"
    for text in (no_param_close, no_function_close, no_call_close):
        assert calls(text) == [("run", {"cmd": "ls -la"})], text
    # a dropped `</parameter>` before the next parameter of the schema is forgiven, required or not
    # (issue 51: the peers end the value there too); the tag of a parameter the call gives later, or of
    # one the schema does not declare, stays text of the value (test_wild_calls: values holding call syntax)
    needs_both = ToolSpec("put", "", {"type": "object", "properties": {"path": {"type": "string"},
                          "content": {"type": "string"}}, "required": ["path", "content"]})
    next_param = (
        "<tool_call>\n<function=put>\n<parameter=path>\na.txt\n<parameter=content>\nhi\n</parameter>\n"
        "</function>\n</tool_call>"
    )
    completion = fold(parse_reply(next_param, (needs_both,)))
    assert [c.arguments for c in completion.tool_calls] == [{"path": "a.txt", "content": "hi"}]
    assert calls(next_param.replace("=put>", "=write_file>")) == [
        ("write_file", {"path": "a.txt", "content": "hi"})
    ]


def test_a_close_tag_that_drifted_ends_an_unclosed_value_and_is_not_its_text() -> None:
    """SGLang's grammar-drift cases (issue 51): a value whose `</parameter>` came out as `</parameter1>`,
    `</parameter_x>` or a bare `</parameter` ends before that tag; the tag must not reach the tool as
    part of the value. A value closed by a real `</parameter>` keeps such an ending as its own text."""
    for drifted in ("</parameter1>", "</parameter_function>", "</parameter"):
        text = (
            f"<tool_call>\n<function=write_file>\n<parameter=path>\na.txt\n{drifted}\n"
            "<parameter=mode>\n3\n</parameter>\n</function>\n</tool_call>"
        )
        assert calls(text) == [("write_file", {"path": "a.txt", "mode": 3})], drifted
        assert merged(fed(text, [5, 40, 61])) == merged(parse_reply(text, TOOLS, id_factory=counter()))
    closed = xml("write_file", {"path": "a.txt", "content": "<config>\n  <p>1</p>\n</parameters>"})
    assert calls(closed) == [("write_file", {"path": "a.txt", "content": "<config>\n  <p>1</p>\n</parameters>"})]


def test_json_and_xml_calls_mix_in_one_reply_and_inside_think() -> None:
    text = (
        "<think>first list <tool_call>\n<function=run>\n<parameter=cmd>\nls\n</parameter>\n</function>\n"
        "</tool_call> then read</think>\n"
        '<tool_call>\n{"name": "run", "arguments": {"cmd": "cat a"}}\n</tool_call>\n'
        + xml("write_file", {"path": "b", "content": "x"})
    )
    completion = fold(parse_reply(text, TOOLS))
    assert completion.reasoning == "first list  then read"
    # the call drafted in the reasoning leaves its text (issue 51) and is not run: real calls come after it
    assert [(c.name, c.arguments) for c in completion.tool_calls] == [
        ("run", {"cmd": "cat a"}), ("write_file", {"path": "b", "content": "x"})
    ]


def test_a_functions_prefix_on_the_name_is_dropped_in_both_forms() -> None:
    assert calls(xml("functions.run", {"cmd": "ls"})) == [("run", {"cmd": "ls"})]
    assert calls('<tool_call>\n{"name": "functions.run", "arguments": {"cmd": "ls"}}\n</tool_call>') == [
        ("run", {"cmd": "ls"})
    ]


def test_comments_in_call_json_are_removed() -> None:
    text = (
        '<tool_call>\n{"name": "run", // the tool\'s name {\n "arguments": /* "quoted" } */ {"cmd": "a // b"}}\n'
        "</tool_call>"
    )
    assert calls(text) == [("run", {"cmd": "a // b"})]
    for size in (1, 2, 5):
        parser = ReplyParser(TOOLS)
        events = [e for i in range(0, len(text), size) for e in parser.feed(text[i : i + size])]
        assert [(c.name, c.arguments) for c in fold(events + parser.finish()).tool_calls] == [
            ("run", {"cmd": "a // b"})
        ]


def test_bad_xml_calls_are_errors_that_say_what_is_wrong() -> None:
    unknown = fold(parse_reply(xml("delete", {"path": "a"}), TOOLS))
    assert "unknown tool 'delete'" in unknown.tool_call_errors[0].message
    wrong_type = fold(parse_reply(xml("write_file", {"path": "a", "mode": "rw"}), TOOLS))
    assert "'mode' should be integer" in wrong_type.tool_call_errors[0].message
    missing = fold(parse_reply("<tool_call>\n<function=run>\n</function>\n</tool_call>", TOOLS))
    assert "missing required parameter 'cmd'" in missing.tool_call_errors[0].message
    cut = fold(parse_reply("<tool_call>\n<function=", TOOLS))
    assert "has no <function=NAME>" in cut.tool_call_errors[0].message
    assert "(the reply ended before </tool_call>)" in cut.tool_call_errors[0].message


def test_text_after_a_call_whose_closing_tag_was_dropped_is_text() -> None:
    text = "<tool_call>\n<function=run>\n<parameter=cmd>\nls\n</parameter>\n</function>\nDone, listing."
    completion = fold(parse_reply(text, TOOLS))
    assert [c.arguments for c in completion.tool_calls] == [{"cmd": "ls"}]
    assert completion.text == "Done, listing."


# ---------------------------------------------------------------- properties

#: a closing tag followed by the next structural tag: a value holding this looks like the call's end
#: what the parser reads as structure: a closing tag before the next tag, or a duplicated `</parameter>`
#: (with several calls in a reply, one whose value ends like a call followed by another call is ambiguous)
_STRUCTURE = re.compile(
    r"</(parameter|function|tool_call)>\s*(<parameter=|</function>|</tool_call>|<tool_call>|</?think>)"
    r"|</parameter>\s*(</parameter>|$)"
)
value_text = st.lists(
    st.text(st.characters(codec="utf-8", exclude_characters="\r"), max_size=8)
    | st.sampled_from(["<", ">", "</", "\n", "    ", "</parameter>", "<parameter=x>", "</function>", "<tool_call>",
                       "</tool_call>", "<think>", "{", "}", '"', "def f():\n    return 1 < 2\n", "</parameter> ok"]),
    max_size=6,
).map("".join)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=6),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=5), children, max_size=3),
    max_leaves=6,
)


@st.composite
def write_arguments(draw: st.DrawFn) -> dict[str, Any]:
    arguments: dict[str, Any] = {"path": draw(value_text.filter(lambda v: _STRUCTURE.search(v) is None))}
    if draw(st.booleans()):
        arguments["content"] = draw(value_text.filter(lambda v: _STRUCTURE.search(v) is None))
    if draw(st.booleans()):
        arguments["mode"] = draw(st.integers())
    if draw(st.booleans()):
        arguments["append"] = draw(st.booleans())
    if draw(st.booleans()):
        arguments["meta"] = draw(st.dictionaries(st.text(max_size=5), json_values, max_size=3))
    if draw(st.booleans()):
        arguments["tags"] = draw(st.lists(json_values, max_size=3))
    return arguments


@st.composite
def mixed_replies(draw: st.DrawFn) -> tuple[str, list[tuple[str, dict[str, Any]]]]:
    parts: list[str] = []
    made: list[tuple[bool, tuple[str, dict[str, Any]]]] = []
    prose = st.text(st.characters(codec="utf-8", exclude_characters="<>{}\"'"), max_size=12)
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["prose", "xml", "json", "xml_in_think"]))
        if kind == "prose":
            parts.append(draw(prose))
            continue
        arguments = draw(write_arguments())
        call = xml("write_file", arguments) if kind != "json" else (
            f"<tool_call>\n{json.dumps({'name': 'write_file', 'arguments': arguments})}\n</tool_call>"
        )
        parts.append(f"<think>{draw(prose)}\n{call}\n</think>" if kind == "xml_in_think" else f"\n{call}\n")
        made.append((kind == "xml_in_think", ("write_file", arguments)))
    # a call drafted inside <think> runs only when no real call comes after it
    expected = [call for index, (drafted, call) in enumerate(made)
                if not drafted or not any(not later for later, _ in made[index + 1 :])]
    return "".join(parts), expected


@settings(max_examples=150, deadline=None)
@given(mixed_replies(), st.lists(st.integers(0, 10_000), max_size=12))
def test_mixed_replies_any_chunking_same_events_and_every_call_recovered(
    reply: tuple[str, list[tuple[str, dict[str, Any]]]], cuts: list[int]
) -> None:
    text, expected = reply
    whole = parse_reply(text, TOOLS, id_factory=counter())
    assert merged(fed(text, cuts)) == merged(whole)
    completion = fold(whole)
    assert completion.tool_call_errors == []
    assert [(c.name, c.arguments) for c in completion.tool_calls] == expected


@settings(max_examples=100, deadline=None)
@given(value_text, st.lists(st.integers(0, 10_000), max_size=8))
def test_a_string_value_round_trips_unless_it_imitates_the_structure(value: str, cuts: list[int]) -> None:
    assume(_STRUCTURE.search(value) is None)
    text = xml("run", {"cmd": value})
    assert calls(text) == [("run", {"cmd": value})]
    assert [c.call.arguments for c in fed(text, cuts) if c.type == "tool_call"] == [{"cmd": value}]


fragments = st.one_of(
    st.text(max_size=8),
    st.sampled_from(["<tool_call>", "</tool_call>", "<function=run>", "<function=", "<parameter=cmd>",
                     "</parameter>", "</function>", "<think>", "</think>", "\n", "<", "{", '"', "<fun"]),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(fragments, max_size=14).map("".join), st.lists(st.integers(0, 10_000), max_size=12))
def test_chaotic_xml_any_chunking_same_events_and_never_raises(text: str, cuts: list[int]) -> None:
    parser = ReplyParser(TOOLS, id_factory=counter())
    whole = parser.feed(text) + parser.finish()
    assert merged(fed(text, cuts)) == merged(whole)


def test_values_without_a_simple_type_are_json_and_unknown_parameters_stay_text() -> None:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"v": {"anyOf": [{"type": "string"}, {"type": "integer"}]}},
        "additionalProperties": True,
    }
    text = '<tool_call>\n<function=pick>\n<parameter=v>\n"abc"\n</parameter>\n<parameter=w>\n12\n</parameter>\n' \
        "</function>\n</tool_call>"
    completion = fold(parse_reply(text, (ToolSpec("pick", "", schema),)))
    assert [c.arguments for c in completion.tool_calls] == [{"v": "abc", "w": "12"}]
    # a parameter the schema neither declares nor allows does not end a value: it is the value's text
    closed = ToolSpec("pick", "", {**schema, "additionalProperties": False})
    completion = fold(parse_reply(text, (closed,)))
    assert [c.arguments for c in completion.tool_calls] == [{"v": '"abc"\n</parameter>\n<parameter=w>\n12'}]


def test_an_xml_call_without_its_opening_tag_at_the_start_of_a_line_is_a_call() -> None:
    text = "Listing.\n<function=run>\n<parameter=cmd>\nls\n</parameter>\n</function>\n</tool_call>\nok"
    completion = fold(parse_reply(text, TOOLS))
    assert [c.arguments for c in completion.tool_calls] == [{"cmd": "ls"}]
    assert completion.text == "Listing.\n\nok"
    assert fold(parse_reply("see <function=run> in the docs", TOOLS)).text == "see <function=run> in the docs"
