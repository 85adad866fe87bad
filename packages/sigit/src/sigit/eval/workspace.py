"""A task's fresh copy: its files in a new git repository, the agent's diff, the hidden check put back.

The copy is committed before the agent starts, so the agent sees a repository (as a user's would) and
what it changed is `git diff` against that commit. Grading writes the check's files over the copy;
any of them the agent could see and changed means it edited the tests (reported; the check's
version is what runs, so editing the tests never passes a task). Everything here blocks: threads.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from .task_model import Files, Task

GIT = (
    "git",
    "-c",
    "user.name=sigit eval",
    "-c",
    "user.email=eval@sigit.invalid",
    "-c",
    "commit.gpgsign=false",
    "-c",
    "core.autocrlf=false",
    "-c",
    "init.defaultBranch=main",
)
DIFF_LIMIT = 16_000
"""Characters of the agent's diff kept in a result (the whole stays in the copy with --keep)."""


class WorkspaceError(RuntimeError):
    """The copy could not be made (disk full, git missing): a crash in the task, not the agent's."""


@dataclass(frozen=True)
class TaskCopy:
    root: Path
    """The repository the agent works in (removed with `remove` unless kept)."""


@dataclass(frozen=True)
class AgentChanges:
    files: tuple[str, ...]
    """Paths the agent added, changed or deleted (relative, sorted)."""
    diff: str
    """`git diff` of them against the start, cut to DIFF_LIMIT characters."""


def write_files(root: Path, files: Files) -> None:
    for relative, source in files.items():
        target = root / relative
        if root.resolve() not in target.resolve().parents:
            raise WorkspaceError(f"a task file leaves its folder: {relative}")
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.is_symlink() or target.is_file():
            target.unlink()
        if isinstance(source, bytes):
            target.write_bytes(source)
        else:  # contents and mode, not the source's times: git judges a change by size and mtime first
            shutil.copyfile(source, target)
            shutil.copymode(source, target)


def _git(root: Path, *args: str) -> str:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0"}
    try:
        proc = subprocess.run(
            [*GIT, *args], cwd=root, env=env, capture_output=True, text=True, timeout=60, errors="replace"
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise WorkspaceError(f"git {' '.join(args)} failed: {exc}") from exc
    if proc.returncode != 0:
        raise WorkspaceError(f"git {' '.join(args)} failed: {proc.stderr.strip() or proc.stdout.strip()}")
    return proc.stdout


def prepare(task: Task, parent: Path) -> TaskCopy:
    """The task's starting files in `parent/repo` (emptied first), committed in a new repository."""
    root = parent / "repo"
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    write_files(root, task.repo)
    _git(root, "init", "-q")
    _git(root, "add", "-A", "-f")
    _git(root, "commit", "-q", "--allow-empty", "--no-verify", "-m", f"eval task {task.id}: starting files")
    return TaskCopy(root)


def agent_changes(copy: TaskCopy) -> AgentChanges:
    """What the agent changed since the start (new files included)."""
    _git(copy.root, "add", "-A", "-f")
    names = _git(copy.root, "diff", "--cached", "--name-only", "--no-renames", "HEAD").split("\n")
    diff = _git(copy.root, "diff", "--cached", "--no-renames", "--no-color", "HEAD")
    if len(diff) > DIFF_LIMIT:
        diff = diff[:DIFF_LIMIT] + f"\n... ({len(diff) - DIFF_LIMIT} more characters)\n"
    return AgentChanges(tuple(sorted(n for n in names if n)), diff)


def restore_check(copy: TaskCopy, task: Task, changed: tuple[str, ...]) -> tuple[str, ...]:
    """Write the check's files over the copy; returns those of them the agent could see and changed."""
    edited = tuple(sorted(name for name in task.check_files if name in task.repo and name in changed))
    write_files(copy.root, task.check_files)
    return edited


def remove(copy: TaskCopy) -> None:
    shutil.rmtree(copy.root.parent, ignore_errors=True)
