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
    known = REQUIRED | OPTIONAL_INTS | {"needs"}
    assert set(spec) <= known, f"unknown keys: {set(spec) - known}"
    assert all(isinstance(p, str) and p for p in spec.get("needs", [])), "needs: names of programs"
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


def graded_with(task: Path, workdir: Path, changes: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    """The reference solution with `changes` on top (path -> new text, or a function of the old text),
    graded as the grader does: the holes a sample-based or too narrow check leaves."""
    spec_task = workdir / "task"
    shutil.copytree(task, spec_task)
    for relative, change in changes.items():
        target = spec_task / "solution" / relative
        if not target.exists():
            shutil.copy2(spec_task / "repo" / relative, target)
        old = target.read_text(encoding="utf-8")
        target.write_text(change(old) if callable(change) else change, encoding="utf-8")
    return grade(spec_task, workdir / "graded", solved=True)


def one_function_changed(old: str, name: str, new_body_line: str) -> str:
    """`old` with the body's first statement of function `name` replaced: a corrupted function."""
    lines = old.splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.startswith(name))
    body = next(
        i
        for i in range(at + 1, len(lines))
        if lines[i].strip() and not lines[i].lstrip().startswith(("#", "//", '"""'))
    )
    indent = lines[body][: len(lines[body]) - len(lines[body].lstrip())]
    lines[body] = f"{indent}{new_body_line}\n"
    return "".join(lines)


@pytest.mark.parametrize(
    ("task", "file", "function", "corrupt"),
    [
        ("smoke/long-file-shipping", "warehouse/pricing.py", "def unit_price_sku_0100(", "return 0"),
        ("standard/long-file-iban", "pipeline/validators.py", "def validate_field_0100(", "return True"),
        ("standard/js-long-file-invoice", "src/labels.js", "function label0100(", "return 'x';"),
    ],
)
def test_long_file_checks_see_every_function(task: str, file: str, function: str, corrupt: str, tmp_path: Path) -> None:
    """A function the old checks never sampled, corrupted beside a correct fix, fails the check."""
    path = PACKS / task
    needs_runner(path)
    result = graded_with(path, tmp_path, {file: lambda old: one_function_changed(old, function, corrupt)})
    assert result.returncode != 0, result.stdout + result.stderr


@pytest.mark.parametrize(
    ("task", "file", "old_name"),
    [
        ("smoke/rename-function", "README.md", "calc_total"),
        ("standard/rename-class", "crm/notes.txt", "UserRecord"),
        ("standard/rename-method", "README.md", "add_item"),
        ("standard/js-rename-export", "README.md", "fmtMoney"),
    ],
)
def test_rename_checks_look_everywhere(task: str, file: str, old_name: str, tmp_path: Path) -> None:
    """ "Everywhere" is every file: the old name left in one the old checks did not scan fails."""
    path = PACKS / task
    needs_runner(path)
    extra = tmp_path / "extra"
    shutil.copytree(path, extra)
    target = extra / "solution" / file
    target.parent.mkdir(parents=True, exist_ok=True)
    base = (extra / "repo" / file) if (extra / "repo" / file).exists() and not target.exists() else target
    text = base.read_text(encoding="utf-8") if base.exists() else ""
    target.write_text(text + f"\nSee also {old_name}.\n", encoding="utf-8")
    result = grade(extra, tmp_path / "graded", solved=True)
    assert result.returncode != 0, result.stdout + result.stderr


def test_rename_module_checks_imports_in_every_python_file(tmp_path: Path) -> None:
    extra = tmp_path / "extra"
    shutil.copytree(PACKS / "standard/rename-module", extra)
    (extra / "solution" / "tools").mkdir()
    (extra / "solution" / "tools" / "legacy.py").write_text("def run():\n    from cmds import helpers\n")
    assert grade(extra, tmp_path / "graded", solved=True).returncode != 0


@pytest.mark.parametrize(
    ("task", "makefile"),
    [
        (
            "smoke/makefile-clean-target",
            "CC ?= cc\nCFLAGS ?= -O2 -Wall\n\nall: hello\n\nhello: hello.c\n\t$(CC) $(CFLAGS) -o hello hello.c\n\n"
            ".PHONY: all\n.PHONY: clean\n\nclean:\n\t$(RM) hello\n",
        ),
        (
            "standard/makefile-missing-separator",
            ".RECIPEPREFIX = >\nPYTHON ?= python3\n\n.PHONY: test lint\n.PHONY: dist-clean\n\ntest:\n"
            "> $(PYTHON) -m unittest discover -s tests\n\nlint:\n> $(PYTHON) -m pyflakes src\n"
            "> $(PYTHON) -m pycodestyle src\n\ndist-clean:\n> rm -rf out *.egg-info\n",
        ),
    ],
)
def test_makefile_checks_accept_every_correct_answer(task: str, makefile: str, tmp_path: Path) -> None:
    """Two `.PHONY` lines, `$(RM)`, `.RECIPEPREFIX`: right answers, graded by what make runs (make is this
    project's own set-up tool, so it is there wherever the suite runs; without it these tasks grade as
    `env_error`, test_tracks.py)."""
    result = graded_with(PACKS / task, tmp_path, {"Makefile": makefile})
    assert result.returncode == 0, result.stdout + result.stderr
