"""Exercism's layout (what Aider's polyglot benchmark is made of) read as eval tasks.

An exercise is `<track>/exercises/practice/<name>/` with `.docs/instructions.md` (and optionally
`introduction.md`, `instructions.append.md`), `.meta/config.json` naming `files.solution`, `files.test`
and `files.example`, and the tests beside the stub. Each becomes a task: the prompt is the
instructions and the files to change; the agent sees the stubs and the build files, never `.docs`,
`.meta` nor the tests, which come back as the check. As Aider's harness does, tests the track marks
skipped (`xtest` in JavaScript, `@Disabled` in Java) are turned on, so a stub cannot pass by skipping.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

from .task_model import Task, TaskFormatError, files_under

TEST_COMMANDS: dict[str, tuple[str, ...]] = {
    "python": ("{python}", "-m", "unittest", "discover", "-s", ".", "-p", "*_test.py"),
    "javascript": ("npm", "test"),
    "go": ("go", "test", "./..."),
    "rust": ("cargo", "test", "--", "--include-ignored"),
    "java": ("./gradlew", "test", "--offline"),
    "cpp": ("sh", "-c", "mkdir -p build && cd build && cmake -DEXERCISM_RUN_ALL_TESTS=1 .. && make"),
}
"""The command that grades an exercise of each track (run in the copy; the tracks' own tooling must be
installed: node_modules for JavaScript, a JDK, cargo, go, cmake)."""

PROMPT_TAIL = """

####

Use the instructions above to change these files: {files}.
Keep the names of the existing functions and classes: the tests call them.
Use only the language's standard library; install nothing."""


def _enable_all_tests(language: str) -> Callable[[str], str]:
    if language == "javascript":
        return lambda text: re.sub(r"\bxtest\(", "test(", text)
    if language == "java":
        return lambda text: re.sub(r"^\s*@Disabled(\([^)]*\))?\s*$\n?", "", text, flags=re.MULTILINE)
    return lambda text: text


def is_exercism(path: Path) -> bool:
    """An exercise, a `practice` folder of them, a track, or a folder of tracks (the polyglot benchmark)."""
    return bool(_exercise_dirs(path))


def load_exercism(path: Path) -> list[Task]:
    return [_load_exercise(folder) for folder in _exercise_dirs(path)]


def _is_exercise(folder: Path) -> bool:
    return (folder / ".meta" / "config.json").is_file() and (folder / ".docs" / "instructions.md").is_file()


def _exercise_dirs(path: Path) -> list[Path]:
    if _is_exercise(path):
        return [path]
    for practice in (path, path / "exercises" / "practice"):
        found = sorted(child for child in practice.glob("*") if _is_exercise(child))
        if found:
            return found
    return sorted(child for child in path.glob("*/exercises/practice/*") if _is_exercise(child))


def _language(folder: Path) -> str:
    """The track the exercise belongs to: the folder above `exercises/practice`, else `python`."""
    parts = folder.resolve().parts
    if len(parts) >= 4 and parts[-3:-1] == ("exercises", "practice"):
        return parts[-4].split("-")[0].lower()  # `python`, or a checkout named `python-track`
    return "python"


def _load_exercise(folder: Path) -> Task:
    config_path = folder / ".meta" / "config.json"
    try:
        config = json.loads(config_path.read_text(encoding="utf-8"))
        files = config["files"]
        solution, tests = list(files["solution"]), list(files["test"])
        examples = list(files.get("example", []))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise TaskFormatError(f"{config_path}: needs files.solution and files.test lists ({exc})") from exc
    language = _language(folder)
    if language not in TEST_COMMANDS:
        raise TaskFormatError(
            f"{folder}: no test command for the {language!r} track (known: {', '.join(sorted(TEST_COMMANDS))})"
        )
    docs = folder / ".docs"
    prompt = "".join(
        (docs / name).read_text(encoding="utf-8")
        for name in ("introduction.md", "instructions.md", "instructions.append.md")
        if (docs / name).is_file()
    ) + PROMPT_TAIL.format(files=" ".join(solution))
    everything = files_under(folder)
    hidden = set(tests) | {name for name in everything if name.startswith((".meta/", ".docs/"))}
    enable = _enable_all_tests(language)
    check: dict[str, Path | bytes] = {}
    for name in tests:
        source = folder / name
        if not source.is_file():
            raise TaskFormatError(f"{config_path}: the test file {name} does not exist")
        check[name] = enable(source.read_text(encoding="utf-8")).encode("utf-8")
    reference: dict[str, Path | bytes] = {}
    if len(examples) == len(solution):
        reference = {
            target: folder / example
            for target, example in zip(solution, examples, strict=True)
            if (folder / example).is_file()
        }
    return Task(
        id=f"{language}/{folder.name}",
        family="implement",
        language=language,
        prompt=prompt,
        check=TEST_COMMANDS[language],
        repo={k: v for k, v in everything.items() if k not in hidden},
        check_files=check,
        solution=reference,
        timeout_s=600.0,
        max_turns=30,
        check_timeout_s=180.0,
        source=str(folder),
        editable=tuple(solution),
        workdir_name=folder.name,
    )
