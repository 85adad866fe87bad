"""ReplyParser and parse_reply on the replies (and damage) small Qwen models really produce."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from typing import Any

import pytest
from qwen_runtime.parsing import ReplyParser, parse_reply
from qwen_runtime.types import (
    Completion,
    Event,
    ReasoningDelta,
    TextDelta,
    ToolCallError,
    ToolCallEvent,
    ToolSpec,
)

from .reading import fold

TOOLS = (
    ToolSpec(
        "read_file",
        "Read a file",
        {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
    ),
    ToolSpec(
        "edit_file",
        "Edit a file",
        {
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "old_text": {"type": "string"},
                "new_text": {"type": "string"},
            },
            "required": ["path", "old_text", "new_text"],
        },
    ),
)


def counter() -> Callable[[], str]:
    numbers = itertools.count(1)
    return lambda: f"call_{next(numbers)}"


def parse(text: str, tools: tuple[ToolSpec, ...] = TOOLS, **kwargs: Any) -> Completion:
    return fold(parse_reply(text, tools, id_factory=counter(), **kwargs))


def stream(text: str, tools: tuple[ToolSpec, ...] = TOOLS, **kwargs: Any) -> Completion:
    """Fed one character at a time: every tag split at every possible point."""
    parser = ReplyParser(tools, id_factory=counter(), **kwargs)
    events: list[Event] = []
    for char in text:
        events += parser.feed(char)
    return fold(events + parser.finish())


def calls(completion: Completion) -> list[tuple[str, dict[str, Any]]]:
    return [(call.name, call.arguments) for call in completion.tool_calls]


def both(text: str, **kwargs: Any) -> Completion:
    whole, pieces = parse(text, **kwargs), stream(text, **kwargs)
    assert whole.to_dict() == pieces.to_dict()
    return whole


# ---------------------------------------------------------------- thinking


def test_think_block_is_reasoning_and_the_rest_is_text() -> None:
    reply = both("<think>\nThe user wants a greeting.\n</think>\n\nHello there!")
    assert (reply.reasoning, reply.text) == ("The user wants a greeting.", "Hello there!")


def test_unclosed_think_at_the_end_is_all_reasoning() -> None:
    reply = both("<think>\nStill thinking about <b>it")
    assert (reply.reasoning, reply.text) == ("Still thinking about <b>it", "")


def test_starts_in_think_when_the_template_opened_it() -> None:
    reply = both("reasoning here\n</think>\n\nanswer", starts_in_think=True)
    assert (reply.reasoning, reply.text) == ("reasoning here", "answer")


def test_stray_think_close_makes_everything_before_it_reasoning_in_parse_reply() -> None:
    reply = parse("I should answer briefly.\n</think>\n\nHi!")
    assert (reply.reasoning, reply.text) == ("I should answer briefly.", "Hi!")


def test_stray_think_close_while_streaming_drops_the_tag_and_flags_it() -> None:
    parser = ReplyParser()
    events = parser.feed("I should answer.") + parser.feed("</think>Hi!") + parser.finish()
    assert fold(events).text == "I should answer.Hi!"
    assert parser.saw_stray_think_close


def test_empty_think_block_gives_no_reasoning() -> None:
    reply = both("<think>\n\n</think>\n\nJust the answer.")
    assert (reply.reasoning, reply.text) == ("", "Just the answer.")


def test_in_think_and_reasoning_chars_follow_the_stream() -> None:
    parser = ReplyParser()
    parser.feed("<thi")
    assert not parser.in_think
    parser.feed("nk>abc")
    assert parser.in_think
    assert parser.reasoning_chars == 3
    parser.feed("</think>done")
    assert not parser.in_think


def test_text_streams_promptly_and_only_a_possible_tag_is_held() -> None:
    parser = ReplyParser()
    assert parser.feed("Hello world, here is a long paragraph ") == [
        TextDelta("Hello world, here is a long paragraph")
    ]
    assert parser.feed("and <too") == [TextDelta(" and")]
    assert parser.feed("ls> are nice") == [TextDelta(" <tools> are nice")]
    assert parser.feed("<think") == []
    assert parser.feed("ing>") == [TextDelta("<thinking>")]


# ---------------------------------------------------------------- tool calls


CALL = '<tool_call>\n{"name": "read_file", "arguments": {"path": "src/app.py"}}\n</tool_call>'


def test_a_qwen_tool_call_with_prose_before_and_after() -> None:
    reply = both(f"Let me look at the file.\n{CALL}\nI asked for it.")
    assert calls(reply) == [("read_file", {"path": "src/app.py"})]
    assert reply.text.startswith("Let me look at the file.")
    assert reply.text.endswith("I asked for it.")
    assert reply.tool_call_errors == []


def test_several_calls_in_one_message_get_distinct_ids() -> None:
    reply = both(f"<think>two files</think>\n{CALL}\n{CALL.replace('src/app.py', 'README.md')}")
    assert calls(reply) == [("read_file", {"path": "src/app.py"}), ("read_file", {"path": "README.md"})]
    assert [call.id for call in reply.tool_calls] == ["call_1", "call_2"]
    assert reply.text == ""


def test_in_tool_call_is_true_inside_the_body() -> None:
    parser = ReplyParser(TOOLS)
    parser.feed("<tool_call>\n{")
    assert parser.in_tool_call
    assert [
        type(e) for e in parser.feed('"name": "read_file", "arguments": {"path": "a"}}\n</tool_call>')
    ] == [ToolCallEvent]
    assert not parser.in_tool_call


def test_dropped_opening_tag() -> None:
    reply = both('{"name": "read_file", "arguments": {"path": "a.py"}}\n</tool_call>')
    assert calls(reply) == [("read_file", {"path": "a.py"})]
    assert reply.text == ""


def test_call_written_inside_think_is_recovered_as_a_call() -> None:
    reply = both(f"<think>I need the file.\n{CALL}\n</think>")
    assert calls(reply) == [("read_file", {"path": "src/app.py"})]
    # the call leaves the reasoning text, as the peers take it out (issue 51; ReplyParser._emit_call)
    assert reply.reasoning == "I need the file."


def test_arguments_given_as_a_json_string() -> None:
    reply = both('<tool_call>{"name": "read_file", "arguments": "{\\"path\\": \\"a.py\\"}"}</tool_call>')
    assert calls(reply) == [("read_file", {"path": "a.py"})]


def test_close_tag_inside_a_json_string_does_not_end_the_call() -> None:
    content = 'print("</tool_call>")'
    reply = both(
        '<tool_call>{"name": "edit_file", "arguments": {"path": "a.py", "old_text": "x", '
        '"new_text": "print(\\"</tool_call>\\")"}}</tool_call>done'
    )
    assert calls(reply) == [("edit_file", {"path": "a.py", "old_text": "x", "new_text": content})]
    assert reply.text == "done"


def test_damaged_json_is_repaired() -> None:
    reply = both(
        "<tool_call>\n{'name': 'edit_file', 'arguments': {'path': 'a.py', 'old_text': 'a\n\tb', "
        "'new_text': None or 'c',},}\n</tool_call>".replace("None or ", "")
    )
    assert calls(reply) == [("edit_file", {"path": "a.py", "old_text": "a\n\tb", "new_text": "c"})]


def test_missing_close_tag_at_the_end_parses_what_is_there() -> None:
    reply = both('<tool_call>\n{"name": "read_file", "arguments": {"path": "a.py"')
    assert calls(reply) == [("read_file", {"path": "a.py"})]


def test_missing_close_tag_before_more_text() -> None:
    reply = both('<tool_call>{"name": "read_file", "arguments": {"path": "a.py"}}\nNow I wait.')
    assert calls(reply) == [("read_file", {"path": "a.py"})]
    assert reply.text == "Now I wait."


def test_missing_close_tag_before_the_next_call() -> None:
    reply = both(CALL.replace("</tool_call>", "") + CALL)
    assert len(reply.tool_calls) == 2


@pytest.mark.parametrize(
    "body",
    [
        '{"name": "read_file", "parameters": {"path": "a.py"}}',
        '{"function": {"name": "read_file", "arguments": {"path": "a.py"}}}',
        '{"type": "function", "function": {"name": "read_file", "arguments": "{\\"path\\": \\"a.py\\"}"}}',
        '```json\n{"name": "read_file", "arguments": {"path": "a.py"}}\n```',
    ],
)
def test_hermes_openai_and_fenced_shapes(body: str) -> None:
    assert calls(both(f"<tool_call>{body}</tool_call>")) == [("read_file", {"path": "a.py"})]


def test_bare_json_call_to_an_offered_tool() -> None:
    reply = both('{"name": "read_file", "arguments": {"path": "a.py"}}')
    assert calls(reply) == [("read_file", {"path": "a.py"})]
    assert reply.text == ""


def test_bare_json_naming_no_offered_tool_stays_text() -> None:
    text = '{"name": "my-package", "version": "1.0"}'
    assert both(text).text == text
    assert both('{"name": "read_file", "arguments": {}}', tools=()).tool_calls == []


def test_json_in_prose_or_mid_line_is_text_and_not_held_long() -> None:
    parser = ReplyParser(TOOLS)
    assert parser.feed('Use {"name": "read_file"} like this') == [
        TextDelta('Use {"name": "read_file"} like this')
    ]
    assert parser.feed('\n{"path": 1}') == [TextDelta('\n{"path": 1}')]


def test_unparseable_call_is_an_error_event_with_raw_and_a_specific_message() -> None:
    reply = both('<tool_call>{"name": "read_file", "arguments": {"path": "a.py" "x": 1}}</tool_call>')
    [error] = reply.tool_call_errors
    assert error.name == "read_file"
    assert error.raw == '{"name": "read_file", "arguments": {"path": "a.py" "x": 1}}'
    assert error.message.startswith("tool call is not valid JSON: unexpected '\"', expected ',' or '}'")
    assert error.id == "call_1"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            '{"name": "write_file", "arguments": {}}',
            "unknown tool 'write_file'; available tools: read_file, edit_file",
        ),
        ('{"name": "read_file", "arguments": {}}', "missing required parameter 'path'"),
        (
            '{"name": "read_file", "arguments": {"path": 3}}',
            "parameter 'path' should be string, got integer 3",
        ),
        ('{"name": "read_file", "arguments": [1]}', '"arguments" must be a JSON object, got array'),
        ('{"arguments": {"path": "a"}}', 'tool call has no "name" string'),
        ("read_file(path='a.py')", "tool call holds no JSON object"),
        ('{"name": "read_file", "arguments": "{path: a}"}', '"arguments" is a string that is not valid JSON'),
    ],
)
def test_invalid_calls_become_errors_naming_the_problem(body: str, message: str) -> None:
    reply = both(f"<tool_call>\n{body}\n</tool_call>")
    assert reply.tool_calls == []
    [error] = reply.tool_call_errors
    assert message in error.message


def test_unterminated_string_at_the_end_is_an_error_that_says_the_reply_ended() -> None:
    [error] = both(
        '<tool_call>{"name": "edit_file", "arguments": {"path": "a.py", "new_text": "abc'
    ).tool_call_errors
    assert error.name == "edit_file" and not error.truncated
    assert "never closed: the reply ended inside its JSON, before its arguments were whole" in error.message


@pytest.mark.parametrize("text", [
    '<tool_call>\n{"name": "get_weather", "arguments": {',  # the peers' cut fragment, JSON form
    'Plan</think>Before<tool_call>\n{"name": "get_weather", "arguments": {',
    '<tool_call>\n{"name": "get_weather"',
    '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris",',
    '<tool_call>\n{"name": "get_weather", "arguments": {"city": "',
    '<tool_call>\n{"name": "get_weather", "arguments": {"city":',
])
def test_a_json_call_cut_before_a_whole_value_is_never_run(text: str) -> None:
    """The JSON form's counterpart of `<tool_call><function=get_weather>` and the end (issue 51, class
    2): repair would make get_weather({}) of it, which runs when no parameter is required."""
    weather = ToolSpec("get_weather", "", {"type": "object", "properties": {"city": {"type": "string"}}})
    reply = fold(parse_reply(text, (weather,), id_factory=counter()))
    assert not reply.tool_calls
    [error] = reply.tool_call_errors
    assert error.name == "get_weather" and "never closed" in error.message


def test_a_json_call_whose_last_value_closed_runs_without_its_closing_brackets() -> None:
    """As an XML call whose last `</parameter>` came: only brackets are missing, the arguments are whole."""
    weather = ToolSpec("get_weather", "", {"type": "object", "properties": {"city": {"type": "string"},
                                                                          "days": {"type": "integer"}}})
    for text, arguments in [('{"city": "Paris"', {"city": "Paris"}), ('{"days": 3', {"days": 3}), ("{}", {})]:
        reply = fold(parse_reply(f'<tool_call>\n{{"name": "get_weather", "arguments": {text}', (weather,),
                                 id_factory=counter()))
        assert [(c.name, c.arguments) for c in reply.tool_calls] == [("get_weather", arguments)], text


def test_a_stray_quote_does_not_swallow_later_calls() -> None:
    reply = both(
        "<tool_call>{'name': 'read_file', 'arguments': {'path': 'it's.py'}}</tool_call>\nRetrying.\n" + CALL
    )
    assert len(reply.tool_call_errors) == 1
    assert calls(reply) == [("read_file", {"path": "src/app.py"})]
    assert reply.text == "Retrying."


def test_without_tools_calls_are_parsed_but_not_validated() -> None:
    reply = both('<tool_call>{"name": "anything", "arguments": {"x": 1}}</tool_call>', tools=())
    assert calls(reply) == [("anything", {"x": 1})]


def test_default_ids_are_unique_call_ids() -> None:
    events = parse_reply(CALL + CALL, TOOLS)
    ids = [event.call.id for event in events if isinstance(event, ToolCallEvent)]
    assert len(set(ids)) == 2
    assert all(re.fullmatch(r"call_[0-9a-f]{12}", call_id) for call_id in ids)


def test_events_come_out_in_reply_order() -> None:
    events = parse_reply(f"<think>plan</think>Reading.\n{CALL}\nBroken:<tool_call>{{]</tool_call>", TOOLS)
    assert [type(event) for event in events] == [
        ReasoningDelta,
        TextDelta,
        ToolCallEvent,
        TextDelta,
        ToolCallError,
    ]


def test_feed_after_finish_is_a_programming_error() -> None:
    parser = ReplyParser()
    parser.finish()
    with pytest.raises(RuntimeError):
        parser.feed("x")
