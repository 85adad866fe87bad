"""Claude Code's command line and wire shapes, unit by unit: flags, the tool-name table, rules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sigit.frontends.claude_cli import is_claude_invocation
from sigit.frontends.claude_cli.flags import FlagError, parse
from sigit.frontends.claude_cli.setup import SetupError, prepare
from sigit.frontends.claude_cli.tool_names import (
    from_claude,
    rule_to_claude,
    rules_from_claude,
    split_rules,
    to_claude,
)
from sigit.tools import all_tools

BUILTIN = all_tools()
PYTHON_SDK_LINE = ["--output-format", "stream-json", "--verbose", "--system-prompt", "", "--model", "qwen3-8b",
                   "--permission-prompt-tool", "stdio", "--resume=abc123", "--setting-sources=user,project",
                   "--input-format", "stream-json"]


def test_sdk_command_lines_are_claude_and_ours_stay_ours() -> None:
    assert is_claude_invocation(PYTHON_SDK_LINE)
    assert is_claude_invocation(["-p", "hi", "--permission-mode", "acceptEdits"])  # old SDK, Claude's spelling
    assert not is_claude_invocation(["-p", "hi", "--output-format", "stream-json", "--permission-mode", "accept-edits"])
    assert not is_claude_invocation(["-p", "--", "--verbose"])  # a prompt, not a flag


def test_flags_in_both_forms_and_unknown_ones_accepted() -> None:
    args = parse([*PYTHON_SDK_LINE, "--fallback-model", "sonnet", "--betas=x,y", "--strict-mcp-config",
                  "--allowedTools", "Read,Bash(git log:*)", "--max-turns=3"])
    assert args.resume == "abc123" and args.input_format == "stream-json" and args.system_prompt == ""
    assert args.permission_prompt_tool == "stdio" and args.max_turns == 3 and args.model == "qwen3-8b"
    assert args.ignored == ["--fallback-model", "--betas", "--strict-mcp-config"]
    assert args.allowed_tools == ["Read,Bash(git log:*)"] and args.prompt is None  # "sonnet" was the flag's value


def test_print_takes_the_prompt_as_a_positional_argument() -> None:
    assert parse(["--print", "--verbose", "--", "fix the bug"]).prompt == "fix the bug"
    assert parse(["-p", "fix it", "--verbose"]).prompt == "fix it"


def test_bad_values_of_flags_we_implement_are_clear_errors() -> None:
    with pytest.raises(FlagError, match="--max-turns"):
        parse(["--verbose", "--max-turns", "0"])
    with pytest.raises(FlagError, match="permission-mode"):
        parse(["--verbose", "--permission-mode", "yolo"])
    mcp_prompt = prepare(parse(["--verbose", "--permission-prompt-tool", "mcp__auth__prompt"]))
    assert any("only `stdio`" in w for w in mcp_prompt.warnings)  # accepted: such calls are refused


def test_rules_in_claude_code_words_become_ours_and_back() -> None:
    assert split_rules(["Read,Bash(git log:*) Edit", "WebFetch"]) == ["Read", "Bash(git log:*)", "Edit", "WebFetch"]
    assert rules_from_claude("Bash(git *)", BUILTIN) == ["run_command(git *)"]
    assert rules_from_claude("Edit(src/*)", BUILTIN) == ["edit_file(src/*)", "create_file(src/*)", "multi_edit(src/*)",
                                                "delete_file(src/*)"]
    assert rules_from_claude("mcp__github__search", BUILTIN) == ["mcp__github__search"]
    assert rule_to_claude("run_command(npm test*)", BUILTIN) == "Bash(npm test*)"


def test_tool_inputs_in_claude_code_words_both_ways() -> None:
    assert to_claude("read_file", {"path": "a.py", "start_line": 10, "end_line": 19}, BUILTIN) == (
        "Read", {"file_path": "a.py", "offset": 10, "limit": 10})
    assert from_claude("Read", {"file_path": "a.py", "offset": 10, "limit": 10}, BUILTIN) == (
        "read_file", {"path": "a.py", "start_line": 10, "end_line": 19})
    edit = {"file_path": "a.py", "old_string": "x", "new_string": "y", "replace_all": True}
    assert from_claude("Edit", edit, BUILTIN) == ("edit_file", {"path": "a.py", "old_text": "x", "new_text": "y",
                                                       "replace_all": True})
    assert to_claude(*from_claude("Edit", edit, BUILTIN), BUILTIN) == ("Edit", edit)
    assert to_claude("multi_edit", {"path": "a", "edits": [{"old_text": "1", "new_text": "2"}]}, BUILTIN) == (
        "MultiEdit", {"file_path": "a", "edits": [{"old_string": "1", "new_string": "2"}]})
    assert to_claude("remember", {"note": "n"}, BUILTIN) == ("remember", {"note": "n"})  # no counterpart: ours


def test_settings_json_brings_rules_mode_and_model(workdir: Path) -> None:
    settings = json.dumps({"permissions": {"allow": ["Bash(npm test*)"], "deny": ["WebFetch"],
                                           "defaultMode": "acceptEdits"}, "model": "qwen3-4b", "env": {"A": "1"}})
    setup = prepare(parse(["--verbose", "--cwd", str(workdir), "--settings", settings,
                           "--allowedTools", "Read", "--disallowedTools", "Bash(rm:*)"]))
    options = setup.host_options
    assert list(options.allow_tools) == ["read_file", "run_command(npm test*)"]
    assert list(options.deny_tools) == ["run_command(rm:*)", "read_website"]
    assert options.permission_mode == "acceptEdits" and options.model == "qwen3-4b"
    assert any("ignored: env" in w for w in setup.warnings)


def test_mcp_config_servers_and_bad_files(workdir: Path) -> None:
    config = {"mcpServers": {"files": {"command": "mcp-files", "args": ["--root", "."]},
                             "inproc": {"type": "sdk", "name": "inproc"}}}
    (workdir / "mcp.json").write_text(json.dumps(config))
    setup = prepare(parse(["--verbose", "--cwd", str(workdir), "--mcp-config", "mcp.json"]))
    assert setup.mcp_servers == [{"name": "files", "command": "mcp-files", "args": ["--root", "."]}]
    assert setup.sdk_mcp_servers == ["inproc"]  # the app's own: reached through mcp_message requests
    with pytest.raises(SetupError, match="invalid JSON"):
        prepare(parse(["--verbose", "--cwd", str(workdir), "--mcp-config", "{nope"]))
    with pytest.raises(SetupError, match="cannot read"):
        prepare(parse(["--verbose", "--cwd", str(workdir), "--settings", "missing.json"]))
