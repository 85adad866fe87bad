"""Claude Code's tool vocabulary and ours: one table, read in both directions.

An app written for Claude Code checks `tool_name == "Bash"` and reads `input["command"]`; it allows
`Bash(git *)`. Names and argument keys are translated here and nowhere else. Tools without a
counterpart (`mcp__…`, `remember`, ...) keep our name and arguments.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ToolName:
    claude: str
    ours: str
    keys: tuple[tuple[str, str], ...] = ()
    """(Claude's argument key, ours) pairs; keys not listed pass through unchanged."""
    rule_covers: tuple[str, ...] = field(default=())
    """Our further tools a Claude rule on this name covers (an `Edit` rule covers every file edit)."""


TOOL_NAMES: tuple[ToolName, ...] = (
    ToolName("Read", "read_file", (("file_path", "path"),)),
    ToolName("Write", "create_file", (("file_path", "path"),)),
    ToolName("Edit", "edit_file", (("file_path", "path"), ("old_string", "old_text"), ("new_string", "new_text")),
             rule_covers=("multi_edit", "create_file", "delete_file")),
    ToolName("MultiEdit", "multi_edit", (("file_path", "path"),)),
    ToolName("Bash", "run_command"),
    ToolName("BashOutput", "command_output", (("bash_id", "task_id"),)),
    ToolName("KillShell", "kill_command", (("shell_id", "task_id"),)),
    ToolName("Glob", "glob"),
    ToolName("Grep", "search_files", (("glob", "file_glob"), ("head_limit", "max_results"))),
    ToolName("LS", "list_directory"),
    ToolName("WebFetch", "read_website"),
    ToolName("TodoWrite", "write_todos"),
    ToolName("Task", "task"),
    ToolName("Skill", "skill", (("skill", "name"),)),
)
_BY_CLAUDE = {entry.claude: entry for entry in TOOL_NAMES}
_BY_OURS = {entry.ours: entry for entry in TOOL_NAMES}
_EDIT_KEYS = (("old_string", "old_text"), ("new_string", "new_text"))


def claude_name(ours: str) -> str:
    entry = _BY_OURS.get(ours)
    return entry.claude if entry is not None else ours


def our_name(claude: str) -> str:
    entry = _BY_CLAUDE.get(claude)
    return entry.ours if entry is not None else claude


def to_claude(ours: str, arguments: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """Our call as Claude Code would show it: its name and input."""
    entry = _BY_OURS.get(ours)
    if entry is None:
        return ours, dict(arguments)
    back = {mine: theirs for theirs, mine in entry.keys}
    converted = {back.get(key, key): value for key, value in arguments.items()}
    if ours == "read_file":
        _lines_to_offset(converted)
    elif ours == "multi_edit" and isinstance(converted.get("edits"), list):
        converted["edits"] = [_rename(edit, {b: a for a, b in _EDIT_KEYS}) for edit in converted["edits"]]
    return entry.claude, converted


def from_claude(claude: str, arguments: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """A call (or an input an app edited) in Claude Code's words, as our tool takes it."""
    entry = _BY_CLAUDE.get(claude)
    if entry is None:
        return claude, dict(arguments)
    forward = dict(entry.keys)
    converted = {forward.get(key, key): value for key, value in arguments.items()}
    if entry.ours == "read_file":
        _offset_to_lines(converted)
    elif entry.ours == "multi_edit" and isinstance(converted.get("edits"), list):
        converted["edits"] = [_rename(edit, dict(_EDIT_KEYS)) for edit in converted["edits"]]
    elif entry.ours == "read_website":
        converted.pop("prompt", None)  # WebFetch's question about the page: our tool returns the page itself
    elif entry.ours == "write_todos" and isinstance(converted.get("todos"), list):
        converted["todos"] = [{k: v for k, v in todo.items() if k in ("content", "status")}
                              if isinstance(todo, dict) else todo for todo in converted["todos"]]
    return entry.ours, converted


def _rename(value: Any, keys: Mapping[str, str]) -> Any:
    if not isinstance(value, dict):
        return value
    return {keys.get(key, key): item for key, item in value.items()}


def _lines_to_offset(args: dict[str, Any]) -> None:
    start, end = args.pop("start_line", None), args.pop("end_line", None)
    if start is not None:
        args["offset"] = start
    if end is not None:
        args["limit"] = end - (start or 1) + 1


def _offset_to_lines(args: dict[str, Any]) -> None:
    offset, limit = args.pop("offset", None), args.pop("limit", None)
    if offset is not None:
        args["start_line"] = offset
    if limit is not None:
        args["end_line"] = (offset or 1) + limit - 1


# --------------------------------------------------------------------------- permission rules

_RULE_RE = re.compile(r"^\s*(?P<tool>[^\s(]+)\s*(?:\((?P<pattern>.*)\))?\s*$", re.DOTALL)


def split_rules(values: Iterable[str]) -> list[str]:
    """`--allowedTools "Read,Bash(git log:*)" Edit` as Claude Code splits it: on commas and spaces
    outside parentheses."""
    rules: list[str] = []
    for value in values:
        depth, current = 0, list[str]()
        for char in value:
            if char == "(":
                depth += 1
            elif char == ")":
                depth = max(depth - 1, 0)
            if depth == 0 and char in ", \t\n":
                if current:
                    rules.append("".join(current))
                current = []
                continue
            current.append(char)
        if current:
            rules.append("".join(current))
    return rules


def rules_from_claude(rule: str) -> list[str]:
    """`Bash(git *)` as our rules (`run_command(git *)`); an `Edit` rule covers every file edit.
    A name we do not know stays as it is (an MCP tool's name is the same in both)."""
    match = _RULE_RE.match(rule)
    if match is None:
        return [rule]
    name, pattern = match["tool"], match["pattern"]
    entry = _BY_CLAUDE.get(name)
    names = [entry.ours, *entry.rule_covers] if entry is not None else [name]
    return [f"{tool}({pattern})" if pattern is not None else tool for tool in names]


def rule_to_claude(rule: str) -> str:
    """Our suggested rule (`run_command(git *)`) in Claude Code's words (`Bash(git *)`)."""
    match = _RULE_RE.match(rule)
    if match is None:
        return rule
    name, pattern = claude_name(match["tool"]), match["pattern"]
    return f"{name}({pattern})" if pattern is not None else name


def tools_from_claude(names: Iterable[str]) -> set[str]:
    """`--tools Read,Bash` as the set of our tool names to offer."""
    return {our_name(name) for name in split_rules(names)}
