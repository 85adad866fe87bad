"""Deciding whether a tool call runs, asks the user, or is refused.

Order (first that applies wins):
1. a deny rule (even for read-only tools);
2. a read-only tool: allow, unless it reads outside the readable directories or fetches a URL;
3. plan mode: mutations are refused, with a message asking the model for a plan;
4. bypass mode: allow (only deny rules and per-tool "deny" overrides still refuse; a command line
   the grammar cannot fully account for asks when a deny rule names the tool);
5. a session grant, then an allow rule;
6. the per-tool override in `[permissions.tools]`;
7. accept-edits mode: tools that declare themselves edits are allowed inside the working directory;
8. `SIGIT_PERMISSION_DEFAULT`, then `[permissions] default`.
A write outside the working directory is never allowed silently (except in bypass mode): an
"allow" from steps 5-8 becomes "ask", unless an allow rule or grant names that path explicitly.
Likewise a file tool's write inside any `.git` directory (config, hooks: git runs what they name).

A read-only call that reads outside the readable directories (the working directory, the
`additional_directories` setting, `--add-dir`, the config dir and the skills/commands/agents folders
siGit reads itself; symlinks judged by where they lead) or fetches a URL is allowed only by a grant or
an allow rule that names the path (`read_file(/abs/dir/*)`) or the domain
(`read_website(domain:example.com)`, `read_website(domain:*.example.com)` for subdomains); otherwise
it asks (or is refused when the tool's override or the default is "deny"). Bypass mode allows them.

Everything is decided on a `PreparedCall`: the tool's own declarations (read-only, edit, aliases)
and the paths, command and URL it declares for these arguments. No tool is special-cased by name.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from sigit.config.paths import PROJECT_DIR, find_repo_root, resolves_inside
from sigit.config.protected import ProtectedPlaces
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
from sigit.config.trust import keep_trust
from sigit.errors import BadValueError
from sigit.offline import REASON
from sigit.permissions.rules import (
    CallSubject,
    is_inside,
    normalize_pattern,
    path_matches,
    subject_matches,
)
from sigit.permissions.shell_grammar import parse_line
from sigit.permissions.shell_patterns import CommandPattern, commands_allowed, grant_prefix
from sigit.tools.base import PreparedCall
from sigit.tools.processes import runs_bash
from sigit.tools.web import url_host

DecisionKind = Literal["allow", "deny", "ask"]

PERMISSION_DEFAULT_ENV = "SIGIT_PERMISSION_DEFAULT"
DOMAIN_PREFIX = "domain:"
EXTENSION_KINDS = ("skills", "commands", "agents")


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
        config_dir: Path | None = None,
        add_dirs: Sequence[str | Path] = (),
        offline: bool | None = None,
        places: ProtectedPlaces | None = None,
    ) -> None:
        self.settings = settings
        self.places = places if places is not None else ProtectedPlaces.default(config_dir)
        """Where no call writes (or reads) in any mode; the file tools check again on what they open."""
        self.offline = settings.offline if offline is None else offline
        """No call that declares a URL runs (offline mode): sigit reaches no network but the model's."""
        self.cwd = Path(os.path.abspath(cwd))
        self.config_dir = config_dir
        self._root = self.cwd.resolve()
        extra = [*settings.permissions.additional_directories, *add_dirs]
        self.extra_roots = tuple(Path(os.path.expanduser(d)) for d in extra)
        """The same directories as given (file tools walk from them: `ToolContext.roots`)."""
        self.additional_directories = [_resolved(Path(os.path.expanduser(d)), self.cwd) for d in extra]
        """Directories readable besides the working directory (setting and `--add-dir`), resolved."""
        own = readable_config_folders(self.cwd, config_dir) if config_dir is not None else []
        self._readable = list(dict.fromkeys([self._root, *self.additional_directories, *own]))
        self.mode: PermissionMode = mode if mode is not None else settings.permissions.mode
        if self.mode not in PERMISSION_MODES:
            raise BadValueError(
                f"unknown permission mode {self.mode!r}; expected one of {', '.join(PERMISSION_MODES)}"
            )
        self._allow = [parse_rule(text) for text in settings.permissions.allow]
        self._deny = [parse_rule(text) for text in settings.permissions.deny]
        self._grants: list[Rule] = []
        self._asked_grants: set[str] = set()  # granted at a prompt: they never unlock a private address
        self._env_default = _env_default(os.environ if env is None else env)

    # -- decisions -------------------------------------------------------------------------------

    def decide(self, call: PreparedCall) -> Decision:
        try:
            decision = self._protected(call) or self._decide(call)
        except (OSError, RuntimeError, ValueError) as exc:  # a path that cannot be resolved (a link loop, a swap)
            return Decision("deny", f"{call.name} was not run: its path could not be resolved ({exc}); it may "
                            "be a link loop, or be changing while it was checked")
        if decision.kind == "ask" and call.subjects.command is not None:
            covers = self.grant_covers(call)
            if covers is not None:
                return Decision("ask", f"{decision.reason}. \"Always\" would allow {covers}", decision.rule)
        return decision

    def _protected(self, call: PreparedCall) -> Decision | None:
        """A call that writes (or reads) a protected place is refused in every mode, grants and rules
        notwithstanding: what siGit reads at its next start is not the model's to change."""
        subjects = call.subjects
        writes = () if call.read_only else subjects.writes
        targets = [(path, True) for path in writes] + [(path, False) for path in subjects.reads]
        line = parse_line(subjects.command) if subjects.command is not None and not call.read_only else None
        base = subjects.command_cwd or self.cwd
        for write in line.writes if line is not None else ():
            targets.append((base / os.path.expanduser(write.target), True))
        for path, writing in targets:
            reason = self.places.refusal(Path(os.path.realpath(path if path.is_absolute() else self.cwd / path)),
                                         writing)
            if reason is not None:
                return Decision("deny", f"{call.name} was refused: {reason}")
        return None

    def grant_covers(self, call: PreparedCall) -> str | None:
        """What the "always allow" grant for a command covers, in words (naming the options it leaves out)."""
        command = call.subjects.command
        commands = parse_line(command).commands if command is not None else ()
        if not commands or not commands[0].words:
            return None
        return grant_prefix(commands[0]).covers()

    def _decide(self, call: PreparedCall) -> Decision:
        name = call.name
        subject = CallSubject.of(call, self.cwd)

        url = call.subjects.url
        for rule in self._deny:
            if self._names(rule, call) and (
                subject_matches(rule, subject, self.cwd) or (url is not None and _domain_rule_matches(rule, url))
            ):
                return Decision("deny", f"{name} is denied by the rule {rule.text}", rule.text)
        if url is not None and self.offline:
            return Decision("deny", f"{name} was not run: {REASON}, so sigit makes no network request ({url}); "
                            "work from the files on this machine instead")
        line = subject.line
        if line is not None and line.bash_only and not runs_bash():
            return Decision("deny", f"{name} was not run: this system has no bash, and `sh` would read the line's "
                            f"{', '.join(line.bash_only)} otherwise than the rules judged it; write it in POSIX sh")
        outside_read = self.outside_read(call)
        if call.read_only and outside_read is None and url is None:
            return Decision("allow", "read-only tool")
        if self.mode == "plan" and not call.read_only:
            return Decision(
                "deny",
                f"Plan mode is on, so {name} was not run. Use read-only tools to investigate, then "
                "reply with a short step-by-step plan; the user will switch modes to carry it out.",
            )
        override = self._override(call)
        if self.mode == "bypass":
            if override == "deny":
                return Decision("deny", f"{name} is set to deny in [permissions.tools]")
            if line is not None and line.opaque and any(self._names(rule, call) for rule in self._deny):
                return Decision("ask", f"{name}: the line cannot be fully checked against the deny rules "
                                f"({line.opaque[0]}), so bypass mode asks")
            return Decision("allow", "bypass mode")
        if call.read_only:
            return self._guarded_read(call, outside_read, override)

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
                    if subject.git_target is not None and not _names_git_path(rule):
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
        decision = self._settled(default, f"default permission is {default}", subject, name)
        note = self._redirect_note(call, subject) if decision.kind == "ask" else None
        return Decision("ask", note) if note is not None else decision

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
        if kind == "allow" and subject.git_target is not None:
            return Decision("ask", f"{tool_name} writes inside a git directory ({subject.git_target}): git runs "
                            "what its config and hooks name, outside any sandbox")
        if kind == "allow":
            return Decision("allow", reason)
        return Decision("deny" if kind == "deny" else "ask", reason)

    def _outside(self, tool_name: str, subject: CallSubject) -> Decision:
        return Decision("ask", f"{tool_name} writes outside the working directory ({subject.outside_target})")

    def _guarded_read(self, call: PreparedCall, outside: Path | None, override: str | None) -> Decision:
        """A read outside the readable directories, or a URL: only a rule naming it allows it silently."""
        for rules, label in (
            (self._grants, "allowed for this session by"),
            (self._allow, "allowed by the rule"),
        ):
            for rule in rules:
                if self._names(rule, call) and self._covers_read(rule, call, outside):
                    return Decision("allow", f"{label} {rule.text}", rule.text)
        name = call.name
        default = self._env_default or self.settings.permissions.default
        if override == "deny":
            return Decision("deny", f"{name} is set to deny in [permissions.tools]")
        if override is None and default == "deny":
            return Decision("deny", f"default permission is {default}")
        if outside is not None:
            folder = outside if outside.is_dir() else outside.parent
            return Decision(
                "ask",
                f"{name} reads {outside.as_posix()}, outside the working directory; "
                f"--add-dir {folder.as_posix()} (or `additional_directories` in settings) allows reads there",
            )
        host = url_host(call.subjects.url or "")
        return Decision("ask", f"{name} fetches from {host or call.subjects.url}, a domain not allowed yet")

    def _covers_read(self, rule: Rule, call: PreparedCall, outside: Path | None) -> bool:
        """Whether an allow rule covers every outside path (by absolute path) and the URL of a call."""
        url = call.subjects.url
        if url is not None and not (
            rule.pattern is None or _domain_rule_matches(rule, url) or (
                not rule.pattern.startswith(DOMAIN_PREFIX) and rule.matches_subject(url)
            )
        ):
            return False
        if outside is None:
            return url is not None
        if rule.pattern is None:
            return False
        pattern = normalize_pattern(rule.pattern, self.cwd)
        if not Path(pattern.rstrip("*").removesuffix(":")).is_absolute():
            return False
        return all(
            self._is_readable(path) or path_matches(pattern, path.as_posix())
            for path in (_resolved(p, self.cwd) for p in call.subjects.reads)
        )

    def outside_read(self, call: PreparedCall) -> Path | None:
        """The first path the call reads outside the readable directories (resolved), or None."""
        for path in call.subjects.reads:
            resolved = _resolved(path, self.cwd)
            if not self._is_readable(resolved):
                return resolved
        return None

    def _is_readable(self, resolved: Path) -> bool:
        return any(is_inside(resolved, root) for root in self._readable)

    def names_host(self, host: str) -> bool:
        """Whether an allow rule from settings or the command line names `host` itself
        (`domain:HOST`), which lets read_website reach it at a loopback or private address.
        Grants made at a prompt do not count: the user saw a name, not the address it resolves to."""
        wanted = f"{DOMAIN_PREFIX}{host.rstrip('.').lower()}"
        rules = [*self._allow, *(r for r in self._grants if r.text not in self._asked_grants)]
        return any(r.pattern is not None and r.pattern.lower() == wanted for r in rules)

    # -- grants ----------------------------------------------------------------------------------

    def suggested_rule(self, call: PreparedCall) -> str:
        """The rule an "always allow" answer would add.

        A call that runs a command: the first two words of the (first) command, as a prefix; a
        call writing outside the working directory: that exact path; a read outside the readable
        directories: that directory (`dir/*`) or that file; a URL: its domain; any other: the whole tool.
        """
        name = call.name
        command = call.subjects.command
        if command is not None:
            commands = parse_line(command).commands
            if commands and commands[0].words:
                return f"{name}({grant_prefix(commands[0]).pattern})"
            return name
        subject = CallSubject.of(call, self.cwd)
        if subject.outside_form is not None:
            return f"{name}({subject.outside_form})"
        outside = self.outside_read(call)
        if outside is not None:
            where = outside.as_posix()
            return f"{name}({where.rstrip('/')}/*)" if outside.is_dir() else f"{name}({where})"
        host = url_host(call.subjects.url) if call.subjects.url is not None else None
        if host is not None:
            return f"{name}({DOMAIN_PREFIX}{host})"
        return name

    def grant_session(self, call: PreparedCall) -> str:
        """Allow calls like this one for the rest of the session; returns the rule granted."""
        rule = self.suggested_rule(call)
        self.add_session_rule(rule)
        self._asked_grants.add(parse_rule(rule).text)
        return rule

    def grant_project(self, call: PreparedCall) -> str:
        """Like grant_session, and also saved to the project's `.sigit/settings.toml`."""
        rule = self.grant_session(call)
        if self.config_dir is None:  # no trust store to keep in step (a bare policy, in tests)
            save_project_rule(self.cwd, rule, "allow")
        else:  # the user's own word: a folder trusted before stays trusted with the rule added
            keep_trust(self.cwd, self.config_dir, lambda: save_project_rule(self.cwd, rule, "allow"))
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
        return rule.matches_tool(call.name, call.tool.rule_names)

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
        """A line is allowed only when the grammar can account for all of it, every simple command in
        it is allowed by some rule (this one among them), and it redirects into no file."""
        line = subject.line
        if subject.command is None or rule.pattern is None or line is None:
            return False
        this = CommandPattern.parse(rule.pattern)
        if this is None or not any(this.allows(command) for command in line.commands):
            return False
        if line.writes and not self._writes_accepted(call, subject):
            return False  # a rule allows running a command; writing files with it is an edit
        rules = [r for r in (*self._grants, *self._allow) if self._names(r, call)]
        if any(r.pattern is None for r in rules):
            return not line.opaque and bool(line.commands)
        patterns = [p for r in rules if r.pattern is not None and (p := CommandPattern.parse(r.pattern)) is not None]
        return commands_allowed(line, patterns)

    def _writes_accepted(self, call: PreparedCall, subject: CallSubject) -> bool:
        """accept-edits mode lets an allowed command redirect into files inside the working directory."""
        line = subject.line
        if self.mode != "accept-edits" or line is None:
            return False
        base = call.subjects.command_cwd or self.cwd
        return all(_inside_target(w.target, base, self._root) for w in line.writes)

    def _redirect_note(self, call: PreparedCall, subject: CallSubject) -> str | None:
        """Why a line whose commands a rule allows still asks: it redirects into files."""
        line = subject.line
        if line is None or not line.writes or line.opaque:
            return None
        rules = [r for r in (*self._grants, *self._allow) if self._names(r, call) and r.pattern is not None]
        patterns = [p for r in rules if (p := CommandPattern.parse(r.pattern or "")) is not None]
        if not patterns or not commands_allowed(line, patterns):
            return None
        targets = ", ".join(dict.fromkeys(w.target for w in line.writes))
        base = call.subjects.command_cwd or self.cwd
        if all(_inside_target(w.target, base, self._root) for w in line.writes):
            return (f"{call.name} writes to {targets} by redirection: a rule allows running a command, not "
                    "writing files with it (with --permission-mode accept-edits, allowed commands may "
                    "write inside the working directory)")
        return (f"{call.name} writes outside the working directory ({targets}) by redirection; only "
                "--permission-mode bypass runs that without asking")

    def _covers_outside(self, rule: Rule, subject: CallSubject) -> bool:
        """Whether an allow rule names the outside path itself, not just the tool."""
        if rule.pattern is None or subject.outside_form is None:
            return False
        pattern = normalize_pattern(rule.pattern, self.cwd)
        stem = pattern.rstrip("*").removesuffix(":")
        return Path(stem).is_absolute() and path_matches(pattern, subject.outside_form)


def _names_git_path(rule: Rule) -> bool:
    """Whether an allow rule names a path inside a `.git` directory itself (`edit_file(.git/info/*)`)."""
    return rule.pattern is not None and ".git" in Path(rule.pattern.rstrip("*")).parts


def _domain_rule_matches(rule: Rule, url: str) -> bool:
    """`domain:example.com` matches that host exactly; `domain:*.example.com` matches its subdomains."""
    if rule.pattern is None or not rule.pattern.lower().startswith(DOMAIN_PREFIX):
        return False
    host = url_host(url)
    if host is None:
        return False
    wanted = rule.pattern[len(DOMAIN_PREFIX):].strip().rstrip(".").lower()
    if wanted.startswith("*."):
        return host.endswith(wanted[1:])
    return host == wanted


def _inside_target(target: str, base: Path, root: Path) -> bool:
    """Whether a redirection target (as bash would open it from `base`) lies inside `root`."""
    if target.startswith("~"):
        return False
    return is_inside(Path(os.path.realpath(base / target)), root)


def _resolved(path: Path, cwd: Path) -> Path:
    """`path` made absolute against cwd with symlinks followed, so a link cannot hide where it leads."""
    joined = path if path.is_absolute() else cwd / path
    try:
        return joined.resolve()
    except (OSError, RuntimeError):
        return Path(os.path.normpath(joined))


def readable_config_folders(cwd: Path, config_dir: Path, home: Path | None = None) -> list[Path]:
    """The folders siGit reads itself, so its tools may read them too: the config dir, and the
    skills/commands/agents folders of `sigit.extensions.locations.search_roots` (which this layer
    cannot import; a test keeps the two lists in step), whether they exist yet or not."""
    start = _resolved(cwd, cwd)
    repo = find_repo_root(start)
    directories: Iterable[Path] = [start]
    if repo is not None:
        directories = [start, *[p for p in start.parents if repo == p or repo in p.parents]]
    home_dir = home or Path(os.environ.get("HOME", "").strip() or Path.home())
    folders = [_resolved(config_dir, cwd)]
    bounds = (repo or start, config_dir)
    for kind in EXTENSION_KINDS:
        for directory in directories:
            # a project's folder counts only where it leads inside the project (`.claude/skills -> /` does not)
            folders += [folder for folder in (directory / PROJECT_DIR / kind, directory / ".claude" / kind)
                        if resolves_inside(folder, *bounds)]
        folders.append(_resolved(home_dir / ".claude" / kind, cwd))
    return [_resolved(f, cwd) for f in folders]


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
