"""Permission rules: `tool` or `tool(pattern)`, and what a pattern is matched against.

The pattern is matched against the `command` of run_command and the `path` of file tools.
`pattern*` is a prefix match; Claude Code's `Bash(git log:*)` form is accepted too and means
"the words `git log`, alone or followed by more". Anything else must match exactly.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

RUN_COMMAND = "run_command"

# Claude Code's tool names, so that rules copied from its settings mean the same here.
TOOL_ALIASES: dict[str, str] = {
    "Bash": RUN_COMMAND,
    "Read": "read_file",
    "Edit": "edit_file",
    "MultiEdit": "multi_edit",
    "Write": "create_file",
    "Glob": "glob",
    "Grep": "search_files",
    "LS": "list_directory",
    "WebFetch": "read_website",
    "TodoWrite": "write_todos",
    "Task": "task",
}

_RULE_RE = re.compile(r"^\s*(?P<tool>[A-Za-z0-9_.\-]+\*?)\s*(?:\((?P<pattern>.*)\))?\s*$", re.DOTALL)


class RuleSyntaxError(ValueError):
    """A rule that is not `tool` or `tool(pattern)`."""


@dataclass(frozen=True)
class Rule:
    """One parsed rule; `text` is how it is written in settings and shown to the user."""

    tool: str
    pattern: str | None
    text: str

    def matches_tool(self, tool_name: str) -> bool:
        if self.tool.endswith("*"):
            return tool_name.startswith(self.tool[:-1])
        return tool_name == self.tool

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
    tool = TOOL_ALIASES.get(match["tool"], match["tool"])
    pattern = match["pattern"]
    if pattern is not None:
        pattern = pattern.strip()
        if not pattern:
            raise RuleSyntaxError(f"invalid permission rule {text!r}: the pattern in () is empty")
    return Rule(tool=tool, pattern=pattern, text=text.strip())


def pattern_matches(pattern: str, subject: str) -> bool:
    if pattern.endswith(":*"):
        stem = pattern[:-2].rstrip()
        return subject == stem or (subject.startswith(stem) and subject[len(stem) : len(stem) + 1].isspace())
    if pattern.endswith("*"):
        return subject.startswith(pattern[:-1])
    return subject == pattern


def normalize_command(command: str) -> str:
    """Whitespace runs collapsed, so `git  push` cannot slip past a rule for `git push`."""
    return " ".join(command.split())


_OPERATORS = ("&&", "||", ";", "|", "&", "\n")
_SUBSTITUTIONS = ("$(", "<(", ">(", "`")
_HARMLESS_REDIRECT_TARGETS = ("/dev/null",)


def split_command(command: str) -> list[str] | None:
    """The simple commands of a shell line, split at `;`, `&&`, `||`, `|`, `&` and newlines.

    None when the line cannot be judged from its text, so no allow rule may cover it: command
    substitution (`$(...)`, backticks, `<(...)`) or output redirected to a file (`> out.txt`;
    `2>&1` and `>/dev/null` are fine).
    """
    parts, analysable = _scan(command)
    return parts if analysable else None


def deny_parts(command: str) -> list[str]:
    """Every simple command in the line, substitutions included, for deny rules to check.

    Best effort: a shell can always hide a command (`sh -c "..."`), so deny rules on run_command
    are a guard rail, not a sandbox.
    """
    parts = _scan(command)[0]
    stripped = [_strip_wrappers(part) for part in parts]
    return list(dict.fromkeys([*parts, *(part for part in stripped if part)]))


_WRAPPERS = frozenset(
    {
        "{",
        "}",
        "!",
        "if",
        "then",
        "elif",
        "else",
        "do",
        "while",
        "until",
        "time",
        "exec",
        "command",
        "builtin",
        "nohup",
        "sudo",
        "env",
        "xargs",
        "nice",
    }
)
_ASSIGNMENT_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=\S*$")


def _strip_wrappers(part: str) -> str:
    """`sudo FOO=1 rm -rf x` -> `rm -rf x`: what a deny rule for `rm` must also see."""
    words = part.split(" ")
    while words and (words[0] in _WRAPPERS or _ASSIGNMENT_RE.match(words[0])):
        words.pop(0)
    return " ".join(words)


def _scan(command: str) -> tuple[list[str], bool]:
    parts: list[str] = []
    current: list[str] = []
    analysable = True
    quote: str | None = None

    def cut() -> None:
        parts.append("".join(current))
        current.clear()

    i = 0
    while i < len(command):
        char = command[i]
        if quote == "'":
            quote = None if char == "'" else quote
            current.append(char)
            i += 1
            continue
        if char == "\\" and i + 1 < len(command):
            current.append(command[i : i + 2])
            i += 2
            continue
        substitution = next((op for op in _SUBSTITUTIONS if command.startswith(op, i)), None)
        if substitution is not None:
            analysable = False
            cut()
            i += len(substitution)
            continue
        if quote == '"':
            quote = None if char == '"' else quote
            current.append(char)
            i += 1
            continue
        if char in "'\"":
            quote = char
            current.append(char)
            i += 1
            continue
        if char == ">":
            target_start = i + 1
            if command[target_start : target_start + 1] in (">", "|"):
                target_start += 1
            j = target_start
            while j < len(command) and command[j] in " \t":
                j += 1
            k = j + 1 if command[j : j + 1] == "&" else j  # `>&1`: the `&` belongs to the target
            while k < len(command) and not command[k].isspace() and command[k] not in ";|&()":
                k += 1
            target = command[j:k]
            if not (target.startswith("&") or target in _HARMLESS_REDIRECT_TARGETS):
                analysable = False
            current.append(command[i:k])
            i = k
            continue
        if char in "()":
            cut()
            i += 1
            continue
        operator = next((op for op in _OPERATORS if command.startswith(op, i)), None)
        if operator is not None:
            cut()
            i += len(operator)
            continue
        current.append(char)
        i += 1
    cut()
    return [normalized for part in parts if (normalized := normalize_command(part))], analysable


def path_candidates(raw_path: str, cwd: Path) -> tuple[str, str]:
    """(lexically normalized, symlink-resolved) forms of a tool's path, relative to cwd when inside it.

    Deny rules are checked against both, so neither `a/../secrets` nor a symlink hides a target.
    """
    cwd_abs = Path(os.path.abspath(cwd))
    base = cwd_abs.resolve()
    expanded = Path(os.path.expanduser(raw_path))
    joined = expanded if expanded.is_absolute() else cwd_abs / expanded
    lexical = Path(os.path.normpath(joined))
    resolved = joined.resolve()
    lexical_base = cwd_abs if is_inside(lexical, cwd_abs) else base
    return display_path(lexical, lexical_base), display_path(resolved, base)


def display_path(path: Path, cwd: Path) -> str:
    """`path` relative to cwd (`.` for cwd itself) when inside it, else absolute, with `/` separators."""
    try:
        relative = path.relative_to(cwd)
    except ValueError:
        return path.as_posix()
    text = relative.as_posix()
    return text if text else "."


def normalize_pattern(pattern: str, cwd: Path) -> str:
    """A path pattern in the same form as path subjects: relative to cwd when inside it."""
    wildcard = ""
    stem = pattern
    if stem.endswith(":*"):
        wildcard, stem = ":*", stem[:-2]
    elif stem.endswith("*"):
        wildcard, stem = "*", stem[:-1]
    if not stem:
        return wildcard
    keep_slash = stem.endswith("/")
    lexical, _ = path_candidates(stem, cwd)
    if keep_slash and lexical != ".":
        lexical += "/"
    elif keep_slash:
        lexical = ""
    return lexical + wildcard


def is_inside(path: Path, directory: Path) -> bool:
    return path == directory or directory in path.parents


def string_arg(args: Mapping[str, Any], key: str) -> str | None:
    value = args.get(key)
    return value if isinstance(value, str) and value.strip() else None
