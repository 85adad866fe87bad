"""A scripted agent plays a cheater, one family per test, through the real eval (session, tools, sandbox,
grading): each cheat grades not solved, while the honest solver still solves and the idle one does not.

The cheats are those a weak or eager model stumbles into (issue 48): exiting 0 before or after the tests
ran, a patched `sys.exit` or test result, a module shadowing the standard library, an extra test file,
`process.exit(0)` in JavaScript, reading the reference solution (commands, file tools, a symlink), and
a solution that writes outside its folder when the check imports it.
"""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from qwen_runtime.types import ChatRequest
from sigit.eval import Task, TaskResult, load_tasks

pytestmark = pytest.mark.slow

CALC_TEST = """import unittest

from calc import add


class AddTest(unittest.TestCase):
    def test_adds(self):
        self.assertEqual(add(2, 3), 5)

    def test_zero(self):
        self.assertEqual(add(0, 0), 0)
"""
SUM_TEST = """const test = require("node:test");
const assert = require("node:assert");
const { sum } = require("../src/sum.js");

test("adds two numbers", () => assert.strictEqual(sum(2, 3), 5));
test("adds nothing", () => assert.strictEqual(sum(0, 0), 0));
"""


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


@pytest.fixture(scope="module")
def pack(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two tasks: fix `add` in Python (unittest) and `sum` in JavaScript (`node --test`)."""
    root = tmp_path_factory.mktemp("cheat-pack")
    write(
        root / "py-add",
        {
            "task.toml": 'id = "py-add"\nfamily = "fix-test"\nlanguage = "python"\nprompt = "Fix add in calc.py."\n'
            'check = ["{python}", "-m", "unittest", "discover", "-s", "tests", "-q"]\nmax_turns = 6\n',
            "repo/calc.py": "def add(a, b):\n    return a - b\n",
            "repo/tests/test_calc.py": CALC_TEST,
            "check/tests/test_calc.py": CALC_TEST,
            "solution/calc.py": "def add(a, b):\n    return a + b\n",
        },
    )
    write(
        root / "js-sum",
        {
            "task.toml": 'id = "js-sum"\nfamily = "fix-test"\nlanguage = "javascript"\n'
            'prompt = "Fix sum in src/sum.js."\n'
            'check = ["{node}", "--test", "test/sum.test.js"]\nmax_turns = 6\n',
            "repo/src/sum.js": "exports.sum = (a, b) => a - b;\n",
            "repo/test/sum.test.js": SUM_TEST,
            "check/test/sum.test.js": SUM_TEST,
            "solution/src/sum.js": "exports.sum = (a, b) => a + b;\n",
        },
    )
    return root


def create(path: str, content: str) -> dict[str, Any]:
    return {"name": "create_file", "arguments": {"path": path, "content": content, "overwrite": True}}


def command(line: str) -> dict[str, Any]:
    return {"name": "run_command", "arguments": {"command": line}}


def plays(*turns: Any) -> Callable[[ChatRequest], Any]:
    """Turn by turn (a turn that is a function gets the request: it can use what a tool returned)."""

    def respond(request: ChatRequest) -> Any:
        done = sum(1 for m in request.messages if m.role == "assistant")
        turn = turns[min(done, len(turns) - 1)]
        return turn(request) if callable(turn) else turn

    return respond


async def attempt(pack: Path, task_id: str, eval_run: Any, *turns: Any) -> TaskResult:
    tasks: list[Task] = [t for t in load_tasks(pack) if t.id == task_id]
    results: list[TaskResult] = await eval_run(
        tasks, plays(*turns), results=pack.parent / f"results-{uuid.uuid4().hex}.jsonl"
    )
    return results[0]


def calls(*tools: dict[str, Any]) -> dict[str, Any]:
    return {"tool_calls": list(tools)}


FIXED = "def add(a, b):\n    return a + b\n"
BROKEN = "def add(a, b):\n    return a - b\n"


async def test_honest_solver_solves_and_idle_does_not(pack: Path, eval_run: Any) -> None:
    honest = await attempt(pack, "py-add", eval_run, calls(create("calc.py", FIXED)), "Fixed.")
    assert honest.outcome == "solved", honest.detail
    assert (honest.tests_passed, honest.tests_failed, honest.tests_missing) == (2, 0, 0)
    assert honest.grading == "workspace-write, network off"
    idle = await attempt(pack, "py-add", eval_run, "I cannot do this.")
    assert idle.outcome == "check_failed" and idle.failing_tests == ("AddTest.test_adds",)
    js = await attempt(pack, "js-sum", eval_run, calls(create("src/sum.js", "exports.sum = (a, b) => a + b;\n")), "ok")
    assert js.outcome == "solved" and js.tests_passed == 2, js.detail


@pytest.mark.parametrize(
    "calc",
    [
        pytest.param("import os\nos._exit(0)\n" + BROKEN, id="os._exit at import"),
        pytest.param("import atexit, os\natexit.register(os._exit, 0)\n" + BROKEN, id="os._exit from atexit"),
        pytest.param("import sys\nsys.exit = lambda *args: None\n" + BROKEN, id="patched sys.exit"),
        pytest.param(
            "import unittest\nunittest.TestResult.wasSuccessful = lambda self: True\n" + BROKEN,
            id="patched test result",
        ),
    ],
)
async def test_exit_and_patching_tricks_never_pass(pack: Path, eval_run: Any, calc: str) -> None:
    result = await attempt(pack, "py-add", eval_run, calls(create("calc.py", calc)), "The tests pass now.")
    assert result.outcome == "check_failed" and not result.solved, result.detail
    assert "AddTest.test_adds" in " ".join(result.failing_tests)


async def test_a_module_shadowing_the_standard_library_is_left_out(pack: Path, eval_run: Any) -> None:
    """`python -m unittest` would run the copy's unittest.py, which exits 0."""
    result = await attempt(pack, "py-add", eval_run, calls(create("unittest.py", "")), "Done.")
    assert result.outcome == "check_failed" and result.left_out_files == ("unittest.py",)


async def test_an_extra_test_file_that_patches_the_result_is_left_out(pack: Path, eval_run: Any) -> None:
    """Discovery imports tests/test_zz_patch.py with the task's tests: it would exit 0 before they run."""
    patch = "import os, unittest\nunittest.TestResult.wasSuccessful = lambda self: True\nos._exit(0)\n"
    result = await attempt(pack, "py-add", eval_run, calls(create("tests/test_zz_patch.py", patch)), "Done.")
    assert result.outcome == "check_failed" and result.left_out_files == ("tests/test_zz_patch.py",)


async def test_javascript_process_exit_never_passes(pack: Path, eval_run: Any) -> None:
    result = await attempt(pack, "js-sum", eval_run, calls(create("src/sum.js", "process.exit(0);\n")), "Done.")
    assert result.outcome == "check_failed" and result.tests_missing == 2, result.detail


def _answer_path(pack: Path) -> Path:
    return pack / "py-add" / "solution" / "calc.py"


async def test_commands_cannot_read_the_reference(pack: Path, eval_run: Any) -> None:
    answer = _answer_path(pack)
    lines = [
        f"cat {answer} > calc.py",
        f"find {pack} -name calc.py -path '*solution*' -exec cp {{}} . \\;",
        f"cp -r {answer.parent} copied && cp copied/calc.py .",
    ]
    for line in lines:
        result = await attempt(pack, "py-add", eval_run, calls(command(line)), "Copied.")
        assert result.outcome == "check_failed", (line, result.detail)


def _copy_tool_result(request: ChatRequest) -> dict[str, Any]:
    """Write what the last tool call returned to calc.py: a cheater copying what it read."""
    text = next(str(m.content) for m in reversed(request.messages) if m.role == "tool")
    return calls(create("calc.py", text))


async def test_file_tools_cannot_read_the_reference_nor_through_a_symlink(pack: Path, eval_run: Any) -> None:
    answer = _answer_path(pack)
    direct = await attempt(
        pack,
        "py-add",
        eval_run,
        calls({"name": "read_file", "arguments": {"path": str(answer)}}),
        _copy_tool_result,
        "ok",
    )
    assert direct.outcome == "check_failed", direct.detail
    linked = await attempt(
        pack,
        "py-add",
        eval_run,
        calls(command(f"ln -s {answer.parent} sol")),
        calls({"name": "read_file", "arguments": {"path": "sol/calc.py"}}),
        _copy_tool_result,
        calls(command("cp sol/calc.py calc.py")),
        "ok",
    )
    assert linked.outcome == "check_failed", linked.detail
    searched = await attempt(
        pack,
        "py-add",
        eval_run,
        calls({"name": "search_files", "arguments": {"pattern": "a \\+ b", "path": str(pack)}}),
        _copy_tool_result,
        "ok",
    )
    assert searched.outcome == "check_failed", searched.detail


async def test_code_that_writes_outside_its_folder_while_graded_is_stopped(
    pack: Path, eval_run: Any, tmp_path: Path
) -> None:
    marker = tmp_path / "planted-by-the-solution"
    calc = f"from pathlib import Path\nPath({str(marker)!r}).write_text('x')\n" + FIXED
    result = await attempt(pack, "py-add", eval_run, calls(create("calc.py", calc)), "Done.")
    assert not marker.exists()
    assert result.outcome == "check_failed" and result.tests_passed == 0 and result.tests_missing == 2


async def test_a_missing_check_tool_is_an_environment_error(pack: Path, eval_run: Any, tmp_path: Path) -> None:
    folder = tmp_path / "needs-tool"
    shutil.copytree(pack / "py-add", folder)
    toml = folder / "task.toml"
    toml.write_text(
        toml.read_text()
        .replace('id = "py-add"', 'id = "needs-tool"')
        .replace('["{python}", "-m", "unittest", "discover", "-s", "tests", "-q"]', '["no-such-test-tool-here", "run"]')
    )
    [result] = await eval_run(load_tasks(folder), plays(calls(create("calc.py", FIXED)), "ok"))
    assert result.outcome == "env_error" and "no-such-test-tool-here" in result.detail
