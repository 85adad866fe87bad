"""A checkout in Exercism's layout (Aider's polyglot benchmark) read as tasks: the agent sees the stub,
never the instructions' folders nor the tests; the tests come back as the check, skipped ones turned on."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from sigit.eval import load_tasks
from sigit.eval.grading import check_environment, run_check
from sigit.eval.workspace import prepare, write_files

TEST = """import unittest

from two_fer import two_fer


class TwoFerTest(unittest.TestCase):
    def test_no_name(self):
        self.assertEqual(two_fer(), "One for you, one for me.")

    def test_a_name(self):
        self.assertEqual(two_fer("Alice"), "One for Alice, one for me.")
"""
SOLUTION = 'def two_fer(name="you"):\n    return f"One for {name}, one for me."\n'


def exercise(root: Path, track: str, name: str, files: dict[str, str], config: dict[str, list[str]]) -> Path:
    folder = root / track / "exercises" / "practice" / name
    for relative, text in {
        **files,
        ".docs/instructions.md": f"# {name}\n\nDo the {name} thing.\n",
        ".meta/config.json": json.dumps({"files": config}),
    }.items():
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / relative).write_text(text)
    return folder


@pytest.fixture
def polyglot(tmp_path: Path) -> Path:
    root = tmp_path / "polyglot-benchmark"
    exercise(
        root,
        "python",
        "two-fer",
        {
            "two_fer.py": "def two_fer(name):\n    pass\n",
            "two_fer_test.py": TEST,
            ".meta/example.py": SOLUTION,
            ".docs/instructions.append.md": "Use an f-string.\n",
        },
        {"solution": ["two_fer.py"], "test": ["two_fer_test.py"], "example": [".meta/example.py"]},
    )
    exercise(
        root,
        "javascript",
        "hello",
        {
            "hello.js": "export const hello = () => {};\n",
            "package.json": "{}\n",
            "hello.spec.js": "test('a', () => {});\nxtest('b', () => {});\n",
        },
        {"solution": ["hello.js"], "test": ["hello.spec.js"]},
    )
    return root


def test_the_polyglot_root_becomes_tasks(polyglot: Path) -> None:
    javascript, python = load_tasks(polyglot)  # in the order of the tracks' names
    assert (python.id, python.language, python.family) == ("python/two-fer", "python", "implement")
    assert set(python.repo) == {"two_fer.py"}  # no .docs, .meta, nor the tests
    assert set(python.check_files) == {"two_fer_test.py"} and set(python.solution) == {"two_fer.py"}
    assert python.prompt.startswith("# two-fer\n\nDo the two-fer thing.\nUse an f-string.\n")
    assert "change these files: two_fer.py" in python.prompt
    assert python.check[:3] == ("{python}", "-m", "unittest")
    assert javascript.check == ("npm", "test") and set(javascript.repo) == {"hello.js", "package.json"}
    assert javascript.check_files["hello.spec.js"] == b"test('a', () => {});\ntest('b', () => {});\n"
    # a track, its practice folder and one exercise read the same
    assert [t.id for t in load_tasks(polyglot / "python")] == ["python/two-fer"]
    assert [t.id for t in load_tasks(polyglot / "python" / "exercises" / "practice")] == ["python/two-fer"]
    assert [t.id for t in load_tasks(polyglot / "python" / "exercises" / "practice" / "two-fer")] == ["python/two-fer"]


def test_the_check_fails_the_stub_and_passes_the_example(polyglot: Path, tmp_path: Path) -> None:
    [task] = load_tasks(polyglot / "python")
    for name, files in (("stub", {}), ("example", task.solution)):
        copy = prepare(task, tmp_path / name)
        write_files(copy.root, {**files, **task.check_files})
        run = run_check(task.check_argv(sys.executable), copy.root, 30, check_environment(tmp_path / name / "home"))
        assert run.passed == (name == "example"), run.output_tail


@pytest.mark.slow
async def test_an_exercise_solved_by_the_agent(polyglot: Path, eval_run: Any) -> None:
    [task] = load_tasks(polyglot / "python")
    write = {
        "tool_calls": [
            {
                "name": "edit_file",
                "arguments": {"path": "two_fer.py", "old_text": "def two_fer(name):\n    pass\n", "new_text": SOLUTION},
            }
        ]
    }
    prompts = {task.id: task.prompt}

    def respond(request: Any) -> Any:
        done = sum(1 for m in request.messages if m.role == "assistant")
        assert prompts[task.id] in str(next(m.content for m in request.messages if m.role == "user"))
        return [write, "Done."][min(done, 1)]

    [result] = await eval_run([task], respond)
    assert result.outcome == "solved", result.detail
    assert result.changed_files == ("two_fer.py",)
