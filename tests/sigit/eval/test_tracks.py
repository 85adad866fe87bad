"""The grader on each track it claims, on tiny synthetic exercises laid out as Exercism's (C++ through
CMake with the copy named after the exercise, Rust through cargo offline), tracks this machine cannot
run graded as environment errors with the line that fixes them, and tests named by a task
(fail_to_pass / pass_to_pass) graded SWE-bench style."""

from __future__ import annotations

import dataclasses
import json
import shutil
import sys
from pathlib import Path

import pytest
from sigit.eval import Task, load_tasks
from sigit.eval.clean_grade import Grade, grade
from sigit.eval.verdict import environment_problem, judge, parse
from sigit.eval.workspace import write_files

PACKS = Path(__file__).resolve().parents[3] / "packages" / "sigit" / "eval_packs"
CATCH_SHIM = r"""#pragma once
// A few lines of Catch2's interface (Exercism's C++ tests vendor the real one): TEST_CASE, REQUIRE,
// and `--reporter junit`.
#include <cstring>
#include <functional>
#include <iostream>
#include <string>
#include <vector>
namespace shim {
struct Case { std::string name; std::function<void()> run; };
inline std::vector<Case>& cases() { static std::vector<Case> all; return all; }
struct Add { Add(const char* name, void (*f)()) { cases().push_back({name, f}); } };
struct Failed {};
}
#define SHIM_CAT2(a, b) a##b
#define SHIM_CAT(a, b) SHIM_CAT2(a, b)
#define TEST_CASE(name) static void SHIM_CAT(t_, __LINE__)(); \
    static shim::Add SHIM_CAT(a_, __LINE__)(name, &SHIM_CAT(t_, __LINE__)); static void SHIM_CAT(t_, __LINE__)()
#define REQUIRE(x) do { if (!(x)) throw shim::Failed{}; } while (0)
#ifdef CATCH_CONFIG_MAIN
int main(int argc, char** argv) {
    bool junit = argc > 2 && std::strcmp(argv[2], "junit") == 0;
    int failed = 0;
    std::string cases;
    for (auto& c : shim::cases()) {
        bool ok = true;
        try { c.run(); } catch (...) { ok = false; }
        failed += !ok;
        cases += "<testcase classname=\"x\" name=\"" + c.name + "\">" + (ok ? "" : "<failure/>") + "</testcase>";
    }
    if (junit) std::cout << "<?xml version=\"1.0\"?><testsuites><testsuite>" << cases << "</testsuite></testsuites>\n";
    return failed;
}
#endif
"""
CMAKE = """cmake_minimum_required(VERSION 3.5.1)
get_filename_component(exercise ${CMAKE_CURRENT_SOURCE_DIR} NAME)
string(REPLACE "-" "_" file ${exercise})
project(${exercise} CXX)
add_executable(${exercise} ${file}_test.cpp ${file}.cpp ${file}.h test/tests-main.cpp)
add_custom_command(TARGET ${exercise} POST_BUILD COMMAND ${exercise})
"""


def exercise(
    root: Path,
    track: str,
    name: str,
    files: dict[str, str],
    solution: list[str],
    test: list[str],
    example: dict[str, str],
) -> Path:
    folder = root / track / "exercises" / "practice" / name
    meta = {"files": {"solution": solution, "test": test, "example": list(example)}}
    write_files(
        folder,
        {
            k: v.encode()
            for k, v in {
                ".docs/instructions.md": f"Implement {name}.\n",
                ".meta/config.json": json.dumps(meta),
                **files,
                **example,
            }.items()
        },
    )
    return folder


def agent_copy(task: Task, area: Path, files: dict[str, str]) -> tuple[Path, tuple[str, ...]]:
    """The agent's copy: the task's files with `files` written over them."""
    root = area / "repo"
    root.mkdir(parents=True)
    write_files(root, task.repo)
    write_files(root, {k: v.encode() for k, v in files.items()})
    return root, tuple(sorted(files))


def graded(task: Task, area: Path, files: dict[str, str]) -> Grade:
    root, changed = agent_copy(task, area, files)
    return grade(task, root, changed, area, python=sys.executable, node="node")


def test_cpp_exercise_builds_in_a_copy_named_after_it(tmp_path: Path) -> None:
    """Where cmake or a C++ compiler is missing, the same task is the machine's fault, said so."""
    example = (
        '#include "leap_year.h"\nbool leap_year::is_leap(int y) { return y % 4 == 0 && (y % 100 || y % 400 == 0); }\n'
    )
    exercise(
        tmp_path,
        "cpp",
        "leap-year",
        {
            "CMakeLists.txt": CMAKE,
            "leap_year.h": "#pragma once\nnamespace leap_year { bool is_leap(int year); }\n",
            "leap_year.cpp": '#include "leap_year.h"\nbool leap_year::is_leap(int) { return false; }\n',
            "leap_year_test.cpp": '#include "leap_year.h"\n#include "test/catch.hpp"\n'
            'TEST_CASE("year divisible by 4") { REQUIRE(leap_year::is_leap(1996)); }\n'
            'TEST_CASE("century") { REQUIRE(!leap_year::is_leap(1900)); }\n',
            "test/catch.hpp": CATCH_SHIM,
            "test/tests-main.cpp": '#define CATCH_CONFIG_MAIN\n#include "catch.hpp"\n',
        },
        ["leap_year.cpp", "leap_year.h"],
        ["leap_year_test.cpp"],
        {".meta/example.cpp": example},
    )
    [task] = load_tasks(tmp_path / "cpp")
    solved = graded(task, tmp_path / "a", {"leap_year.cpp": example})
    if shutil.which("cmake") is None or shutil.which("c++") is None:
        assert not solved.passed and solved.env_error is not None, solved.check.output_tail
        return
    assert solved.passed, (solved.verdict, solved.check.output_tail)
    assert solved.copy.root.name == "leap-year" and solved.verdict is not None and solved.verdict.tests_passed == 2
    cheat = graded(task, tmp_path / "b", {"CMakeLists.txt": "cmake_minimum_required(VERSION 3.5)\nproject(x NONE)\n"})
    assert not cheat.passed and cheat.copy.restored == ("CMakeLists.txt",) and cheat.env_error is None


def test_rust_exercise_runs_offline_with_the_users_toolchain(tmp_path: Path) -> None:
    """The check's HOME is a fresh folder, and rustup's toolchains are still found (RUSTUP_HOME kept);
    where cargo is missing the task is the machine's fault, said so before anything runs."""
    example = "pub fn add(a: i32, b: i32) -> i32 { a + b }\n"
    exercise(
        tmp_path,
        "rust",
        "adder",
        {
            "Cargo.toml": '[package]\nname = "adder"\nversion = "0.1.0"\nedition = "2021"\n',
            "src/lib.rs": "pub fn add(_a: i32, _b: i32) -> i32 { 0 }\n",
            "tests/adder.rs": "use adder::add;\n#[test]\nfn adds() { assert_eq!(add(1, 2), 3); }\n"
            "#[test]\n#[ignore]\nfn adds_negative() { assert_eq!(add(-1, -2), -3); }\n",
        },
        ["src/lib.rs"],
        ["tests/adder.rs"],
        {".meta/example.rs": example},
    )
    [task] = load_tasks(tmp_path / "rust")
    solved = graded(task, tmp_path / "a", {"src/lib.rs": example})
    if shutil.which("cargo") is None:
        assert solved.env_error == "this task's check needs cargo, which is not installed here"
        return
    assert solved.passed, (solved.verdict, solved.check.output_tail)
    assert solved.verdict is not None and solved.verdict.tests_passed == 2  # the ignored one ran too


def test_javascript_without_dependencies_and_java_without_gradle_are_environment_errors(tmp_path: Path) -> None:
    folder = exercise(
        tmp_path,
        "javascript",
        "two-fer",
        {
            "package.json": '{"scripts": {"test": "jest ./*"}}',
            "two-fer.js": "export const twoFer = () => '';\n",
            "two-fer.spec.js": "test('no name', () => expect(twoFer()).toEqual('One for you, one for me.'));\n",
        },
        ["two-fer.js"],
        ["two-fer.spec.js"],
        {},
    )
    [task] = load_tasks(tmp_path / "javascript")
    result = graded(task, tmp_path / "a", {"package.json": '{"scripts": {"test": "exit 0"}}'})
    assert not result.passed and result.env_error is not None
    assert f"run `npm install` once in {folder.parents[2]}" in result.env_error
    exercise(
        tmp_path,
        "java",
        "hello",
        {
            "gradlew": "#!/bin/sh\nexit 0\n",
            "build.gradle": "",
            "src/main/java/Hello.java": "class Hello {}\n",
            "src/test/java/HelloTest.java": "class HelloTest { @Test public void greets() {} }\n",
        },
        ["src/main/java/Hello.java"],
        ["src/test/java/HelloTest.java"],
        {},
    )
    [java] = load_tasks(tmp_path / "java")
    if shutil.which("gradle") is None:
        result = graded(java, tmp_path / "b", {"src/main/java/Hello.java": "class Hello {}\n"})
        assert result.env_error is not None and "Gradle" in result.env_error and not result.passed


def test_exit_127_and_a_missing_toolchain_read_as_the_machines_fault() -> None:
    assert environment_problem(127, "sh: 1: jest: not found\n") == "sh: 1: jest: not found"
    rustup = "error: rustup could not choose a version of cargo to run\n"
    assert environment_problem(1, rustup) == rustup.strip()
    assert environment_problem(101, "test result: FAILED. 1 passed; 1 failed\n") is None


PY_TEST = """import unittest

from calc import add


class AddTest(unittest.TestCase):
    def test_adds(self):
        self.assertEqual(add(2, 3), 5)

    def test_zero(self):
        self.assertEqual(add(0, 0), 0)

    def test_unrelated_and_broken(self):
        self.fail("broken before the task, and not named by it")
"""


def python_task(tmp_path: Path, fail_to_pass: tuple[str, ...] = (), pass_to_pass: tuple[str, ...] = ()) -> Task:
    folder = tmp_path / "pack" / "py-add"
    write_files(
        folder,
        {
            "task.toml": b'id = "py-add"\nfamily = "fix-test"\nlanguage = "python"\nprompt = "Fix add."\n'
            b'check = ["{python}", "-m", "unittest", "discover", "-s", "tests"]\n',
            "repo/calc.py": b"def add(a, b):\n    return a - b\n",
            "check/tests/test_calc.py": PY_TEST.encode(),
        },
    )
    return dataclasses.replace(load_tasks(folder)[0], fail_to_pass=fail_to_pass, pass_to_pass=pass_to_pass)


def test_named_tests_are_the_ones_graded(tmp_path: Path) -> None:
    fixed = {"calc.py": "def add(a, b):\n    return a + b\n"}
    named = python_task(tmp_path, fail_to_pass=("AddTest.test_adds",), pass_to_pass=("AddTest.test_zero",))
    result = graded(named, tmp_path / "a", fixed)
    assert result.passed and result.verdict is not None and result.verdict.tests_passed == 2
    unnamed = graded(python_task(tmp_path), tmp_path / "b", fixed)  # every test the check defines
    assert not unnamed.passed and unnamed.verdict is not None
    assert unnamed.verdict.failing == ("AddTest.test_unrelated_and_broken",)
    missing = graded(python_task(tmp_path, fail_to_pass=("AddTest.test_gone",)), tmp_path / "c", fixed)
    assert not missing.passed and missing.verdict is not None
    assert missing.verdict.failing == ("AddTest.test_gone (did not run)",)


def test_a_program_the_task_needs_and_this_machine_lacks_is_an_environment_error(tmp_path: Path) -> None:
    """`needs = ["make"]` where make is missing: decided from the task before anything of the agent's runs,
    so the check is never run and nothing is guessed from how the files are spelled."""
    [task] = [t for t in load_tasks(PACKS / "smoke") if t.id == "makefile-clean-target"]
    assert task.needs == ("make",)
    lacking = dataclasses.replace(task, needs=("make", "no-such-program-sigit"))
    result = graded(lacking, tmp_path, {})
    assert result.env_error == "this task's check needs no-such-program-sigit, which is not installed here"
    assert not result.passed and result.check.returncode is None


@pytest.mark.parametrize("directive", ["# SKIP not on this platform", "# TODO not done yet"])
def test_a_required_test_that_tap_marks_skip_or_todo_does_not_pass(directive: str) -> None:
    """`node --test` reports `t.skip()` and `t.todo()` as `ok ... # SKIP` / `# TODO`: the test did not run
    (or may fail), so a task that requires it is not solved by it."""
    output = f"ok 1 - adds\nok 2 - adds negatives {directive}\n# tests 2\n# pass 1\n# fail 0\n"
    verdict = judge(parse("node-test", output), ["adds", "adds negatives"])
    assert not verdict.passed and verdict.tests_passed == 1 and verdict.failing == ("adds negatives",)
    assert judge(parse("node-test", output.replace(f" {directive}", "")), ["adds", "adds negatives"]).passed
