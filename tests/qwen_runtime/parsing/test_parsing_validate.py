"""validate_call: messages a model can act on, naming the tool, the parameter and the types."""

from __future__ import annotations

from qwen_runtime.parsing import validate_call
from qwen_runtime.types import ToolSpec

TOOLS = (
    ToolSpec(
        "read_file",
        "Read a file",
        {
            "type": "object",
            "properties": {"path": {"type": "string"}, "offset": {"type": "integer"}},
            "required": ["path"],
            "additionalProperties": False,
        },
    ),
    ToolSpec(
        "run_command",
        "Run a command",
        {
            "type": "object",
            "properties": {"command": {"type": "string"}, "mode": {"enum": ["fg", "bg"]}},
            "required": ["command"],
        },
    ),
)


def test_a_valid_call_passes() -> None:
    assert validate_call("read_file", {"path": "a.py", "offset": 3}, TOOLS) is None


def test_unknown_tool_lists_the_available_names() -> None:
    message = validate_call("write_file", {}, TOOLS)
    assert message == "unknown tool 'write_file'; available tools: read_file, run_command"


def test_arguments_that_are_not_an_object_say_what_they_were() -> None:
    assert validate_call("read_file", ["a.py"], TOOLS) == (
        'arguments of read_file must be a JSON object, got array ["a.py"]'
    )


def test_missing_required_parameter_is_named() -> None:
    assert (
        validate_call("read_file", {}, TOOLS)
        == "invalid arguments for read_file: missing required parameter 'path'"
    )


def test_wrong_type_names_parameter_expected_and_got() -> None:
    message = validate_call("read_file", {"path": "a.py", "offset": "12"}, TOOLS)
    assert (
        message == "invalid arguments for read_file: parameter 'offset' should be integer, got string \"12\""
    )


def test_unexpected_parameter_lists_the_accepted_ones() -> None:
    message = validate_call("read_file", {"path": "a", "file": "b"}, TOOLS)
    assert message == "invalid arguments for read_file: unexpected parameter 'file' (accepted: offset, path)"


def test_enum_violation_lists_the_options() -> None:
    message = validate_call("run_command", {"command": "ls", "mode": "x"}, TOOLS)
    assert (
        message == 'invalid arguments for run_command: parameter \'mode\' must be one of "fg", "bg", got "x"'
    )


def test_several_problems_are_all_reported() -> None:
    message = validate_call("read_file", {"offset": True}, TOOLS)
    assert message is not None
    assert "missing required parameter 'path'" in message
    assert "parameter 'offset' should be integer, got boolean true" in message


def test_a_broken_tool_schema_does_not_blame_the_model() -> None:
    broken = (ToolSpec("t", "", {"type": "no-such-type"}),)
    assert validate_call("t", {"a": 1}, broken) is None
