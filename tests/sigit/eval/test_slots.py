"""Attempts' copies lie at the same paths from task to task and run to run (the system prompt names the
working directory, so the prompt cache then serves it), and two evals at once never share one."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from qwen_runtime.backends.scripted import ScriptedRuntime
from qwen_runtime.types import ChatRequest
from sigit.eval import EvalOptions, EvalSetting, ResultsFile, Task, run_eval
from sigit.eval.slots import Slots


def test_a_second_holder_gets_another_slot_and_a_foreign_root_is_not_used(tmp_path: Path) -> None:
    with Slots(1, tmp_path / "run-a", tmp_path) as first, Slots(2, tmp_path / "run-b", tmp_path) as second:
        root = tmp_path / f"sigit-eval-slots-{os.getuid()}"
        assert first.paths == [root / "0"] and second.paths == [root / "1", root / "2"]
    with Slots(1, tmp_path / "run-c", tmp_path) as again:
        assert again.paths == [root / "0"]  # released by the first run
    root.chmod(0o777)  # writable by anyone: not trusted
    with Slots(1, tmp_path / "run-d", tmp_path) as private:
        assert private.paths == [tmp_path / "run-d" / "slots" / "0"]


async def test_every_task_and_run_sees_the_same_working_directory(
    mini_tasks: list[Task], tmp_path: Path, monkeypatch: Any
) -> None:
    monkeypatch.setenv("SIGIT_CONFIG_DIR", str(tmp_path / "user-config"))
    systems: list[str] = []

    def respond(request: ChatRequest) -> str:
        systems.append(str(request.messages[0].content))
        return "Nothing to do."

    for run in ("one", "two"):
        store = ResultsFile(tmp_path / f"{run}.jsonl")
        await run_eval(
            [EvalSetting("s", runtime=ScriptedRuntime(respond))], mini_tasks, store, EvalOptions(work_dir=tmp_path)
        )
    assert len(systems) == 4 and len(set(systems)) == 1
    assert f"sigit-eval-slots-{os.getuid()}/0/repo" in systems[0]
