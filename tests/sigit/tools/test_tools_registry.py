"""The registry: the tool list, the schemas the model reads, and argument validation."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import Field
from sigit.tools import Tool, ToolArgs, ToolContext, ToolOutput, ToolRegistry, all_tools

EXPECTED = [
    "read_file",
    "create_directory",
    "list_directory",
    "search_files",
    "glob",
    "read_website",
    "create_file",
    "edit_file",
    "multi_edit",
    "delete_file",
    "run_command",
    "command_output",
    "kill_command",
    "write_todos",
    "remember",
]


def test_the_built_in_tools_are_exactly_these_fifteen(registry: ToolRegistry) -> None:
    assert registry.names() == EXPECTED
    assert [t.name for t in all_tools()] == EXPECTED


def test_read_only_tools_are_the_ones_that_change_nothing(registry: ToolRegistry) -> None:
    assert {t.name for t in registry.read_only_tools()} == {
        "read_file",
        "list_directory",
        "search_files",
        "glob",
        "read_website",
        "command_output",
        "write_todos",
    }


def _walk(node: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    if isinstance(node, dict):
        found.append(node)
        for value in node.values():
            found += _walk(value)
    elif isinstance(node, list):
        for value in node:
            found += _walk(value)
    return found


def test_specs_are_plain_json_schemas_without_noise(registry: ToolRegistry) -> None:
    for spec in registry.to_specs():
        schema = spec.parameters
        assert schema["type"] == "object"
        text = json.dumps(schema)
        assert "$defs" not in text and "$ref" not in text and "anyOf" not in text, spec.name
        for node in _walk(schema):
            assert "title" not in node or isinstance(node.get("title"), dict), spec.name
        for name, prop in schema["properties"].items():
            assert prop.get("description"), f"{spec.name}.{name} has no description"
            assert "type" in prop, f"{spec.name}.{name} has no type"
        assert spec.description


def test_optional_parameters_are_not_required_and_have_a_plain_type(registry: ToolRegistry) -> None:
    schema = next(s for s in registry.to_specs() if s.name == "read_file").parameters
    assert schema["required"] == ["path"]
    assert schema["properties"]["start_line"]["type"] == "integer"
    edits = next(s for s in registry.to_specs() if s.name == "multi_edit").parameters["properties"]["edits"]
    assert edits["items"]["required"] == ["old_text", "new_text"]


async def test_a_missing_argument_is_an_error_naming_it(registry: ToolRegistry, ctx: ToolContext) -> None:
    out = await registry.invoke("read_file", {}, ctx)
    assert out.is_error
    assert "`path` is required" in out.text


async def test_a_wrongly_typed_argument_is_an_error_naming_it(
    registry: ToolRegistry, ctx: ToolContext
) -> None:
    out = await registry.invoke("read_file", {"path": "a.txt", "start_line": "first"}, ctx)
    assert out.is_error
    assert "`start_line`" in out.text and "integer" in out.text


async def test_arguments_may_come_as_a_json_string(registry: ToolRegistry, ctx: ToolContext) -> None:
    (ctx.cwd / "a.txt").write_text("hello\n")
    out = await registry.invoke("read_file", '{"path": "a.txt"}', ctx)
    assert not out.is_error and out.text == "hello\n"
    bad = await registry.invoke("read_file", '{"path": ', ctx)
    assert bad.is_error and "not valid JSON" in bad.text
    wrong = await registry.invoke("read_file", ["a.txt"], ctx)
    assert wrong.is_error and "JSON object" in wrong.text


async def test_an_unknown_tool_suggests_the_closest_name(registry: ToolRegistry, ctx: ToolContext) -> None:
    out = await registry.invoke("read_files", {"path": "x"}, ctx)
    assert out.is_error and "Did you mean read_file?" in out.text


class _EchoArgs(ToolArgs):
    word: str = Field(description="A word.")


async def _echo(args: _EchoArgs, ctx: ToolContext) -> ToolOutput:
    return ToolOutput(args.word.upper())


async def _boom(args: _EchoArgs, ctx: ToolContext) -> ToolOutput:
    raise RuntimeError("kaput")


async def test_others_can_register_tools(registry: ToolRegistry, ctx: ToolContext) -> None:
    registry.register(Tool(name="echo", description="Echo.", params=_EchoArgs, run=_echo, read_only=True))
    assert "echo" in registry and len(registry) == 16
    assert (await registry.invoke("echo", {"word": "hi"}, ctx)).text == "HI"
    assert [s.name for s in registry.to_specs(["echo"])] == ["echo"]


def test_registering_a_name_twice_is_refused(registry: ToolRegistry) -> None:
    tool = Tool(name="read_file", description="x", params=_EchoArgs, run=_echo)
    try:
        registry.register(tool)
    except ValueError as exc:
        assert "already registered" in str(exc)
    else:
        raise AssertionError("duplicate accepted")


async def test_an_exception_inside_a_tool_becomes_an_error_result(ctx: ToolContext) -> None:
    reg = ToolRegistry([Tool(name="boom", description="x", params=_EchoArgs, run=_boom)])
    out = await reg.invoke("boom", {"word": "x"}, ctx)
    assert out.is_error and "RuntimeError: kaput" in out.text


def test_relative_paths_resolve_against_the_session_cwd_not_the_process(tmp_path: Path) -> None:
    ctx = ToolContext(cwd=tmp_path / "a" / "b")
    assert ctx.resolve("x.txt") == tmp_path / "a" / "b" / "x.txt"
    assert ctx.resolve("../c/x.txt") == tmp_path / "a" / "c" / "x.txt"
    assert ctx.display(tmp_path / "a" / "b" / "x.txt") == "x.txt"
    assert ctx.display(tmp_path / "a" / "c" / "x.txt") == str(tmp_path / "a" / "c" / "x.txt")
