"""Issue 51, the parser's part: XML calls read with the tool's schema, as the peers read them.

1. Wrong arguments, silently: a value no longer swallows the parameter that follows it when the model
   drops `</parameter>`, nor a parameter Qwen3-Coder-Next writes a second time.

Every shape is read whole and streamed in chunks of 1, 3 and 7 characters, which must read the same.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import pytest
from qwen_runtime.parsing import ReplyParser, parse_reply
from qwen_runtime.parsing.xmlcalls import render_xml_call
from qwen_runtime.types import Completion, Event, ReasoningDelta, TextDelta, ToolSpec

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


def counter() -> Callable[[], str]:
    numbers = itertools.count()
    return lambda: f"id{next(numbers)}"


def merged(events: list[Event]) -> list[Event]:
    out: list[Event] = []
    for event in events:
        last = out[-1] if out else None
        if isinstance(event, TextDelta) and isinstance(last, TextDelta):
            out[-1] = TextDelta(last.text + event.text)
        elif isinstance(event, ReasoningDelta) and isinstance(last, ReasoningDelta):
            out[-1] = ReasoningDelta(last.text + event.text)
        else:
            out.append(event)
    return out


def fold(events: list[Event]) -> Completion:
    completion = Completion()
    for event in events:
        completion.add(event)
    return completion


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
