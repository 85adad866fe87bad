"""The permission-rule grammar: `tool` or `tool(pattern)`, as written in settings and on the command line.

`tool` is a tool's name or a name its declaration gives rules (`Tool.rule_names`: its Claude Code alias
such as `Bash`, and `Edit`, which covers every file edit as in Claude Code),
or a prefix ending in `*` (`mcp__github__*`). The pattern is matched against the command or the paths
a call declares. `pattern*` is a prefix match; Claude Code's `Bash(git log:*)` form is accepted too
and means "the words `git log`, alone or followed by more". Anything else must match exactly.

It lives in `config` so that settings can validate rules without importing the permission layer.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from sigit.errors import UsageError

_RULE_RE = re.compile(r"^\s*(?P<tool>[A-Za-z0-9_.\-]+\*?)\s*(?:\((?P<pattern>.*)\))?\s*$", re.DOTALL)


class RuleSyntaxError(UsageError, ValueError):
    """A rule that is not `tool` or `tool(pattern)`."""


@dataclass(frozen=True)
class Rule:
    """One parsed rule; `text` is how it is written in settings and shown to the user."""

    tool: str
    pattern: str | None
    text: str

    def matches_tool(self, tool_name: str, rule_names: Iterable[str] = ()) -> bool:
        """Whether the rule names this tool: by its name, or by one of the names its declaration gives
        rules (`Tool.rule_names`: its Claude Code aliases, and `Edit` for every file edit)."""
        if self.tool.endswith("*"):
            return tool_name.startswith(self.tool[:-1])
        return tool_name == self.tool or self.tool in rule_names

    def matches_subject(self, subject: str) -> bool:
        """Whether the pattern covers `subject` (a normalized command or path)."""
        if self.pattern is None:
            return True
        return pattern_matches(self.pattern, subject)


def parse_rule(text: str) -> Rule:
    if not isinstance(text, str):
        raise RuleSyntaxError(f"a permission rule must be a string, not {type(text).__name__}")
    match = _RULE_RE.match(text)
    if match is None:
        raise RuleSyntaxError(
            f"invalid permission rule {text!r}: expected `tool` or `tool(pattern)`, "
            "for example `run_command(git status*)` or `edit_file(src/*)`"
        )
    pattern = match["pattern"]
    if pattern is not None:
        pattern = pattern.strip()
        if not pattern:
            raise RuleSyntaxError(f"invalid permission rule {text!r}: the pattern in () is empty")
    return Rule(tool=match["tool"], pattern=pattern, text=text.strip())


def pattern_matches(pattern: str, subject: str) -> bool:
    if pattern.endswith(":*"):
        stem = pattern[:-2].rstrip()
        return subject == stem or (subject.startswith(stem) and subject[len(stem) : len(stem) + 1].isspace())
    if pattern.endswith("*"):
        return subject.startswith(pattern[:-1])
    return subject == pattern
