"""Eval tasks and packs: siGit's folder format, the built-in packs by name, and picking tasks by glob.

A pack is a folder of task folders; a task folder `<id>/` holds `task.toml` (id, family, language,
prompt, check, optional timeout_s, max_turns, check_timeout_s; fail_to_pass and pass_to_pass, the tests
graded by name, else every test the check defines; editable, globs of runner files the agent may
change; needs, programs the check runs, whose absence grades the task `env_error`), `repo/` (the
starting files the agent
sees), `check/` (hidden files put over the copy before grading) and optionally `solution/` (a
reference solution, for the pack's own tests). A folder laid out like Exercism's tracks (Aider's
polyglot benchmark) is read by `sigit.eval.exercism` into the same `Task`s.
"""

from __future__ import annotations

import fnmatch
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from onde import expand_home

from .exercism import is_exercism, load_exercism

# `Task` and what the readers share live in task_model.py (exercism.py reads into them too); re-exported here
from .task_model import DEFAULT_CHECK_TIMEOUT_S as DEFAULT_CHECK_TIMEOUT_S
from .task_model import DEFAULT_MAX_TURNS as DEFAULT_MAX_TURNS
from .task_model import DEFAULT_TIMEOUT_S as DEFAULT_TIMEOUT_S
from .task_model import IGNORED_NAMES as IGNORED_NAMES
from .task_model import Files as Files
from .task_model import Task as Task
from .task_model import TaskFormatError as TaskFormatError
from .task_model import files_under as files_under

FAMILIES = (
    "fix-test",
    "implement",
    "rename",
    "multi-file",
    "config-edit",
    "whitespace",
    "long-file",
    "shell",
    "tool-syntax",
    "other",
)


def load_task(folder: Path) -> Task:
    """The task in `folder` (TaskFormatError naming what is wrong)."""
    spec_path = folder / "task.toml"
    try:
        spec = tomllib.loads(spec_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise TaskFormatError(f"{folder} is not a task: it has no task.toml") from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise TaskFormatError(f"{spec_path}: {exc}") from exc
    where = str(spec_path)
    task_id = _text(spec, "id", where)
    if task_id != folder.name:
        raise TaskFormatError(f"{where}: id {task_id!r} must be the folder's name {folder.name!r}")
    family = _text(spec, "family", where)
    if family not in FAMILIES:
        raise TaskFormatError(f"{where}: family {family!r} is not one of {', '.join(FAMILIES)}")
    check = spec.get("check")
    if not isinstance(check, list) or not check or not all(isinstance(a, str) and a for a in check):
        raise TaskFormatError(f"{where}: check must be a non-empty list of strings (the command's argv)")
    unknown = set(spec) - {
        "id",
        "family",
        "language",
        "prompt",
        "check",
        "timeout_s",
        "max_turns",
        "check_timeout_s",
        "description",
        "fail_to_pass",
        "pass_to_pass",
        "editable",
        "needs",
    }
    if unknown:
        raise TaskFormatError(f"{where}: unknown keys {', '.join(sorted(unknown))}")
    if not (folder / "repo").is_dir():
        raise TaskFormatError(f"{folder}: a task needs a repo/ folder with its starting files")
    return Task(
        id=task_id,
        family=family,
        language=_text(spec, "language", where),
        prompt=_text(spec, "prompt", where),
        check=tuple(check),
        repo=files_under(folder / "repo"),
        check_files=files_under(folder / "check"),
        solution=files_under(folder / "solution"),
        timeout_s=_positive(spec, "timeout_s", DEFAULT_TIMEOUT_S, where),
        max_turns=int(_positive(spec, "max_turns", DEFAULT_MAX_TURNS, where, integer=True)),
        check_timeout_s=_positive(spec, "check_timeout_s", DEFAULT_CHECK_TIMEOUT_S, where),
        source=str(folder),
        fail_to_pass=_names(spec, "fail_to_pass", where),
        pass_to_pass=_names(spec, "pass_to_pass", where),
        editable=_names(spec, "editable", where),
        needs=_names(spec, "needs", where),
    )


def packs_root() -> Path | None:
    """The folder that holds the built-in packs, or None where none are installed.

    The packs are data, kept outside the import package. In a source checkout, and in an editable
    install (which imports from the checkout), they are `packages/sigit/eval_packs/`, beside `src/`;
    a wheel ships that folder as `sigit/eval/packs/` inside the installed package (hatchling's
    `force-include`, in packages/sigit/pyproject.toml). Either way it is a real folder on disk. The
    checkout's folder is looked for first, so a stale `src/sigit/eval/packs/` an older checkout left
    behind (caches, after the move) is never read.
    """
    eval_dir = Path(__file__).resolve().parent  # .../sigit/eval
    src = eval_dir.parent.parent
    if src.name == "src" and (checkout := src.parent / "eval_packs").is_dir():
        return checkout
    installed = eval_dir / "packs"
    return installed if installed.is_dir() else None


def builtin_pack_names() -> list[str]:
    """The packs shipped with sigit (`sigit eval smoke`)."""
    packs = packs_root()
    if packs is None:
        return []
    return sorted(entry.name for entry in packs.iterdir() if entry.is_dir() and not entry.name.startswith(("_", ".")))


def builtin_pack_path(name: str) -> Path | None:
    """The folder of the built-in pack `name`, or None."""
    packs = packs_root()
    if packs is None or name not in builtin_pack_names():
        return None
    return packs / name


def load_tasks(source: str | Path) -> list[Task]:
    """The tasks a name or path stands for: a built-in pack's name, a pack folder, one task folder, or an
    Exercism checkout (a track's `exercises/practice`, a track, or the polyglot benchmark's root)."""
    text = str(source)
    path = expand_home(text)
    if not path.exists():
        builtin = builtin_pack_path(text)
        if builtin is None:
            names = ", ".join(builtin_pack_names()) or "none are installed"
            raise TaskFormatError(f"no pack {text!r}: not a folder, nor a built-in pack (built-in: {names})")
        path = builtin
    if not path.is_dir():
        raise TaskFormatError(f"{path} is not a folder of tasks")
    if (path / "task.toml").is_file():
        return [load_task(path)]
    if is_exercism(path):
        return load_exercism(path)
    tasks = [load_task(child) for child in sorted(path.iterdir()) if (child / "task.toml").is_file()]
    if not tasks:
        raise TaskFormatError(f"{path} holds no tasks (no <id>/task.toml, and not an Exercism layout)")
    return tasks


def load_all(sources: Iterable[str | Path], patterns: Iterable[str] = ()) -> list[Task]:
    """The tasks of every source, kept to those whose id matches a glob of `patterns` (all when none);
    ids must be unique across the sources."""
    tasks = [task for source in sources for task in load_tasks(source)]
    seen: dict[str, str] = {}
    for task in tasks:
        if task.id in seen:
            raise TaskFormatError(f"two tasks share the id {task.id!r}: {seen[task.id]} and {task.source}")
        seen[task.id] = task.source
    globs = list(patterns)
    if globs:
        tasks = [task for task in tasks if any(fnmatch.fnmatchcase(task.id, g) for g in globs)]
        if not tasks:
            raise TaskFormatError(f"no task id matches {' or '.join(globs)}")
    return tasks


def _text(spec: dict[str, Any], key: str, where: str) -> str:
    value = spec.get(key)
    if not isinstance(value, str) or not value.strip():
        raise TaskFormatError(f"{where}: {key} must be a non-empty string")
    return value.strip() if key != "prompt" else value.strip("\n")


def _names(spec: dict[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = spec.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise TaskFormatError(f"{where}: {key} must be a list of test names (strings)")
    return tuple(v.strip() for v in value)


def _positive(spec: dict[str, Any], key: str, default: float, where: str, *, integer: bool = False) -> float:
    value = spec.get(key, default)
    kinds = (int,) if integer else (int, float)
    if isinstance(value, bool) or not isinstance(value, kinds) or value <= 0:
        raise TaskFormatError(f"{where}: {key} must be a positive {'integer' if integer else 'number'}")
    return float(value)
