"""The built-in `sigit eval` packs (`smoke`, `standard`) are well-formed and fair.

Fair means: each task's hidden check fails on the starting repository (the task is not already solved,
and the check does not pass on anything) and passes once the reference solution is laid over it (the task
can be solved, and the check grades what the prompt asks). Both are run the way the grader runs them: in a
fresh copy, `check/` restored last, `{python}` replaced by the running Python, with an environment that
holds nothing from this one but PATH, so a check cannot lean on the agent's settings.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from sigit.eval import tasks as eval_tasks

# the checks run side by side on every core (below): keep this file's tests on one xdist worker
pytestmark = pytest.mark.xdist_group("eval-packs")

PACKS = Path(__file__).resolve().parents[3] / "packages" / "sigit" / "eval_packs"  # data, outside the import package
PACK_NAMES = ("smoke", "standard")
FAMILIES = set(eval_tasks.FAMILIES)  # the harness's list: one place
LANGUAGES = {"python", "javascript", "shell"}
REQUIRED = {"id", "family", "language", "prompt", "check"}
OPTIONAL_INTS = {"timeout_s", "max_turns", "check_timeout_s"}
# what a check may start: the grader's Python, Node, or POSIX sh (dash on Debian)
RUNNERS = {"{python}", "{node}", "sh"}
MAX_FILE_BYTES = 24 * 1024  # a task is a small repository; only long-file tasks are big on purpose
MAX_LONG_FILE_BYTES = 160 * 1024
BINARY_SUFFIXES = {".gguf", ".bin", ".safetensors", ".pt", ".onnx", ".pyc", ".so", ".zip", ".gz", ".whl", ".tar"}


def task_dirs() -> list[Path]:
    return sorted(task for pack in PACK_NAMES for task in (PACKS / pack).iterdir() if task.is_dir())


def task_id(task: Path) -> str:
    return f"{task.parent.name}/{task.name}"


TASKS = task_dirs()


def load(task: Path) -> dict[str, Any]:
    return tomllib.loads((task / "task.toml").read_text(encoding="utf-8"))


def overlay(source: Path, target: Path) -> None:
    for path in sorted(source.rglob("*")):
        if path.is_file() and path.name != ".delete":
            dest = target / path.relative_to(source)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, dest)


def grade(task: Path, workdir: Path, *, solved: bool) -> subprocess.CompletedProcess[str]:
    """Lay out the task the way the grader does and run its check there."""
    spec = load(task)
    copy = workdir / "task"
    shutil.copytree(task / "repo", copy)
    if solved:
        deleted = task / "solution" / ".delete"
        for line in deleted.read_text().splitlines() if deleted.exists() else []:
            (copy / line.strip()).unlink()
        overlay(task / "solution", copy)
    overlay(task / "check", copy)
    runners = {"{python}": sys.executable, "{node}": shutil.which("node") or "node"}
    argv = [runners.get(arg, arg) for arg in spec["check"]]
    home = workdir / "home"
    home.mkdir()
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "LANG": "C.UTF-8"}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return subprocess.run(
        argv,
        cwd=copy,
        env=env,
        capture_output=True,
        text=True,
        timeout=spec.get("check_timeout_s", 60),
        check=False,
    )


def needs_runner(task: Path) -> None:
    if load(task)["check"][0] == "{node}" and shutil.which("node") is None:
        pytest.skip("node is not installed here; JavaScript checks need Node 20")


Grading = Future[subprocess.CompletedProcess[str]]
FAILS = "test_check_fails_on_the_starting_repository"
PASSES = "test_check_passes_on_the_reference_solution"


@pytest.fixture(scope="module")
def graded(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[tuple[Path, bool], Grading]]:
    """Every check the selected tests need, started at once on all cores and keyed by (task, solved):
    one after the other, the ~120 checks took a minute on 2 busy cores."""
    wanted: set[tuple[Path, bool]] = set()
    for item in request.session.items:
        if isinstance(item, pytest.Function) and item.originalname in (FAILS, PASSES):
            task = item.callspec.params["task"]
            assert isinstance(task, Path)
            wanted.add((task, item.originalname == PASSES))
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        yield {
            (task, solved): pool.submit(grade, task, tmp_path_factory.mktemp("grade"), solved=solved)
            for task, solved in sorted(wanted)
        }


def test_packs_have_the_size_and_spread_the_issue_asks() -> None:
    """smoke: about 10 tasks, every family, some JavaScript and shell; standard: about 50, several of each."""
    for pack, low, high, per_language in (("smoke", 9, 12, 1), ("standard", 45, 60, 3)):
        specs = [load(task) for task in TASKS if task.parent.name == pack]
        assert low <= len(specs) <= high, (pack, len(specs))
        families = Counter(spec["family"] for spec in specs)
        assert FAMILIES - {"other"} <= set(families), (pack, families)
        languages = Counter(spec["language"] for spec in specs)
        assert languages["python"] > len(specs) / 2, (pack, languages)
        assert languages["javascript"] >= per_language and languages["shell"] >= per_language, (pack, languages)


def test_task_ids_are_unique_across_packs() -> None:
    ids = Counter(load(task)["id"] for task in TASKS)
    assert [name for name, count in ids.items() if count > 1] == []


@pytest.mark.parametrize("task", TASKS, ids=task_id)
def test_task_toml_is_well_formed(task: Path) -> None:
    spec = load(task)
    assert set(spec) >= REQUIRED, f"missing keys: {REQUIRED - set(spec)}"
    assert set(spec) <= REQUIRED | OPTIONAL_INTS, f"unknown keys: {set(spec) - REQUIRED - OPTIONAL_INTS}"
    assert spec["id"] == task.name
    assert spec["family"] in FAMILIES
    assert spec["language"] in LANGUAGES
    assert isinstance(spec["prompt"], str) and len(spec["prompt"].strip()) >= 20
    # the prompt is a user's request: it never points at the hidden parts of the task
    assert "check/" not in spec["prompt"] and "solution/" not in spec["prompt"]
    check = spec["check"]
    assert isinstance(check, list) and check and all(isinstance(arg, str) for arg in check)
    assert check[0] in RUNNERS
    for key in OPTIONAL_INTS & set(spec):
        assert isinstance(spec[key], int) and spec[key] > 0, key
    assert spec.get("check_timeout_s", 60) <= 60


@pytest.mark.parametrize("task", TASKS, ids=task_id)
def test_task_layout(task: Path) -> None:
    """repo/, check/ and solution/ each hold files; deletions name files the repository has; no Python
    package marker makes a pack importable (packs are data)."""
    assert {p.name for p in task.iterdir()} == {"task.toml", "repo", "check", "solution"}
    for part in ("repo", "check", "solution"):
        assert any(p.is_file() for p in (task / part).rglob("*")), f"{part}/ is empty"
    deleted = task / "solution" / ".delete"
    for line in deleted.read_text().splitlines() if deleted.exists() else []:
        assert (task / "repo" / line.strip()).is_file(), line
    assert not (task / "__init__.py").exists() and not (task.parent / "__init__.py").exists()


@pytest.mark.parametrize("task", TASKS, ids=task_id)
def test_files_are_small_text(task: Path) -> None:
    """No weights, archives, bytecode or other binaries; nothing big but the long-file tasks' files."""
    limit = MAX_LONG_FILE_BYTES if load(task)["family"] == "long-file" else MAX_FILE_BYTES
    for path in task.rglob("*"):
        assert path.name != "__pycache__", path
        if path.is_file():
            assert path.suffix not in BINARY_SUFFIXES, path
            data = path.read_bytes()
            assert len(data) <= limit, (path, len(data))
            assert b"\0" not in data, path
            data.decode("utf-8")


@pytest.mark.parametrize("task", TASKS, ids=task_id)
def test_check_fails_on_the_starting_repository(task: Path, graded: dict[tuple[Path, bool], Grading]) -> None:
    needs_runner(task)
    result = graded[task, False].result()
    assert result.returncode != 0, f"the check passes before any work:\n{result.stdout}\n{result.stderr}"


@pytest.mark.parametrize("task", TASKS, ids=task_id)
def test_check_passes_on_the_reference_solution(task: Path, graded: dict[tuple[Path, bool], Grading]) -> None:
    needs_runner(task)
    result = graded[task, True].result()
    assert result.returncode == 0, f"the check fails on the solution:\n{result.stdout}\n{result.stderr}"


def test_long_file_tasks_are_long() -> None:
    """A long-file task exists to make the agent read in parts: its file to change is 2,000+ lines."""
    for task in TASKS:
        if load(task)["family"] == "long-file":
            longest = max(len(p.read_text().splitlines()) for p in (task / "repo").rglob("*") if p.is_file())
            assert longest >= 2000, (task_id(task), longest)


@pytest.mark.parametrize("task", TASKS, ids=task_id)
def test_python_files_compile(task: Path) -> None:
    """Every task is about behaviour, never a syntax error to spot (and installing the wheel byte-compiles
    these files: one that does not compile would print errors at install time)."""
    for path in sorted(task.rglob("*.py")):
        compile(path.read_text(encoding="utf-8"), str(path), "exec", dont_inherit=True)
