"""Deciding whether a tool call runs, asks the user, or is refused.

Order (first that applies wins):
1. a deny rule (even for read-only tools);
2. a read-only tool: allow;
3. plan mode: mutations are refused, with a message asking the model for a plan;
4. bypass mode: allow (only deny rules and per-tool "deny" overrides still refuse);
5. a session grant, then an allow rule;
6. the per-tool override in `[permissions.tools]`;
7. accept-edits mode: file edits and creations inside the working directory are allowed;
8. `SIGIT_PERMISSION_DEFAULT`, then `[permissions] default`.
A write outside the working directory is never allowed silently (except in bypass mode): an
"allow" from steps 5-8 becomes "ask", unless an allow rule or grant names that path explicitly.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from sigit.config.settings import (
    MODE_ALIASES,
    PERMISSION_DEFAULTS,
    PERMISSION_MODES,
    PermissionMode,
    RuleKind,
    Settings,
    save_project_rule,
)
from sigit.permissions.rules import (
    RUN_COMMAND,
    Rule,
    deny_parts,
    is_inside,
    normalize_command,
    normalize_pattern,
    parse_rule,
    path_candidates,
    pattern_matches,
    split_command,
    string_arg,
)

DecisionKind = Literal["allow", "deny", "ask"]

PERMISSION_DEFAULT_ENV = "SIGIT_PERMISSION_DEFAULT"
MCP_PREFIX = "mcp__"
# Tools that accept-edits mode lets through inside the working directory. Deleting is not an edit.
EDIT_TOOLS = frozenset({"create_file", "edit_file", "multi_edit", "create_directory"})


@dataclass(frozen=True)
class Decision:
    kind: DecisionKind
    reason: str
    rule: str | None = None

    @property
    def allowed(self) -> bool:
        return self.kind == "allow"


@dataclass(frozen=True)
class _Subject:
    """What rules are matched against, in every form a deny rule must see."""

    command_parts: list[str] | None  # run_command: simple commands, None if not analysable
    deny_parts: tuple[str, ...]  # run_command: every command in the line, substitutions included
    command: str | None  # run_command: the whole line, whitespace-normalized
    path_forms: tuple[str, ...]  # file tools: (lexical, resolved) relative to cwd when inside
    outside_target: str | None  # a write target outside the working directory, for the message


class PermissionPolicy:
    """One session's permission state: settings, mode, and the grants made while it runs."""

    def __init__(
        self,
        settings: Settings,
        cwd: Path,
        mode: PermissionMode | None = None,
        *,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.settings = settings
        self.cwd = Path(os.path.abspath(cwd))
        self._root = self.cwd.resolve()
        self.mode: PermissionMode = mode if mode is not None else settings.permissions.mode
        if self.mode not in PERMISSION_MODES:
            raise ValueError(
                f"unknown permission mode {self.mode!r}; expected one of {', '.join(PERMISSION_MODES)}"
            )
        self._allow = [parse_rule(text) for text in settings.permissions.allow]
        self._deny = [parse_rule(text) for text in settings.permissions.deny]
        self._grants: list[Rule] = []
        self._env_default = _env_default(os.environ if env is None else env)

    # -- decisions -------------------------------------------------------------------------------

    def decide(self, tool_name: str, read_only: bool, args: Mapping[str, Any]) -> Decision:
        if tool_name.startswith(MCP_PREFIX):
            read_only = False
        subject = self._subject(tool_name, read_only, args)

        for rule in self._deny:
            if self._matches(rule, tool_name, subject, for_deny=True):
                return Decision("deny", f"{tool_name} is denied by the rule {rule.text}", rule.text)
        if read_only:
            return Decision("allow", "read-only tool")
        if self.mode == "plan":
            return Decision(
                "deny",
                f"Plan mode is on, so {tool_name} was not run. Use read-only tools to investigate, then "
                "reply with a short step-by-step plan; the user will switch modes to carry it out.",
            )
        override = self.settings.permissions.tools.get(tool_name)
        if self.mode == "bypass":
            if override == "deny":
                return Decision("deny", f"{tool_name} is set to deny in [permissions.tools]")
            return Decision("allow", "bypass mode")

        matched_outside = False
        for rules, label in (
            (self._grants, "allowed for this session by"),
            (self._allow, "allowed by the rule"),
        ):
            for rule in rules:
                if self._matches(rule, tool_name, subject, for_deny=False):
                    if subject.outside_target is not None and not self._covers_outside(rule, subject):
                        matched_outside = True
                        continue
                    return Decision("allow", f"{label} {rule.text}", rule.text)
        if matched_outside:
            return self._outside(tool_name, subject)

        if override is not None:
            return self._settled(
                override, f"{tool_name} is set to {override} in [permissions.tools]", subject, tool_name
            )
        if self.mode == "accept-edits" and tool_name in EDIT_TOOLS and subject.path_forms:
            return self._settled("allow", "accept-edits mode", subject, tool_name)
        if self._env_default is not None:
            return self._settled(
                self._env_default, f"{PERMISSION_DEFAULT_ENV}={self._env_default}", subject, tool_name
            )
        default = self.settings.permissions.default
        return self._settled(default, f"default permission is {default}", subject, tool_name)

    def _settled(self, kind: str, reason: str, subject: _Subject, tool_name: str) -> Decision:
        if kind == "allow" and subject.outside_target is not None:
            return self._outside(tool_name, subject)
        if kind == "allow":
            return Decision("allow", reason)
        return Decision("deny" if kind == "deny" else "ask", reason)

    def _outside(self, tool_name: str, subject: _Subject) -> Decision:
        return Decision("ask", f"{tool_name} writes outside the working directory ({subject.outside_target})")

    # -- grants ----------------------------------------------------------------------------------

    def suggested_rule(self, tool_name: str, args: Mapping[str, Any]) -> str:
        """The rule an "always allow" answer would add.

        run_command: the first two words of the (first) command, as a prefix; a file tool writing
        outside the working directory: that exact path; any other tool: the whole tool.
        """
        if tool_name == RUN_COMMAND:
            command = string_arg(args, "command")
            if command is not None:
                parts = split_command(command) or [normalize_command(command)]
                words = _words(parts[0])[:2]
                if words:
                    return f"{RUN_COMMAND}({' '.join(words)}*)"
            return RUN_COMMAND
        subject = self._subject(tool_name, False, args)
        if subject.outside_target is not None and subject.path_forms:
            return f"{tool_name}({subject.path_forms[-1]})"
        return tool_name

    def grant_session(self, tool_name: str, args: Mapping[str, Any]) -> str:
        """Allow calls like this one for the rest of the session; returns the rule granted."""
        rule = self.suggested_rule(tool_name, args)
        self.add_session_rule(rule)
        return rule

    def grant_project(self, tool_name: str, args: Mapping[str, Any]) -> str:
        """Like grant_session, and also saved to the project's `.sigit/settings.toml`."""
        rule = self.grant_session(tool_name, args)
        save_project_rule(self.cwd, rule, "allow")
        return rule

    def add_session_rule(self, rule: str, kind: RuleKind = "allow") -> None:
        """A rule for this session only (for `--allow-tool NAME` / `--deny-tool NAME`)."""
        parsed = parse_rule(rule)
        if kind == "deny":
            self._deny.append(parsed)
        elif parsed not in self._grants:
            self._grants.append(parsed)

    @property
    def session_grants(self) -> list[str]:
        return [rule.text for rule in self._grants]

    # -- matching --------------------------------------------------------------------------------

    def _subject(self, tool_name: str, read_only: bool, args: Mapping[str, Any]) -> _Subject:
        if tool_name == RUN_COMMAND:
            command = string_arg(args, "command")
            run_dir = string_arg(args, "cwd")
            outside = None
            if run_dir is not None and not read_only:
                run_path = (self.cwd / os.path.expanduser(run_dir)).resolve()
                if not is_inside(run_path, self._root):
                    outside = run_path.as_posix()
            return _Subject(
                command_parts=split_command(command) if command is not None else None,
                deny_parts=tuple(deny_parts(command)) if command is not None else (),
                command=normalize_command(command) if command is not None else None,
                path_forms=(),
                outside_target=outside,
            )
        raw_path = string_arg(args, "path")
        if raw_path is None:
            return _Subject(None, (), None, (), None)
        lexical, resolved = path_candidates(raw_path, self.cwd)
        outside = None
        if not read_only and (Path(resolved).is_absolute() or Path(lexical).is_absolute()):
            outside = resolved if Path(resolved).is_absolute() else lexical
        return _Subject(None, (), None, (lexical, resolved), outside)

    def _matches(self, rule: Rule, tool_name: str, subject: _Subject, *, for_deny: bool) -> bool:
        if not rule.matches_tool(tool_name):
            return False
        if rule.pattern is None:
            return True
        if tool_name == RUN_COMMAND:
            return self._command_matches(rule, subject, for_deny=for_deny)
        if not subject.path_forms:
            return False
        pattern = normalize_pattern(rule.pattern, self.cwd)
        forms = subject.path_forms if for_deny else subject.path_forms[-1:]
        return any(_path_matches(pattern, form) for form in forms)

    def _command_matches(self, rule: Rule, subject: _Subject, *, for_deny: bool) -> bool:
        if subject.command is None or rule.pattern is None:
            return False
        if for_deny:
            return any(rule.matches_subject(text) for text in (subject.command, *subject.deny_parts))
        if subject.command == normalize_command(rule.pattern):
            return True
        # A compound command is allowed only when every simple command in it is allowed.
        parts = subject.command_parts
        if not parts:
            return False
        rules = [r for r in (*self._grants, *self._allow) if r.matches_tool(RUN_COMMAND)]
        return any(rule.matches_subject(part) for part in parts) and all(
            any(r.pattern is None or r.matches_subject(part) for r in rules) for part in parts
        )

    def _covers_outside(self, rule: Rule, subject: _Subject) -> bool:
        """Whether an allow rule names the outside path itself, not just the tool."""
        if rule.pattern is None or not subject.path_forms:
            return False
        pattern = normalize_pattern(rule.pattern, self.cwd)
        stem = pattern.rstrip("*").removesuffix(":")
        return Path(stem).is_absolute() and _path_matches(pattern, subject.path_forms[-1])


def _path_matches(pattern: str, path: str) -> bool:
    if pattern_matches(pattern, path):
        return True
    # `dir/*` also covers `dir` itself (deleting or creating the directory).
    return pattern.endswith("/*") and path == pattern[:-2]


def _words(command: str) -> list[str]:
    try:
        return shlex.split(command)
    except ValueError:
        return command.split()


def _env_default(env: Mapping[str, str]) -> str | None:
    value = env.get(PERMISSION_DEFAULT_ENV, "").strip().lower()
    if not value:
        return None
    if value not in PERMISSION_DEFAULTS:
        raise ValueError(
            f"{PERMISSION_DEFAULT_ENV}={value!r} is not valid; "
            f"expected one of {', '.join(PERMISSION_DEFAULTS)}"
        )
    return value


def parse_mode(value: str) -> PermissionMode:
    """A mode name from a command line or slash command (Claude Code's names accepted)."""
    mode = MODE_ALIASES.get(value, value)
    if mode not in PERMISSION_MODES:
        raise ValueError(f"unknown permission mode {value!r}; expected one of {', '.join(PERMISSION_MODES)}")
    return mode  # type: ignore[return-value]
