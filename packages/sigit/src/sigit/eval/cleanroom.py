"""The grading copy: the task's starting files in a new folder, the agent's changes the task lets it make,
and the hidden checks on top. Nothing else of the agent's copy comes along.

What the agent may not change, whatever it did in its copy: the check's files, test code
(`test_*.py`, `*_test.*`, `*.test.js`, `conftest.py`...), the files that decide how the tests run
for the check's kind (package.json, CMakeLists.txt, Cargo.toml, Gradle's files, pytest's configuration...:
see RUNNER_FILES), Python start-up hooks (`sitecustomize.py`, `*.pth`) and new top-level modules named
like a standard library module. Those it changed are reported and graded in the task's version;
those it added are left out. A task may name more files it lets the agent change (`editable` globs
in task.toml: a task whose job is to edit package.json). A symlink comes along only as the file it
names inside the copy.
"""

from __future__ import annotations

import fnmatch
import os
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from .task_model import Task
from .workspace import WorkspaceError, write_files

TEST_CODE = re.compile(
    r"(^|/)(test_[^/]*\.py|[^/]*_test\.[^/.]+|[^/]*\.(test|spec)\.[cm]?[jt]sx?|[^/]*Tests?\.(java|kt)|conftest\.py)$"
)
ALWAYS_RUNNER = r"sitecustomize\.py|usercustomize\.py|[^/]*\.pth"
RUNNER_FILES: dict[str, str] = {
    "pytest": r"pytest\.ini|tox\.ini|setup\.cfg|pyproject\.toml",
    "node-test": r"package\.json|\.npmrc",
    "jest": r"package\.json|package-lock\.json|npm-shrinkwrap\.json|\.npmrc|(jest|babel)\.config\.[^/]*|\.babelrc",
    "cargo": r"Cargo\.toml|Cargo\.lock|build\.rs|\.cargo/[^/]*",
    "go": r"go\.mod|go\.sum",
    "gradle": r"gradlew(\.bat)?|[^/]*\.gradle(\.kts)?|gradle\.properties|gradle/.*",
    "catch": r"CMakeLists\.txt|[^/]*\.cmake|Makefile",
}
"""By check kind (checks.py), the files that decide how its tests run: restored from the task unless it
lists them as `editable` (a Makefile is the answer of a Makefile task checked by a script, and the
runner of a C++ build)."""


def _runner_files(kind: str) -> re.Pattern[str]:
    extra = RUNNER_FILES.get(kind)
    return re.compile(rf"(^|/)({ALWAYS_RUNNER}{'|' + extra if extra else ''})$")


@dataclass(frozen=True)
class CleanCopy:
    root: Path
    carried: tuple[str, ...]
    """The agent's changes brought over."""
    restored: tuple[str, ...]
    """Files the task has that the agent changed but may not: graded in the task's version."""
    left_out: tuple[str, ...]
    """Files the agent added that it may not add (a test, a runner file, a module shadowing the
    standard library, a link out of its copy): not in the grading copy."""


def forbidden(task: Task, name: str, kind: str) -> str | None:
    """Why the agent's version of `name` is not graded, or None when it is."""
    if name in task.check_files:
        return "a check file"
    if any(fnmatch.fnmatchcase(name, pattern) for pattern in task.editable):
        return None
    if TEST_CODE.search(name):
        return "test code"
    if _runner_files(kind).search(name):
        return "decides how the tests run"
    top = name.split("/", 1)[0].removesuffix(".py")
    if name.endswith(".py") and top in sys.stdlib_module_names and name not in task.repo:
        return "named like a standard library module"
    return None


def build(task: Task, agent_root: Path, changed: tuple[str, ...], dest: Path, kind: str) -> CleanCopy:
    """The grading copy in `dest` (emptied first): the task's files, the allowed changes, the checks."""
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    write_files(dest, task.repo)
    agent_real = agent_root.resolve()
    carried: list[str] = []
    restored: list[str] = []
    left_out: list[str] = []
    for name in changed:
        source = agent_root / name
        why = forbidden(task, name, kind)
        if why is None and os.path.lexists(source):
            real = source.resolve()
            if not real.is_relative_to(agent_real) or not real.is_file():
                why = "a link out of the copy" if not real.is_relative_to(agent_real) else "not a file"
        if why is not None:
            (restored if name in task.repo else left_out).append(name)
            continue
        target = dest / name
        if not target.resolve().is_relative_to(dest.resolve()):
            raise WorkspaceError(f"the agent's file leaves the copy: {name}")
        if not os.path.lexists(source):
            target.unlink(missing_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.unlink(missing_ok=True)
            shutil.copyfile(source.resolve(), target)
            os.chmod(target, source.resolve().stat().st_mode & 0o777)
        carried.append(name)
    write_files(dest, task.check_files)
    return CleanCopy(dest, tuple(carried), tuple(restored), tuple(left_out))
