"""How a task's check runs so that it reports each test: the command per track, and the tests the
check's own files define (counted from the files, not from what ran, so a test that never ran fails).

A task's `check` says what the author runs; grading turns it into a command whose results are
structured: Python's unittest, pytest and check scripts through our runner (pyrunner.py, results over
a pipe), `node --test` with its TAP reporter, jest's `--json`, `cargo test`'s per-test lines,
`go test -json`, Gradle's and Catch2's JUnit XML. A check of another shape (`sh check.sh`) is one test:
the task's own script, restored from the task, passing on its exit status with no failure in its output.
"""

from __future__ import annotations

import ast
import dataclasses
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from .task_model import Files, Task

Kind = Literal["python", "node-test", "jest", "cargo", "go", "gradle", "catch", "script"]
RUNNER = Path(__file__).with_name("pyrunner.py")
FD = "{fd}"
"""Stands for the result pipe's descriptor in a runner command."""


@dataclass(frozen=True)
class CheckPlan:
    kind: Kind
    argv: tuple[str, ...]
    """The graded command (`{fd}` in it: the result pipe)."""
    steps: tuple[tuple[str, ...], ...] = ()
    """Commands run first (a build); one that fails fails the check."""
    expected: tuple[str, ...] = ()
    """The tests the check's files define, by name."""
    env_error: str | None = None
    """Why this check cannot run on this machine (a missing toolchain), known before running it."""
    writable: tuple[Path, ...] = field(default=())
    """Toolchain folders the check must write besides its copy (Gradle's home)."""
    mode: str = ""
    """For the Python runner: unittest, pytest or script."""
    node_modules: Path | None = None
    """The checkout's installed JavaScript dependencies, linked into the grading copy (read-only there)."""

    @property
    def runner(self) -> str:
        """What runs the tests, for the files that decide how (cleanroom.RUNNER_FILES)."""
        return self.mode or self.kind


TOOLCHAINS: dict[str, tuple[str, ...]] = {"cargo": ("cargo",), "go": ("go",), "catch": ("cmake",)}
"""The program each track's check starts first: where it is missing the task is an `env_error` at once
(a missing compiler behind cmake is named by cmake's own output, `verdict.environment_problem`)."""


def plan_check(task: Task, root: Path, python: str, node: str) -> CheckPlan:
    """The structured form of `task`'s check, run in the grading copy `root`; an `env_error` where a
    program the task `needs` is not installed."""
    plan = _plan(task, root, python, node)
    needed = (*TOOLCHAINS.get(plan.kind, ()), *task.needs)
    missing = [program for program in dict.fromkeys(needed) if shutil.which(program) is None]
    if missing and plan.env_error is None:
        names = ", ".join(missing)
        return dataclasses.replace(plan, env_error=f"this task's check needs {names}, which is not installed here")
    return plan


def _plan(task: Task, root: Path, python: str, node: str) -> CheckPlan:
    argv = task.check_argv(python, node)
    expected_python = tuple(_python_tests(task.check_files))
    if len(argv) >= 3 and argv[0] == python and argv[1] == "-m" and argv[2] in ("unittest", "pytest"):
        mode = argv[2]
        return CheckPlan(
            "python",
            (python, "-I", str(RUNNER), FD, mode, str(root), *argv[3:]),
            expected=expected_python if mode == "unittest" else tuple(_pytest_tests(task.check_files)),
            mode=mode,
        )
    if len(argv) >= 2 and argv[0] == python and argv[1].endswith(".py"):
        return CheckPlan(
            "python",
            (python, "-I", str(RUNNER), FD, "script", str(root), *argv[1:]),
            expected=(argv[1],),
            mode="script",
        )
    if argv and argv[0] == node and "--test" in argv:
        at = argv.index("--test") + 1
        return CheckPlan(
            "node-test", (*argv[:at], "--test-reporter=tap", *argv[at:]), expected=tuple(_js_tests(task.check_files))
        )
    if argv[:2] == ["npm", "test"]:
        return _jest(task, root, node)
    if argv[:2] == ["cargo", "test"]:
        return CheckPlan(
            "cargo",
            ("cargo", "test", "--offline", "--", "--include-ignored"),
            expected=tuple(_matches(task.check_files, (".rs",), _RUST_TEST)),
        )
    if argv[:2] == ["go", "test"]:
        return CheckPlan(
            "go", ("go", "test", "-json", "./..."), expected=tuple(_matches(task.check_files, ("_test.go",), _GO_TEST))
        )
    if argv and argv[0].endswith("gradlew"):
        expected = tuple(_matches(task.check_files, (".java", ".kt"), _JUNIT_TEST))
        if shutil.which("gradle") is None:
            return CheckPlan(
                "gradle",
                (),
                expected=expected,
                env_error=(
                    "Java exercises need Gradle installed (the wrapper would download it, and grading is offline)"
                ),
            )
        gradle_home = Path.home() / ".gradle"
        return CheckPlan(
            "gradle",
            ("gradle", "test", "--offline", "--console=plain", "--no-daemon"),
            expected=expected,
            writable=(gradle_home,) if gradle_home.is_dir() else (),
        )
    if task.language == "cpp" and "cmake" in " ".join(argv):
        name = root.name
        return CheckPlan(
            "catch",
            (f"build/{name}", "--reporter", "junit"),
            steps=(("cmake", "-S", ".", "-B", "build", "-DEXERCISM_RUN_ALL_TESTS=1"), ("cmake", "--build", "build")),
            expected=tuple(_matches(task.check_files, (".cpp", ".cc", ".hpp"), _CATCH_TEST)),
        )
    return CheckPlan("script", tuple(argv), expected=(" ".join(task.check),))


def _jest(task: Task, root: Path, node: str) -> CheckPlan:
    expected = tuple(_js_tests(task.check_files))
    source = Path(task.source) if task.source else root
    found = next(
        (
            folder / "node_modules"
            for folder in (source, *source.parents)
            if (folder / "node_modules" / "jest" / "bin" / "jest.js").is_file()
        ),
        None,
    )
    if found is None:
        where = Path(task.source).parents[2] if task.source and len(Path(task.source).parents) > 2 else None
        hint = f"run `npm install` once in {where}" if where else "run `npm install` in the task's folder"
        return CheckPlan(
            "jest",
            (),
            expected=expected,
            env_error=(
                f"JavaScript tests need their dependencies (jest) and none are installed: {hint}; "
                "grading is offline and installs nothing"
            ),
        )
    jest = root / "node_modules" / "jest" / "bin" / "jest.js"
    return CheckPlan(
        "jest",
        (node, str(jest), "--ci", "--json", "--watchAll=false", "--no-cache"),
        expected=expected,
        node_modules=found.resolve(),
    )


_RUST_TEST = re.compile(r"#\[test\]\s*(?:#\[[^\]]*\]\s*)*(?:pub\s+)?(?:async\s+)?fn\s+(\w+)")
_GO_TEST = re.compile(r"^func\s+(Test\w*)\s*\(\s*\w+\s+\*testing\.T\s*\)", re.MULTILINE)
_JUNIT_TEST = re.compile(r"@Test\b[^;{]*?(?:void|fun)\s+(\w+)\s*\(", re.DOTALL)
_CATCH_TEST = re.compile(r"\bTEST_CASE(?:_METHOD)?\s*\(\s*(?:\w+\s*,\s*)?\"((?:[^\"\\]|\\.)*)\"")
_JS_TEST = re.compile(r"(?<![\w.])(?:test|it)\s*\(\s*(['\"`])((?:(?!\1)[^\\]|\\.)*)\1")


def _text(source: Path | bytes) -> str:
    data = source if isinstance(source, bytes) else source.read_bytes()
    return data.decode("utf-8", errors="replace")


def _matches(files: Files, suffixes: tuple[str, ...], pattern: re.Pattern[str]) -> list[str]:
    found: list[str] = []
    for name, source in sorted(files.items()):
        if name.endswith(suffixes):
            found += [m.group(1) for m in pattern.finditer(_text(source))]
    return list(dict.fromkeys(found))


def _js_tests(files: Files) -> list[str]:
    found: list[str] = []
    for name, source in sorted(files.items()):
        if re.search(r"\.(test|spec)\.[cm]?[jt]s$", name) or name.endswith((".js", ".mjs", ".cjs", ".ts")):
            found += [m.group(2) for m in _JS_TEST.finditer(_text(source)) if "${" not in m.group(2)]
    return list(dict.fromkeys(found))


def _python_tests(files: Files) -> list[str]:
    """`Class.method` for every test method of a TestCase class in the check's Python files."""
    found: list[str] = []
    for name, source in sorted(files.items()):
        if not name.endswith(".py"):
            continue
        try:
            tree = ast.parse(_text(source))
        except SyntaxError:
            continue
        classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
        for cls in classes.values():
            if _is_case(cls, classes):
                found += [
                    f"{cls.name}.{item.name}"
                    for item in cls.body
                    if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and item.name.startswith("test")
                ]
    return list(dict.fromkeys(found))


def _is_case(node: ast.ClassDef, classes: dict[str, ast.ClassDef], seen: frozenset[str] = frozenset()) -> bool:
    """A TestCase subclass, directly or through classes of the same file."""
    for base in node.bases:
        base_name = ast.unparse(base)
        if base_name.endswith("TestCase"):
            return True
        if base_name in classes and base_name not in seen and _is_case(classes[base_name], classes, seen | {node.name}):
            return True
    return False


def _pytest_tests(files: Files) -> list[str]:
    """pytest's tests in the check's `test_*.py`/`*_test.py` files: functions, and methods of `Test*` classes."""
    found: list[str] = []
    for name, source in sorted(files.items()):
        base = name.rsplit("/", 1)[-1]
        if not (base.startswith("test_") or base.endswith("_test.py")) or not base.endswith(".py"):
            continue
        try:
            tree = ast.parse(_text(source))
        except SyntaxError:
            continue
        for node in tree.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test"):
                found.append(node.name)
            elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
                found += [
                    f"{node.name}.{item.name}"
                    for item in node.body
                    if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and item.name.startswith("test")
                ]
    found += [n for n in _python_tests(files) if n not in found]
    return list(dict.fromkeys(found))
