"""One eval task as the harness runs it (`Task`), the error for a task or pack that does not follow the
format, and how a task's files are gathered from a folder. `sigit.eval.tasks` reads siGit's own folder
format into these and `sigit.eval.exercism` Exercism's; both share what is here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import UsageError

DEFAULT_TIMEOUT_S = 600.0
DEFAULT_MAX_TURNS = 30
DEFAULT_CHECK_TIMEOUT_S = 60.0
IGNORED_NAMES = frozenset({"__pycache__", ".DS_Store", ".pytest_cache", ".mypy_cache", "node_modules", ".git"})
"""Never copied from a pack: caches a test run of the pack itself may leave beside its files."""

Files = Mapping[str, "Path | bytes"]
"""Relative POSIX path -> the file on disk, or its content (a check file the loader rewrote)."""


class TaskFormatError(UsageError):
    """A task folder or pack that does not follow the format; the message names the file and the fault."""


@dataclass(frozen=True)
class Task:
    id: str
    family: str
    language: str
    prompt: str
    check: tuple[str, ...]
    """The grading command, `{python}` and `{node}` still in it (`check_argv` fills them)."""
    repo: Files
    check_files: Files
    solution: Files = field(default_factory=dict)
    timeout_s: float = DEFAULT_TIMEOUT_S
    max_turns: int = DEFAULT_MAX_TURNS
    check_timeout_s: float = DEFAULT_CHECK_TIMEOUT_S
    source: str = ""
    """Where the task was read from (a folder), for messages."""
    fail_to_pass: tuple[str, ...] = ()
    """Tests the agent's change must make pass (`fail_to_pass`): with `pass_to_pass`, the tests graded."""
    pass_to_pass: tuple[str, ...] = ()
    """Tests that must keep passing. With neither named, every test the check files define is required."""
    editable: tuple[str, ...] = ()
    """Globs of files the agent may change although they decide how the tests run (cleanroom.py)."""
    workdir_name: str = "repo"
    needs: tuple[str, ...] = ()
    """Programs the check runs (`make`): where one is not installed the task grades as `env_error`,
    decided from the task before anything of the agent's runs."""
    """The grading copy's folder name (an exercise's own: Exercism's CMake finds its files by it)."""

    def check_argv(self, python: str, node: str = "node") -> list[str]:
        return [part.replace("{python}", python).replace("{node}", node) for part in self.check]


def files_under(root: Path) -> dict[str, Path | bytes]:
    """Every file under `root` by relative POSIX path (symlinks kept as the files they name; caches left out)."""
    found: dict[str, Path | bytes] = {}
    if not root.is_dir():
        return found
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root)
        if any(part in IGNORED_NAMES for part in relative.parts) or path.suffix == ".pyc":
            continue
        if path.is_file():
            found[relative.as_posix()] = path
    return found
