"""The onde API the seed documents (the tool-calling skill's onde tables) exists in the Python SDK.

The two tables below are copied verbatim from `shared/seed/tool-calling-skill.md` ("Layer 2: onde"):
code written against them must run. Every type, field and method they name is checked.
"""

from __future__ import annotations

import dataclasses
import re

import onde
import pytest
from onde import ChatEngine, ToolAwareResult, ToolCallRequest, ToolDefinition, ToolResult
from qwen_runtime.types import ToolCall

KEY_TYPES = """
| Type | Purpose |
|------|---------|
| `ToolDefinition` | `{ name, description, parameters_schema: String }` |
| `ToolCallRequest` | `{ id, function_name, arguments: String }` |
| `ToolResult` | `{ tool_call_id, content: String }` |
| `ToolAwareResult` | `{ text, tool_calls: Vec<ToolCallRequest>, duration_secs, ... }` |
"""

KEY_METHODS = """
| Method | Purpose |
|--------|---------|
| `send_message_with_tools(msg, &[ToolDefinition])` | Returns `ToolAwareResult` with possible tool calls |
| `send_tool_results(Vec<ToolResult>, Option<&[ToolDefinition]>)` | Feed results back; `None` forces text response |
"""

SAMPLES = {
    "ToolDefinition": ToolDefinition("read_file", "Read a file"),
    "ToolCallRequest": ToolCallRequest("c1", "read_file", '{"path": "a"}'),
    "ToolResult": ToolResult("c1", "text"),
    "ToolAwareResult": ToolAwareResult("hi"),
}


def _documented_types() -> list[tuple[str, list[str]]]:
    rows = re.findall(r"^\| `(\w+)` \| `\{ (.*) \}` \|$", KEY_TYPES, re.MULTILINE)
    return [
        (name, [part.split(":")[0].strip() for part in body.split(",") if part.strip() != "..."]) for name, body in rows
    ]


def test_the_tables_are_read_whole() -> None:
    assert [name for name, _ in _documented_types()] == list(SAMPLES)
    assert re.findall(r"^\| `(\w+)\(", KEY_METHODS, re.MULTILINE) == ["send_message_with_tools", "send_tool_results"]


@pytest.mark.parametrize(("type_name", "fields"), _documented_types())
def test_every_documented_type_and_field_exists(type_name: str, fields: list[str]) -> None:
    assert type_name in onde.__all__
    sample = SAMPLES[type_name]
    assert isinstance(sample, getattr(onde, type_name))
    for name in fields:
        assert hasattr(sample, name), f"onde.{type_name} has no `{name}` (the seed documents it)"
    declared = {f.name for f in dataclasses.fields(sample)}
    assert set(fields) <= declared, f"{type_name}: documented fields must be real fields, not only properties"


def test_every_documented_method_exists_on_the_engine() -> None:
    for name in re.findall(r"^\| `(\w+)\(", KEY_METHODS, re.MULTILINE):
        assert callable(getattr(ChatEngine, name, None)), f"ChatEngine has no {name}()"


def test_function_name_and_name_both_construct_and_read() -> None:
    positional = ToolCallRequest("c1", "ls", '{"path": "."}')
    documented = ToolCallRequest(id="c1", function_name="ls", arguments='{"path": "."}')
    alias = ToolCallRequest(id="c1", name="ls", arguments='{"path": "."}')
    assert positional == documented == alias
    for call in (positional, documented, alias):
        assert (call.function_name, call.name) == ("ls", "ls")
    assert dataclasses.replace(alias, arguments="{}").function_name == "ls"
    with pytest.raises(ValueError, match="one name"):
        ToolCallRequest("c1", function_name="ls", name="rm")
    with pytest.raises(ValueError, match="needs a name"):
        ToolCallRequest("c1")


def test_a_runtime_call_is_not_parsed_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """The runtime parsed the model's JSON already: the SDK keeps that object instead of re-reading text."""

    def no_parsing(text: str, what: str) -> object:
        raise AssertionError(f"{what} parsed again")

    runtime = ToolCall("c1", "edit_file", {"path": "a", "edits": [{"old_text": "x", "new_text": "y"}]})
    call = ToolCallRequest.from_runtime(runtime)
    monkeypatch.setattr("onde.types._json_object", no_parsing)
    assert call.parsed_arguments == runtime.arguments
    assert call.to_runtime() == runtime
    assert call.arguments == '{"path": "a", "edits": [{"old_text": "x", "new_text": "y"}]}'
