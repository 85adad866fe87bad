"""A policy made concrete on this machine: pick the mechanism once, then wrap each command.

    sandbox = open_sandbox(policy)          # probes the OS once per process, makes the temp dir
    for line in sandbox.warnings: ...       # say them: a weaker sandbox is never silent
    cmd = sandbox.wrap(["sh", "-c", command], env)
    proc = await asyncio.create_subprocess_exec(*cmd.argv, env=cmd.env, ...)
    note = sandbox.explain(returncode, output)   # "blocked by the sandbox: ..." or None
    removed = sandbox.after_command()       # "the sandbox removed .git/commondir ..." or None
    sandbox.close()                         # removes the temp dir

Linux: Landlock (+ user/mount/network namespaces where allowed), else bubblewrap, else off with a
warning that names why. macOS: Seatbelt through `sandbox-exec` (untested here). Elsewhere: off, warned.
"""

from __future__ import annotations

import dataclasses
import os
import secrets
import shutil
import tempfile
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from .denials import explain_denial
from .gitdirs import GitProtection, protect, protect_nested, protect_new, remove_redirects, scan_tree
from .linux import bwrap_argv, landlock_plan
from .macos import seatbelt_argv
from .policy import SandboxMode, SandboxPolicy
from .support import INTERPRETER, SandboxSupport, detect_support, launcher_argv

# Dropped from a confined command's environment: each names a socket that runs code or acts for the
# user outside the sandbox (a terminal multiplexer's server, the X or Wayland display, the session
# bus; the ssh agent signs as the user, so a command could log in anywhere the user can).
DROPPED_ENV = ("TMUX", "TMUX_PANE", "STY", "DISPLAY", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS",
               "SSH_AUTH_SOCK")

TEMP_PREFIX = "sigit-sandbox-"


def remove_stale_temp_dirs(directory: Path | None = None) -> list[Path]:
    """Remove the private temp dirs of siGit processes that ended without closing their sandbox (killed,
    crashed): `sigit-sandbox-PID-*` whose PID is gone, and this user's. What was removed."""
    base = Path(directory or tempfile.gettempdir())
    removed: list[Path] = []
    try:
        entries = list(base.glob(f"{TEMP_PREFIX}*-*"))
    except OSError:
        return removed
    for path in entries:
        pid_text = path.name[len(TEMP_PREFIX):].split("-", 1)[0]
        if not pid_text.isdigit() or int(pid_text) == os.getpid():
            continue
        try:
            if path.is_symlink() or not path.is_dir() or path.stat().st_uid != os.getuid():
                continue
            os.kill(int(pid_text), 0)
        except ProcessLookupError:
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
        except (OSError, OverflowError):
            continue
    return removed


Mechanism = Literal["landlock", "bubblewrap", "seatbelt", "none"]


@dataclass(frozen=True)
class Enforcement:
    """What will actually be enforced for the policy on this machine."""

    mechanism: Mechanism
    filesystem: bool = False  # writes confined to the writable roots
    git_read_only: bool = False  # .git/hooks and .git/config read-only
    network: bool = False  # network off enforced (False when the policy allows the network)
    namespaces: bool = False  # user namespaces in use (Landlock mechanism)
    warnings: tuple[str, ...] = ()
    processes: bool = False  # each command in a PID namespace: nothing it starts outlives siGit's end of it


@dataclass(frozen=True)
class SandboxedCommand:
    """What to pass to `create_subprocess_exec`: the argv (launcher first), the environment and the
    descriptors the launcher must inherit (`pass_fds`)."""

    argv: list[str]
    env: dict[str, str]
    pass_fds: tuple[int, ...] = ()


_lifeline: tuple[int, int] | None = None


def lifeline() -> int:
    """The read end of a pipe whose write end this process holds until it ends (never written): a
    background command's namespace ends when it reaches its end, if siGit dies without ending it."""
    global _lifeline
    if _lifeline is None:
        _lifeline = os.pipe()
    return _lifeline[0]


def decide(policy: SandboxPolicy, support: SandboxSupport) -> Enforcement:
    """Choose the mechanism and list every way it falls short of the policy."""
    if not policy.enabled:
        return Enforcement("none")
    wants_net_off = not policy.network
    if support.system == "Darwin":
        if support.sandbox_exec:
            return Enforcement("seatbelt", True, True, wants_net_off)
        return Enforcement("none", warnings=(f"sandbox off: {support.sandbox_exec or 'sandbox-exec'} "
                                             "is missing on this Mac",))
    if support.system != "Linux":
        return Enforcement("none", warnings=(f"sandbox off: no sandbox for {support.system} yet",))
    userns_why = support.user_namespaces_error or "not allowed"
    if support.landlock_abi >= 1:
        warnings: list[str] = []
        userns = support.user_namespaces
        if not userns:
            warnings.append(f"sandbox: .git/hooks and .git/config stay writable and service sockets "
                            f"(/run/user/UID, docker.sock) reachable: user namespaces are unavailable ({userns_why})")
        if support.landlock_abi < 3 and policy.mode != "off":
            note = (" (user namespaces exist here, but the sandbox does not use them for this)" if userns else "")
            warnings.append(f"sandbox: Landlock ABI {support.landlock_abi} cannot refuse truncation (needs ABI 3, "
                            f"kernel 6.2): a command can empty any file you can write, outside the workspace "
                            f"too{note}")
        net = False
        if wants_net_off:
            if userns or support.landlock_network:
                net = True
                if policy.loopback and not userns:
                    warnings.append("sandbox: loopback refused too: allowing it needs user namespaces "
                                    f"({userns_why}); only TCP is refused, UDP still works")
                elif not userns:
                    warnings.append(f"sandbox: only TCP is refused (UDP and DNS still work): user "
                                    f"namespaces are unavailable ({userns_why})")
            else:
                warnings.append(f"sandbox: the network stays on: Landlock ABI {support.landlock_abi} has no "
                                f"network rules (needs 4) and user namespaces are unavailable ({userns_why})")
        if any(Path(INTERPRETER).is_relative_to(root) for root in policy.writable_roots()):
            warnings.append(f"sandbox: the Python that starts sandboxed commands ({INTERPRETER}) is in a "
                            "writable directory; a command could replace it")
        if not (userns and support.pid_namespaces):
            why = (f"the kernel refused a new one: {support.pid_namespaces_error or 'not allowed'}" if userns
                   else f"user namespaces are unavailable ({userns_why})")
            warnings.append(f"sandbox: commands share siGit's PID namespace ({why}): what a command starts is "
                            "found by its session, process group and parents only, and one that leaves all "
                            "three can outlive it")
        return Enforcement("landlock", True, userns, net, userns, tuple(warnings),
                           processes=userns and support.pid_namespaces)
    if support.bwrap and support.user_namespaces:
        return Enforcement("bubblewrap", True, True, wants_net_off, processes=True,
                           warnings=("sandbox: Landlock is missing; using bubblewrap",))
    why = f"Landlock is not available (kernel {support.kernel})"
    why += ", and bubblewrap is " + ("not installed" if not support.bwrap else f"unusable ({userns_why})")
    return Enforcement("none", warnings=(f"sandbox off: {why}",))


class Sandbox:
    """One session's sandbox: its policy (with the private temp dir), its enforcement, its warnings."""

    def __init__(self, policy: SandboxPolicy, support: SandboxSupport | None = None) -> None:
        self.support = support if support is not None else (detect_support() if policy.enabled else None)
        self.enforcement = decide(policy, self.support) if self.support else Enforcement("none")
        if self.enforcement.mechanism != "none" and policy.temp_dir is None:
            remove_stale_temp_dirs()
            temp = Path(tempfile.mkdtemp(prefix=f"{TEMP_PREFIX}{os.getpid()}-")).resolve()
            # the tag marks the launcher's own setup-failure line, which a command cannot know to print
            policy = dataclasses.replace(policy, temp_dir=temp, tag=policy.tag or secrets.token_hex(8))
            self._owned_temp: Path | None = temp
            # removed by close(), or when the sandbox is dropped or siGit exits without closing it
            self._remove_temp: weakref.finalize[..., Sandbox] | None = weakref.finalize(
                self, shutil.rmtree, temp, ignore_errors=True)
        else:
            self._owned_temp = None
            self._remove_temp = None
        self.policy = policy
        # Resolved once: the files it follows are writable by the commands (see gitdirs.py).
        self._protection = protect(policy.work_roots(), policy.protected) if self.active else GitProtection()
        for own in policy.own_read_only() if self.active else ():
            self._protection.add_read_only(own)
        self._watched = list(self._protection.watched)
        self._created = GitProtection()  # nested repositories commands created, protected from then on
        for repo, keys in self._protection.unsafe.items():
            self._protection.warnings.append(_unsafe_sentence(repo, keys))

    @property
    def active(self) -> bool:
        return self.enforcement.mechanism != "none"

    @property
    def mode(self) -> SandboxMode:
        """The mode in force: the policy's, or `off` where nothing could enforce it."""
        return self.policy.mode if self.active else "off"

    @property
    def warnings(self) -> tuple[str, ...]:
        return (*self.enforcement.warnings, *self._protection.warnings)

    def describe(self) -> str:
        """For a status bar or `/status`: `workspace-write, network off`, or why it is off."""
        if self.active or not self.policy.enabled:
            return self.policy.describe()
        return f"off ({self.policy.mode} unavailable here)"

    def wrap(self, argv: Sequence[str], env: Mapping[str, str], *, background: bool = False) -> SandboxedCommand:
        """The argv and environment that run `argv` confined (unchanged when the sandbox is off).

        In a PID namespace (`enforcement.processes`), what the command starts ends with it; with
        `background`, it outlives the command until siGit kills the process group it started
        (`tools/processes.py`).
        """
        command, environ = list(argv), dict(env)
        if not self.active:
            return SandboxedCommand(command, environ)
        temp = str(self.policy.temp_dir)
        environ.update(TMPDIR=temp, TMP=temp, TEMP=temp)
        if "UV_CACHE_DIR" not in environ and self.mode == "workspace-write" and not any(
                Path(os.path.expanduser(c)) == Path(os.path.expanduser("~/.cache/uv")) for c in self.policy.cache_dirs):
            environ["UV_CACHE_DIR"] = str(Path(temp) / "uv-cache")  # uv's shared archive stays read-only
        for name in DROPPED_ENV:
            environ.pop(name, None)
        protection = self._current_protection()
        mechanism = self.enforcement.mechanism
        if mechanism == "landlock":
            assert self.support is not None
            tie = lifeline() if background and self.enforcement.processes else None
            plan = landlock_plan(self.policy, self.support, namespaces=self.enforcement.namespaces,
                                 protection=protection, background=background, lifeline=tie)
            return SandboxedCommand(launcher_argv(plan.args, command), environ, () if tie is None else (tie,))
        if mechanism == "bubblewrap":
            assert self.support is not None and self.support.bwrap is not None
            return SandboxedCommand(bwrap_argv(self.policy, self.support.bwrap, command, protection), environ)
        assert self.support is not None and self.support.sandbox_exec is not None
        return SandboxedCommand(seatbelt_argv(self.policy, command, self.support.sandbox_exec, protection),
                                environ)

    def _current_protection(self) -> GitProtection:
        """The protection resolved at open, plus repositories commands have created since."""
        new = protect_new(self.policy.work_roots(), self.policy.protected, self._protection)
        for git_dir in new.watched:
            if git_dir not in self._watched:
                self._watched.append(git_dir)
        return self._protection.merged(new).merged(self._created)

    @property
    def unsafe_repositories(self) -> dict[Path, list[str]]:
        """Nested repositories whose config makes git run programs (`core.fsmonitor`, filters, aliases...):
        siGit's own git refuses to run in them (`sigit.git`)."""
        return {**self._protection.unsafe, **self._created.unsafe}

    def _new_repositories(self) -> list[str]:
        """Protect nested repositories that appeared since the last look; a sentence for each."""
        names = [n[len(".git/"):] for n in self.policy.protected if n.startswith(".git/")]
        if not names:
            return []
        known = {*self._protection.nested, *self._created.nested}
        sentences: list[str] = []
        for root in self.policy.work_roots():
            for dot_git in scan_tree(root, linked=False).nested_git:
                if dot_git in known:
                    continue
                found = GitProtection()
                protect_nested(dot_git, names, found)
                self._created = self._created.merged(found)
                repo = dot_git.parent
                sentence = f"the command created a git repository at {self._shown(repo)}"
                if repo in found.unsafe:
                    sentence += "; " + _unsafe_sentence(repo, found.unsafe[repo]).removeprefix("sandbox: ")
                sentences.append(sentence)
        return sentences

    def after_command(self) -> str | None:
        """Remove a `commondir`/`config.worktree` a command created in a protected git dir; say so.

        Call it when a command has ended (blocking: a few stats; run it off the event loop).
        """
        if not self.active:
            return None
        notes = self._new_repositories()
        removed = remove_redirects(self._watched) if self._watched else []
        if removed:
            shown = ", ".join(self._shown(p) for p in removed)
            notes.append(f"the sandbox removed {shown} that the command created: it would redirect git's hooks "
                         "and config")
        return ". ".join(notes) if notes else None

    def _shown(self, path: Path) -> str:
        workspace = Path(self.policy.workspace).resolve()
        return str(path.relative_to(workspace)) if path.is_relative_to(workspace) else str(path)

    def explain(self, returncode: int, output: str) -> str | None:
        """The plain sentence for a sandbox denial in a failed command's output, or None."""
        if not self.active:
            return None
        return explain_denial(returncode, output, self.policy)

    def close(self) -> None:
        """Remove the private temp dir (background commands should be ended first)."""
        if self._remove_temp is not None:
            self._remove_temp()
            self._remove_temp = self._owned_temp = None

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _unsafe_sentence(repo: Path, keys: list[str]) -> str:
    return (f"sandbox: the repository {repo} has config that makes git run programs ({', '.join(keys)}): "
            "any git command there, yours included (`git status`), would run them; siGit runs no git there. "
            "Inspect it before using git in or above it")


def open_sandbox(policy: SandboxPolicy, support: SandboxSupport | None = None) -> Sandbox:
    """The sandbox for a session; `support` defaults to probing this machine (cached)."""
    return Sandbox(policy, support)
