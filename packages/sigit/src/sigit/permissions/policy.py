"""Deciding whether a tool call runs, asks the user, or is refused.

Order (first that applies wins):
1. a deny rule (even for read-only tools);
2. a read-only tool: allow;
3. plan mode: mutations are refused, with a message asking the model for a plan;
4. bypass mode: allow (only deny rules and per-tool "deny" overrides still refuse);
5. a session grant, then an allow rule;
6. the per-tool override in `[permissions.tools]`;
7. accept-edits mode: tools that declare themselves edits are allowed inside the working directory;
8. `SIGIT_PERMISSION_DEFAULT`, then `[permissions] default`.
A write outside the working directory is never allowed silently (except in bypass mode): an
"allow" from steps 5-8 becomes "ask", unless an allow rule or grant names that path explicitly.

Everything is decided on a `PreparedCall`: the tool's own declarations (read-only, edit, aliases)
and the paths, command and URL it declares for these arguments. No tool is special-cased by name.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from sigit.config.rules import Rule, parse_rule
from sigit.config.settings import (
    MODE_ALIASES,
    PERMISSION_DEFAULTS,
    PERMISSION_MODES,
    PermissionMode,
    RuleKind,
    Settings,
    save_project_rule,
)
from sigit.errors import BadValueError
from sigit.permissions.rules import (
    CallSubject,
    normalize_command,
    normalize_pattern,
    path_matches,
    split_command,
    subject_matches,
)
from sigit.tools.subjects import PreparedCall

DecisionKind = Literal["allow", "deny", "ask"]

PERMISSION_DEFAULT_ENV = "SIGIT_PERMISSION_DEFAULT"


@dataclass(frozen=True)
class Decision:
    kind: DecisionKind
    reason: str
    rule: str | None = None

    @property
    def allowed(self) -> bool:
        return self.kind == "allow"


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
            raise BadValueError(
                f"unknown permission mode {self.mode!r}; expected one of {', '.join(PERMISSION_MODES)}"
            )
        self._allow = [parse_rule(text) for text in settings.permissions.allow]
        self._deny = [parse_rule(text) for text in settings.permissions.deny]
        self._grants: list[Rule] = []
        self._env_default = _env_default(os.environ if env is None else env)

    # -- decisions -------------------------------------------------------------------------------

    def decide(self, call: PreparedCall) -> Decision:
        name = call.name
        subject = CallSubject.of(call, self.cwd)

        for rule in self._deny:
            if self._names(rule, call) and subject_matches(rule, subject, self.cwd):
                return Decision("deny", f"{name} is denied by the rule {rule.text}", rule.text)
        if call.read_only:
            return Decision("allow", "read-only tool")
        if self.mode == "plan":
            return Decision(
                "deny",
                f"Plan mode is on, so {name} was not run. Use read-only tools to investigate, then "
                "reply with a short step-by-step plan; the user will switch modes to carry it out.",
            )
        override = self._override(call)
        if self.mode == "bypass":
            if override == "deny":
                return Decision("deny", f"{name} is set to deny in [permissions.tools]")
            return Decision("allow", "bypass mode")

        matched_outside = False
        for rules, label in (
            (self._grants, "allowed for this session by"),
            (self._allow, "allowed by the rule"),
        ):
            for rule in rules:
                if self._allows(rule, call, subject):
                    if subject.outside_target is not None and not self._covers_outside(rule, subject):
                        matched_outside = True
                        continue
                    return Decision("allow", f"{label} {rule.text}", rule.text)
        if matched_outside:
            return self._outside(name, subject)

        if override is not None:
            return self._settled(override, f"{name} is set to {override} in [permissions.tools]", subject, name)
        if self.mode == "accept-edits" and call.tool.edit and subject.path_forms:
            return self._settled("allow", "accept-edits mode", subject, name)
        if self._env_default is not None:
            return self._settled(
                self._env_default, f"{PERMISSION_DEFAULT_ENV}={self._env_default}", subject, name
            )
        default = self.settings.permissions.default
        return self._settled(default, f"default permission is {default}", subject, name)

    def _override(self, call: PreparedCall) -> str | None:
        """The `[permissions.tools]` entry for the tool, under its name or a Claude Code alias."""
        tools = self.settings.permissions.tools
        for key in (call.name, *call.tool.aliases):
            if key in tools:
                return tools[key]
        return None

    def _settled(self, kind: str, reason: str, subject: CallSubject, tool_name: str) -> Decision:
        if kind == "allow" and subject.outside_target is not None:
            return self._outside(tool_name, subject)
        if kind == "allow":
            return Decision("allow", reason)
        return Decision("deny" if kind == "deny" else "ask", reason)

    def _outside(self, tool_name: str, subject: CallSubject) -> Decision:
        return Decision("ask", f"{tool_name} writes outside the working directory ({subject.outside_target})")

    # -- grants ----------------------------------------------------------------------------------

    def suggested_rule(self, call: PreparedCall) -> str:
        """The rule an "always allow" answer would add.

        A call that runs a command: the first two words of the (first) command, as a prefix; a
        call writing outside the working directory: that exact path; any other: the whole tool.
        """
        name = call.name
        command = call.subjects.command
        if command is not None:
            if command.strip():
                parts = split_command(command) or [normalize_command(command)]
                words = _words(parts[0])[:2]
                if words:
                    return f"{name}({' '.join(words)}*)"
            return name
        subject = CallSubject.of(call, self.cwd)
        if subject.outside_form is not None:
            return f"{name}({subject.outside_form})"
        return name

    def grant_session(self, call: PreparedCall) -> str:
        """Allow calls like this one for the rest of the session; returns the rule granted."""
        rule = self.suggested_rule(call)
        self.add_session_rule(rule)
        return rule

    def grant_project(self, call: PreparedCall) -> str:
        """Like grant_session, and also saved to the project's `.sigit/settings.toml`."""
        rule = self.grant_session(call)
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

    @staticmethod
    def _names(rule: Rule, call: PreparedCall) -> bool:
        return rule.matches_tool(call.name, call.tool.aliases)

    def _allows(self, rule: Rule, call: PreparedCall, subject: CallSubject) -> bool:
        """Allow rules are stricter than deny rules: every command of a line and every path must be covered."""
        if not self._names(rule, call):
            return False
        if rule.pattern is None:
            return True
        if subject.command is not None:
            return self._command_allowed(rule, call, subject)
        if subject.path_forms:
            pattern = normalize_pattern(rule.pattern, self.cwd)
            return all(path_matches(pattern, resolved) for _, resolved in subject.path_forms)
        if subject.url is not None:
            return rule.matches_subject(subject.url)
        return False

    def _command_allowed(self, rule: Rule, call: PreparedCall, subject: CallSubject) -> bool:
        if subject.command is None or rule.pattern is None:
            return False
        if subject.command == normalize_command(rule.pattern):
            return True
        # A compound command is allowed only when every simple command in it is allowed.
        parts = subject.command_parts
        if not parts:
            return False
        rules = [r for r in (*self._grants, *self._allow) if self._names(r, call)]
        return any(rule.matches_subject(part) for part in parts) and all(
            any(r.pattern is None or r.matches_subject(part) for r in rules) for part in parts
        )

    def _covers_outside(self, rule: Rule, subject: CallSubject) -> bool:
        """Whether an allow rule names the outside path itself, not just the tool."""
        if rule.pattern is None or subject.outside_form is None:
            return False
        pattern = normalize_pattern(rule.pattern, self.cwd)
        stem = pattern.rstrip("*").removesuffix(":")
        return Path(stem).is_absolute() and path_matches(pattern, subject.outside_form)


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
        raise BadValueError(
            f"{PERMISSION_DEFAULT_ENV}={value!r} is not valid; "
            f"expected one of {', '.join(PERMISSION_DEFAULTS)}"
        )
    return value


def parse_mode(value: str) -> PermissionMode:
    """A mode name from a command line or slash command (Claude Code's names accepted)."""
    mode = MODE_ALIASES.get(value, value)
    if mode not in PERMISSION_MODES:
        raise BadValueError(f"unknown permission mode {value!r}; expected one of {', '.join(PERMISSION_MODES)}")
    return mode  # type: ignore[return-value]
