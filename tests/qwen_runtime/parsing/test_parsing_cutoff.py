"""A call cut off at the token limit never becomes a runnable call (issue 33, class 2).

Each cut is parsed whole and streamed in chunks of 1, 3 and 7 characters: the events must be the same,
and with `truncated=True` (finish_reason "length") the cut call is one `ToolCallError` flagged
`truncated` that names the tool, with no `ToolCallEvent` for it.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from qwen_runtime.parsing import ReplyParser, parse_reply
from qwen_runtime.parsing.xmlcalls import render_xml_call
from qwen_runtime.types import Completion, Event, ToolCallError, ToolSpec

from .reading import counter, fold

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
TOOLS = (WRITE, RUN)
CHUNKS = (1, 3, 7)

XML_WRITE = (
    "<tool_call>\n<function=write_file>\n<parameter=path>\nsrc/app.py\n</parameter>\n"
    "<parameter=content>\nimport os\nprint(os.getcwd())\n</parameter>\n</function>\n</tool_call>"
)
JSON_WRITE = (
    '<tool_call>\n{"name": "write_file", "arguments": {"path": "src/app.py", '
    '"content": "import os\\nprint(os.getcwd())\\n"}}\n</tool_call>'
)


def streamed(text: str, size: int, *, truncated: bool) -> list[Event]:
    parser = ReplyParser(TOOLS, id_factory=counter())
    events: list[Event] = []
    for start in range(0, len(text), size):
        events += parser.feed(text[start : start + size])
    return events + parser.finish(truncated=truncated)


def every_way(text: str, *, truncated: bool) -> Completion:
    """The reply parsed whole and in chunks of 1, 3 and 7: the same events each time."""
    whole = parse_reply(text, TOOLS, id_factory=counter(), truncated=truncated)
    for size in CHUNKS:
        assert fold(streamed(text, size, truncated=truncated)) == fold(whole), (size, text)
    return fold(whole)


def cut_after(text: str, marker: str, extra: int = 0) -> str:
    return text[: text.index(marker) + len(marker) + extra]


CUTS = {
    # XML (Qwen3-Coder, Qwen 3.5)
    "xml mid-value": (cut_after(XML_WRITE, "import os\npri"), "write_file"),
    "xml mid-function-name": (cut_after(XML_WRITE, "<function=wri"), None),
    "xml mid-parameter-name": (cut_after(XML_WRITE, "<parameter=cont"), "write_file"),
    "xml after </parameter>": (cut_after(XML_WRITE, "getcwd())\n</parameter>\n"), "write_file"),
    "xml after </function>": (cut_after(XML_WRITE, "</function>"), "write_file"),
    "xml in </tool_call>": (cut_after(XML_WRITE, "</function>\n</tool_"), "write_file"),
    "xml after <tool_call>": (cut_after(XML_WRITE, "<tool_call>\n"), None),
    # JSON (Qwen 3)
    "json mid-value": (cut_after(JSON_WRITE, "import os\\npri"), "write_file"),
    "json mid-name": (cut_after(JSON_WRITE, '"write_f'), None),
    "json after the arguments": (cut_after(JSON_WRITE, 'getcwd())\\n"}'), "write_file"),
    "json whole object, no </tool_call>": (cut_after(JSON_WRITE, '\\n"}}'), "write_file"),
    "json in </tool_call>": (cut_after(JSON_WRITE, '"}}\n</tool_ca'), "write_file"),
    "json value holding </tool_call>": (
        '<tool_call>\n{"name": "write_file", "arguments": {"path": "t.md", "content": "end a call with </tool_call> '
        "and then",
        "write_file",
    ),
}


@pytest.mark.parametrize("name", list(CUTS))
def test_a_call_cut_at_the_token_limit_is_an_error_naming_the_tool_never_a_call(name: str) -> None:
    text, tool = CUTS[name]
    completion = every_way("I'll write it.\n" + text, truncated=True)
    assert completion.tool_calls == []
    assert len(completion.tool_call_errors) == 1
    error = completion.tool_call_errors[0]
    assert error.truncated
    assert error.name == tool
    assert "cut off at the token limit" in error.message
    assert "nothing was run" in error.message
    assert completion.text.strip() == "I'll write it."


def test_the_same_cuts_are_refused_in_reasoning_too() -> None:
    text = "<think>Let me write it.\n" + cut_after(XML_WRITE, "<parameter=content>\nimport")
    completion = every_way(text, truncated=True)
    assert completion.tool_calls == []
    assert [e.truncated for e in completion.tool_call_errors] == [True]


@pytest.mark.parametrize("text", [XML_WRITE, JSON_WRITE])
def test_a_closed_call_runs_even_when_the_reply_then_hit_the_limit(text: str) -> None:
    completion = every_way(text + "\nNow I will expl", truncated=True)
    assert [(c.name, c.arguments["path"]) for c in completion.tool_calls] == [("write_file", "src/app.py")]
    assert completion.tool_call_errors == []


def test_calls_closed_before_the_cut_run_and_only_the_cut_one_is_refused() -> None:
    second = '<tool_call>\n{"name": "run", "arguments": {"cmd": "rm -rf bui'
    completion = every_way(XML_WRITE + "\n" + second, truncated=True)
    assert [c.name for c in completion.tool_calls] == ["write_file"]
    assert [(e.name, e.truncated) for e in completion.tool_call_errors] == [("run", True)]


def test_a_call_whose_tool_call_tag_was_dropped_is_closed_by_its_function_tag() -> None:
    text = XML_WRITE.removeprefix("<tool_call>\n").removesuffix("\n</tool_call>")
    completion = every_way(text, truncated=True)
    assert [c.name for c in completion.tool_calls] == ["write_file"]
    cut = every_way(cut_after(text, "getcwd())\n</parameter>\n"), truncated=True)
    assert cut.tool_calls == []
    assert [e.truncated for e in cut.tool_call_errors] == [True]


def test_bare_json_is_closed_by_its_last_brace() -> None:
    text = '{"name": "run", "arguments": {"cmd": "ls"}}'
    assert [c.arguments for c in every_way(text, truncated=True).tool_calls] == [{"cmd": "ls"}]
    cut = every_way(text[:-3], truncated=True)
    assert cut.tool_calls == []


def test_without_the_flag_an_xml_call_cut_inside_a_value_is_an_unclosed_call_not_a_call() -> None:
    """Why the reply ended is unknown, but a call that stops inside a value never closed."""
    completion = every_way(cut_after(XML_WRITE, "import os\npri"), truncated=False)
    assert completion.tool_calls == []
    [error] = completion.tool_call_errors
    assert not error.truncated
    assert error.name == "write_file"
    assert "never closed" in error.message
    assert "'content'" in error.message
    assert "nothing was run" in error.message


def test_without_the_flag_a_call_missing_only_its_last_tags_is_still_forgiven() -> None:
    text = cut_after(XML_WRITE, "getcwd())\n</parameter>\n")
    assert [c.name for c in every_way(text, truncated=False).tool_calls] == ["write_file"]
    assert [c.name for c in every_way(cut_after(JSON_WRITE, '"}}'), truncated=False).tool_calls] == ["write_file"]


def test_the_error_is_in_the_completion_dict() -> None:
    completion = every_way(cut_after(JSON_WRITE, "import"), truncated=True)
    [error] = completion.to_dict()["tool_call_errors"]
    assert error["truncated"] is True
    assert error["name"] == "write_file"


def _error(events: list[Event]) -> list[ToolCallError]:
    return [e for e in events if isinstance(e, ToolCallError)]


values = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40)


@settings(max_examples=60, deadline=None)
@given(path=values, content=values, xml=st.booleans(), data=st.data())
def test_a_cut_anywhere_before_the_closing_tag_never_runs(
    path: str, content: str, xml: bool, data: st.DataObject
) -> None:
    arguments: dict[str, Any] = {"path": path or "a", "content": content}
    if xml:
        body = render_xml_call("write_file", arguments)
    else:
        body = json.dumps({"name": "write_file", "arguments": arguments}, ensure_ascii=False)
    text = f"<tool_call>\n{body}\n</tool_call>"
    cut = data.draw(st.integers(len("<tool_call>"), len(text) - 1), label="cut")
    events = parse_reply(text[:cut], TOOLS, truncated=True)
    assert not [e for e in events if e.type == "tool_call"], text[:cut]
    assert [e.truncated for e in _error(events)] == [True]
    size = data.draw(st.sampled_from(CHUNKS), label="chunk")
    assert fold(streamed(text[:cut], size, truncated=True)).tool_calls == []
