"""siGit's own git commands (attribution, the system prompt's git summary, the TUI Repo tab).

The repository is untrusted input: a sandboxed command can `git init` a repository, or configure a
new one, and plant hooks, `core.fsmonitor`, filters or `trailer.*.cmd` in it. Git runs those from
siGit's own later commands, which would otherwise run them outside the sandbox. So every git command
siGit runs gets `HARDENING` (no hooks, no fsmonitor, no signing, no transport), and, when the
session's sandbox is active, runs through it: whatever repository config still runs code (filters,
trailer commands) stays as confined as the command that planted it. System and global config are
the user's own and are read as usual.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
import signal
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

HARDENING: tuple[str, ...] = (
    "-c", "core.hooksPath=/dev/null",  # no hook runs: post-commit, post-rewrite, reference-transaction...
    "-c", "core.fsmonitor=false",  # `git status` and index refreshes would run it
    "-c", "commit.gpgSign=false",  # the amend would run gpg.program
    "-c", "log.showSignature=false",  # `git log` would run gpg.program
    "-c", "core.sshCommand=false",  # a lazy fetch (partial clone) would run it
    "-c", "protocol.allow=never",  # and no transport at all: siGit's commands are local
)
"""Options given before every subcommand (they reach git's child processes and submodules too)."""

ENV: Mapping[str, str] = {
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_PAGER": "cat",
    "PAGER": "cat",
    "GIT_EDITOR": "true",
    "GIT_OPTIONAL_LOCKS": "0",  # reading the status must not take the index lock from the user's git
    "GIT_NO_LAZY_FETCH": "1",
    "LC_ALL": "C",  # messages siGit reads ("not a git repository") in English
}


class WrappedCommand(Protocol):
    """What a sandbox's `wrap` returns (a `sigit.sandbox.SandboxedCommand`)."""

    @property
    def argv(self) -> Sequence[str]: ...

    @property
    def env(self) -> Mapping[str, str]: ...


class Confinement(Protocol):
    """What siGit needs of the session's sandbox (a `sigit.sandbox.Sandbox`) to run git in it."""

    @property
    def active(self) -> bool: ...

    def wrap(self, argv: Sequence[str], env: Mapping[str, str]) -> WrappedCommand: ...


@dataclass(frozen=True)
class GitResult:
    code: int
    stdout: str
    stderr: str


# Repository config keys that make git run a program (or pull in config that may): planted in a nested
# repository, they would run from the user's next `git status` there, outside any sandbox.
_DANGEROUS_KEY = re.compile(
    r"^(core\.(fsmonitor|hookspath|sshcommand|pager|editor|askpass|gitproxy|worktree)|filter\..+|alias\..+"
    r"|include\.path|includeif\..+|diff\.external|diff\..+\.(textconv|command)|merge\..+\.driver"
    r"|credential\..*helper|sequence\.editor|gpg\..*program|trailer\..+\.(cmd|command)|pager\..+"
    r"|remote\..+\.(uploadpack|receivepack|proxy)|uploadpack\..+|receive\..+|protocol\..+|url\..+"
    r"|hook\..+|sendemail\..+)$",
    re.IGNORECASE,
)


def git_executable(avoid: Iterable[Path] = ()) -> str:
    """The git siGit runs outside the sandbox: the first on PATH, skipping relative entries (`.`, `bin`)
    and directories inside `avoid` or the current directory. A command may leave a `git` in the
    workspace; with an activated `.venv/bin` or `./node_modules/.bin` on PATH, siGit's own check of
    a repository's config would otherwise run it unconfined."""
    places = [Path(os.path.realpath(p)) for p in (*avoid, Path.cwd())]
    kept = []
    for entry in os.environ.get("PATH", os.defpath).split(os.pathsep):
        if not entry or not os.path.isabs(entry):
            continue
        real = Path(os.path.realpath(entry))
        if any(real == place or place in real.parents for place in places):
            continue
        kept.append(entry)
    return shutil.which("git", path=os.pathsep.join(kept)) or "/usr/bin/git"


def dangerous_config(git_dir: Path, timeout: float = 5.0) -> list[str]:
    """The keys of a repository's own `config` that make git run a program (`core.fsmonitor`,
    `core.hooksPath`, `core.sshCommand`, `core.pager`, filters, aliases, includes...), or a note that it
    could not be read. Read by `git config --file` (no repository, no hooks, no includes)."""
    config = git_dir / "config"
    if not config.is_file() or config.is_symlink():
        return ["config (not a regular file)"] if os.path.lexists(config) else []
    try:
        done = subprocess.run([git_executable((git_dir.parent,)), "config", "--file", str(config), "--no-includes",
                               "--name-only", "--list"],
                              capture_output=True, timeout=timeout, check=False, stdin=subprocess.DEVNULL,
                              env={**os.environ, **ENV})
    except (OSError, subprocess.TimeoutExpired):
        return ["config (git could not read it)"]
    if done.returncode != 0:
        return ["config (git could not parse it)"]
    keys = [key for key in _text(done.stdout).splitlines() if _DANGEROUS_KEY.match(key)]
    return list(dict.fromkeys(keys))


def _refusal(cwd: Path, sandbox: Confinement | None) -> str | None:
    """Why siGit will not run its own git in `cwd`: it is in a repository a sandboxed command created
    whose config makes git run programs (the sandbox's `unsafe_repositories`)."""
    flagged = getattr(sandbox, "unsafe_repositories", {}) if sandbox is not None else {}
    start = Path(os.path.realpath(cwd))
    for repo, keys in flagged.items():
        if start == repo or repo in start.parents:
            return f"{repo}/.git/config sets {', '.join(keys)}, which make git run programs; siGit runs no git there"
    return None


class UnsafeRepositoryError(OSError):
    """siGit refuses to run its own git in a repository whose config makes git run programs."""


def git_command(args: Sequence[str], sandbox: Confinement | None = None) -> tuple[list[str], dict[str, str]]:
    """The argv and environment for `git args`, hardened, and confined when `sandbox` is active.

    Wrapping stats the repository's git directories: call it off the event loop.
    """
    argv = ["git", "--no-pager", *HARDENING, *args]
    env = {**os.environ, **ENV}
    if sandbox is not None and sandbox.active:
        wrapped = sandbox.wrap(argv, env)
        return list(wrapped.argv), dict(wrapped.env)
    return argv, env


def run_git(cwd: Path, *args: str, sandbox: Confinement | None = None, timeout: float = 10.0) -> GitResult:
    """Run git in `cwd` (blocking). Raises OSError when git cannot start (`UnsafeRepositoryError` in a
    repository a sandboxed command created with config that runs programs), TimeoutExpired past `timeout`."""
    if (why := _refusal(cwd, sandbox)) is not None:
        raise UnsafeRepositoryError(why)
    argv, env = git_command(args, sandbox)
    completed = subprocess.run(
        argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout, check=False,
    )
    return GitResult(completed.returncode, _text(completed.stdout), _text(completed.stderr))


async def run_git_async(
    cwd: Path, *args: str, sandbox: Confinement | None = None, timeout: float = 10.0,
) -> GitResult:
    """`run_git` for async code. Raises OSError when git cannot start, TimeoutError past `timeout`."""
    if (why := _refusal(cwd, sandbox)) is not None:
        raise UnsafeRepositoryError(why)
    argv, env = await asyncio.to_thread(git_command, args, sandbox)
    proc = await asyncio.create_subprocess_exec(
        *argv, cwd=str(cwd), env=env, stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    try:
        out, err = await asyncio.wait_for(proc.communicate(), timeout)
    except BaseException:  # timed out, or cancelled (the TUI reloads the Repo tab)
        # os.kill, not proc.kill(): Popen.send_signal polls (reaps) the child, racing asyncio's watcher
        with contextlib.suppress(ProcessLookupError):
            os.kill(proc.pid, signal.SIGKILL)
        raise
    return GitResult(proc.returncode or 0, _text(out), _text(err))


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")
