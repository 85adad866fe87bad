"""Claude Code's vocabulary for our tools, declared by each tool and read in both directions.

An app written for Claude Code checks `tool_name == "Bash"` and reads `input["command"]`; it allows
`Bash(git *)`. Each `Tool` declares its Claude Code names (`aliases`, the first the one Claude Code
shows) and here, in `ClaudeForm`, how its arguments are spelt there; the functions below translate
a call, an input an app edited, or a rule, given the tools in play: a session's, or the built-in
`sigit.tools.all_tools()` before one opens (the caller passes them: those tools import this module).
Tools without a counterpart (`mcp__…`, `remember`, ...) keep our name and arguments.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

Convert = Callable[[dict[str, Any]], None]
"""Changes a renamed argument dict in place (what a key rename alone cannot say)."""


@dataclass(frozen=True)
class ClaudeForm:
    """How a tool's calls are spelt in Claude Code: its argument keys, and what else differs."""

    keys: tuple[tuple[str, str], ...] = ()
    """(Claude's argument key, ours) pairs; keys not listed pass through unchanged."""
    to_claude: Convert | None = None
    """After the keys are renamed: the rest of our input in Claude's form."""
    from_claude: Convert | None = None
    """After the keys are renamed: the rest of Claude's input in our form (what we do not take dropped)."""
    rule_names: tuple[str, ...] = ()
    """Claude Code rule names that also cover this tool, besides its own names: Claude Code's `Edit`
    rules apply to every tool that edits files (`EDIT_RULE`). Our settings rules, hook matchers and
    the Claude CLI's `--allowedTools`/`--disallowedTools` all read it (`Tool.rule_names`)."""


EDIT_RULE = "Edit"
"""Claude Code's rule name for every file edit (its `Edit`, `MultiEdit`, `Write`, `NotebookEdit`)."""

NO_CLAUDE_FORM = ClaudeForm()


class ClaudeNamed(Protocol):
    """What the translations below read of a tool: its names and its `ClaudeForm` (`Tool` has them all)."""

    @property
    def name(self) -> str: ...

    @property
    def aliases(self) -> tuple[str, ...]:
        """Claude Code's names for the tool, the one Claude Code shows first."""
        ...

    @property
    def claude(self) -> ClaudeForm: ...

    @property
    def rule_names(self) -> tuple[str, ...]:
        """Its aliases and the Claude Code rule names that also cover it (`Tool.rule_names`)."""
        ...


def _by_claude(claude: str, tools: Iterable[ClaudeNamed]) -> ClaudeNamed | None:
    return next((tool for tool in tools if claude in tool.aliases), None)


def _ruled_by(claude: str, tools: Iterable[ClaudeNamed]) -> list[ClaudeNamed]:
    """The tools a Claude Code rule named `claude` covers (`Edit`: every file edit)."""
    return [tool for tool in tools if claude in tool.rule_names]


def _by_ours(ours: str, tools: Iterable[ClaudeNamed]) -> ClaudeNamed | None:
    return next((tool for tool in tools if tool.name == ours), None)


def claude_name(ours: str, tools: Iterable[ClaudeNamed]) -> str:
    """The name Claude Code shows for our tool `ours` (ours when it has none)."""
    tool = _by_ours(ours, tools)
    return tool.aliases[0] if tool is not None and tool.aliases else ours


def our_name(claude: str, tools: Iterable[ClaudeNamed]) -> str:
    tool = _by_claude(claude, tools)
    return tool.name if tool is not None else claude


def to_claude(
    ours: str, arguments: Mapping[str, Any], tools: Iterable[ClaudeNamed]
) -> tuple[str, dict[str, Any]]:
    """Our call as Claude Code would show it: its name and input."""
    tool = _by_ours(ours, tools)
    if tool is None or not tool.aliases:
        return ours, dict(arguments)
    form = tool.claude
    back = {mine: theirs for theirs, mine in form.keys}
    converted = {back.get(key, key): value for key, value in arguments.items()}
    if form.to_claude is not None:
        form.to_claude(converted)
    return tool.aliases[0], converted


def from_claude(
    claude: str, arguments: Mapping[str, Any], tools: Iterable[ClaudeNamed]
) -> tuple[str, dict[str, Any]]:
    """A call (or an input an app edited) in Claude Code's words, as our tool takes it."""
    tool = _by_claude(claude, tools)
    if tool is None:
        return claude, dict(arguments)
    form = tool.claude
    forward = dict(form.keys)
    converted = {forward.get(key, key): value for key, value in arguments.items()}
    if form.from_claude is not None:
        form.from_claude(converted)
    return tool.name, converted


# --------------------------------------------------------------------------- permission rules

_RULE_RE = re.compile(r"^\s*(?P<tool>[^\s(]+)\s*(?:\((?P<pattern>.*)\))?\s*$", re.DOTALL)


def rules_from_claude(rule: str, tools: Iterable[ClaudeNamed]) -> list[str]:
    """`Bash(git *)` as our rules (`run_command(git *)`); an `Edit` rule covers every file edit, as
    the same rule in our settings does (each tool's `rule_names` says). A name we do not know stays as
    it is (an MCP tool's name is the same in both)."""
    match = _RULE_RE.match(rule)
    if match is None:
        return [rule]
    name, pattern = match["tool"], match["pattern"]
    covered = sorted(_ruled_by(name, tools), key=lambda tool: name not in tool.aliases)  # its own tool first
    names = [tool.name for tool in covered] or [name]
    return [f"{ours}({pattern})" if pattern is not None else ours for ours in names]


def rule_to_claude(rule: str, tools: Iterable[ClaudeNamed]) -> str:
    """Our suggested rule (`run_command(git *)`) in Claude Code's words (`Bash(git *)`)."""
    match = _RULE_RE.match(rule)
    if match is None:
        return rule
    name, pattern = claude_name(match["tool"], tools), match["pattern"]
    return f"{name}({pattern})" if pattern is not None else name


# --------------------------------------------------------------------------- the conversions tools declare


def rename_keys(keys: Mapping[str, str], field: str) -> Convert:
    """Rename the keys of each dict in the list under `field` (multi_edit's `edits`)."""

    def convert(args: dict[str, Any]) -> None:
        items = args.get(field)
        if isinstance(items, list):
            args[field] = [
                {keys.get(k, k): v for k, v in item.items()} if isinstance(item, dict) else item for item in items
            ]

    return convert


def lines_to_offset(args: dict[str, Any]) -> None:
    """read_file's `start_line`/`end_line` as Read's `offset`/`limit`."""
    start, end = args.pop("start_line", None), args.pop("end_line", None)
    if start is not None:
        args["offset"] = start
    if end is not None:
        args["limit"] = end - (start or 1) + 1


def offset_to_lines(args: dict[str, Any]) -> None:
    offset, limit = args.pop("offset", None), args.pop("limit", None)
    if offset is not None:
        args["start_line"] = offset
    if limit is not None:
        args["end_line"] = (offset or 1) + limit - 1


def drop(*keys: str) -> Convert:
    """Drop what our tool does not take (WebFetch's `prompt`: our tool returns the page itself)."""

    def convert(args: dict[str, Any]) -> None:
        for key in keys:
            args.pop(key, None)

    return convert


def keep_item_keys(field: str, keys: tuple[str, ...]) -> Convert:
    """Keep only `keys` in each dict of the list under `field` (TodoWrite's todos carry `activeForm`)."""

    def convert(args: dict[str, Any]) -> None:
        items = args.get(field)
        if isinstance(items, list):
            args[field] = [
                {k: v for k, v in item.items() if k in keys} if isinstance(item, dict) else item for item in items
            ]

    return convert
