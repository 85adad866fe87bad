"""Custom slash commands: markdown prompt templates, `/name args` expands to the file's body.

`review.md` is `/review`; `git/commit.md` is `/git:commit`. `$ARGUMENTS` is the whole argument
string, `$1`..`$9` its shell-like words (quotes group words).
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from sigit.extensions.frontmatter import (
    ExtensionWarning,
    FrontmatterError,
    first_line,
    read_document,
    text_field,
)
from sigit.extensions.locations import Scope, extension_files, markdown_files

_PLACEHOLDER = re.compile(r"\$(ARGUMENTS|[1-9])")


def split_arguments(arguments: str) -> list[str]:
    """Shell-like words; an unbalanced quote (an apostrophe in prose) falls back to plain words."""
    try:
        return shlex.split(arguments)
    except ValueError:
        return arguments.split()


@dataclass(frozen=True)
class CustomCommand:
    name: str
    description: str
    argument_hint: str
    path: Path
    body: str
    scope: Scope = "project"

    def expand(self, arguments: str = "") -> str:
        """The prompt to send for `/name arguments`.

        Substitution is one pass, so an argument that itself contains `$1` is sent as typed. When
        the body uses no placeholder, the arguments are appended so they are never lost.
        """
        arguments = arguments.strip()
        words = split_arguments(arguments)
        used = False

        def substitute(match: re.Match[str]) -> str:
            nonlocal used
            used = True
            key = match.group(1)
            if key == "ARGUMENTS":
                return arguments
            index = int(key) - 1
            return words[index] if index < len(words) else ""

        prompt = _PLACEHOLDER.sub(substitute, self.body)
        if arguments and not used:
            prompt = f"{prompt.rstrip()}\n\nARGUMENTS: {arguments}"
        return prompt


@dataclass
class CommandSet:
    commands: list[CustomCommand] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def get(self, name: str) -> CustomCommand | None:
        wanted = name.strip().lstrip("/")
        return next((c for c in self.commands if c.name == wanted), None)

    def names(self) -> list[str]:
        return [command.name for command in self.commands]

    def __bool__(self) -> bool:
        return bool(self.commands)

    def __len__(self) -> int:
        return len(self.commands)


def command_name(root: Path, path: Path) -> str:
    """`root/git/commit.md` -> `git:commit`."""
    parts = path.relative_to(root).with_suffix("").parts
    return ":".join(parts)


def discover_commands(cwd: Path, config_dir: Path, *, home: Path | None = None) -> CommandSet:
    """Every `*.md` under the command roots; project commands override user ones. Blocking I/O."""
    result = CommandSet()
    seen: set[str] = set()
    for root, path in extension_files("commands", cwd, config_dir, home, markdown_files, result.warnings):
        name = command_name(root.path, path)
        if name in seen:
            continue
        loaded = load_command(path, name, root.scope)
        if isinstance(loaded, ExtensionWarning):
            result.warnings.append(loaded)
            continue
        seen.add(name)
        result.commands.append(loaded)
    result.commands.sort(key=lambda c: c.name)
    return result


def load_command(path: Path, name: str, scope: Scope = "project") -> CustomCommand | ExtensionWarning:
    if any(ch.isspace() for ch in name):
        return ExtensionWarning(path, f"command name {name!r} contains spaces; rename the file")
    document = read_document(path)
    if isinstance(document, ExtensionWarning):
        return document
    try:
        description = text_field(document.metadata, "description") or first_line(document.body, 120)
        hint = _hint(document.metadata.get("argument-hint"))
    except FrontmatterError as exc:
        return ExtensionWarning(path, str(exc))
    if not document.body.strip():
        return ExtensionWarning(path, "the command has no prompt text after its frontmatter")
    return CustomCommand(name, description, hint, path, document.body, scope)


def _hint(value: object) -> str:
    """`argument-hint: [message]` is a YAML list; show it as written."""
    if value is None:
        return ""
    if isinstance(value, list):
        return " ".join(f"[{item}]" for item in value)
    if isinstance(value, dict):
        raise FrontmatterError("'argument-hint' must be text, got a mapping")
    return str(value).strip()
