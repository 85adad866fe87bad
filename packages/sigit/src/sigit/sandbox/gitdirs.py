"""The parts of a repository's git directory that must stay read-only inside a writable workspace.

Git runs `.git/hooks/*` and whatever `.git/config` names (`core.hooksPath`, filters, aliases,
`core.fsmonitor`) from later, unsandboxed git commands: a command that could write them could run code
outside the sandbox. So those are bound read-only, and the git directory itself is pinned (bound
onto itself) so that it cannot be renamed away and replaced by a fresh one. Objects, refs and the
index stay writable: commits work.

Linked worktrees and submodules keep their git directory elsewhere (`.git` is a file saying
`gitdir: ...`); that directory (and the common one it shares) becomes writable so commits work there
too, with the same read-only parts. A workspace that is a folder inside a repository does not get
the repository's git directory: its working tree reaches beyond the workspace, and refs or an index
written there would let a later checkout outside the sandbox write anywhere in it; commits from
such a folder fail with a sandbox denial. A repository that a command creates (`git init` in a folder
that had none) is protected from the next command on, not during the command that made it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

# Besides the policy's names: per-worktree config (read when extensions.worktreeConfig is set).
EXTRA_CONTROL = ("config.worktree",)


@dataclass
class GitProtection:
    """Paths to pin, to bind read-only (in that order), and git directories to make writable."""

    pins: list[Path] = field(default_factory=list)
    read_only: list[Path] = field(default_factory=list)
    writable: list[Path] = field(default_factory=list)

    def add_read_only(self, path: Path) -> None:
        if path.exists() and path not in self.read_only:
            self.read_only.append(path)


def protect(roots: Iterable[Path], protected: Iterable[str]) -> GitProtection:
    """What to protect under each writable root, for the `protected` names (`.git/hooks`, ...)."""
    result = GitProtection()
    names = tuple(protected)
    git_names = [n[len(".git/"):] for n in names if n.startswith(".git/")]
    for root in roots:
        dot_git = _find_dot_git(root)
        if git_names and dot_git is not None:
            if dot_git not in result.pins:
                result.pins.append(dot_git)
            for git_dir in _git_dirs(dot_git):
                if not _inside(git_dir, root) and git_dir not in result.writable:
                    result.writable.append(git_dir)
                _protect_git_dir(git_dir, git_names, result)
        for name in names:
            if not name.startswith(".git/"):
                result.add_read_only(root / name)
    return result


def _protect_git_dir(git_dir: Path, names: list[str], result: GitProtection) -> None:
    worktree = (git_dir / "commondir").exists()  # a linked worktree's own dir: hooks live in the common one
    if "hooks" in names and not worktree and not (git_dir / "hooks").exists() and (git_dir / "HEAD").exists():
        # Git would run hooks from a directory a command creates; make it now, empty, to bind it.
        with contextlib.suppress(OSError):
            (git_dir / "hooks").mkdir()
    for name in (*names, *EXTRA_CONTROL):
        result.add_read_only(git_dir / name)
    modules = git_dir / "modules"
    if modules.is_dir():  # submodules' git directories: .git/modules/<name>[/modules/...]
        for dirpath, dirnames, filenames in os.walk(modules):
            if "HEAD" in filenames:
                for name in (*names, *EXTRA_CONTROL):
                    result.add_read_only(Path(dirpath) / name)
                dirnames[:] = [d for d in dirnames if d == "modules"]


def _find_dot_git(root: Path) -> Path | None:
    dot_git = root / ".git"
    return dot_git if dot_git.is_dir() or dot_git.is_file() else None


def _git_dirs(dot_git: Path) -> list[Path]:
    """The git directory `.git` stands for and, for a linked worktree, the common one."""
    if dot_git.is_dir():
        return [Path(os.path.realpath(dot_git))]
    try:
        first = dot_git.read_text(encoding="utf-8", errors="replace").splitlines()[0]
    except (OSError, IndexError):
        return []
    if not first.startswith("gitdir:"):
        return []
    git_dir = Path(os.path.realpath(dot_git.parent / first[len("gitdir:"):].strip()))
    dirs = [git_dir] if git_dir.is_dir() else []
    try:
        common = (git_dir / "commondir").read_text(encoding="utf-8").strip()
    except OSError:
        return dirs
    common_dir = Path(os.path.realpath(git_dir / common))
    if common_dir.is_dir() and common_dir not in dirs:
        dirs.append(common_dir)
    return dirs


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents
