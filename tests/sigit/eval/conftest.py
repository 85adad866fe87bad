"""Fixtures of the eval tests: the mini pack (two tasks in the folder format) and scripted models that
play one behaviour per task, so each test knows exactly which outcome the harness must report."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from qwen_runtime.backends.scripted import ScriptedRuntime
from qwen_runtime.types import ChatRequest
from sigit.eval import EvalOptions, EvalSetting, ResultsFile, Task, TaskResult, load_tasks, run_eval

collect_ignore_glob = ["mini_pack/*"]  # the pack's own tests are task files, not ours

MINI_PACK = Path(__file__).parent / "mini_pack"

FIX_ADD = {
    "tool_calls": [{"name": "edit_file", "arguments": {"path": "calc.py", "old_text": "a - b", "new_text": "a + b"}}]
}
COUNT_TODOS = {
    "tool_calls": [{"name": "run_command", "arguments": {"command": "cat notes/*.txt | grep -c TODO > count.txt"}}]
}
SOLVES: dict[str, list[Any]] = {"fix-add": [FIX_ADD, "Fixed add."], "count-todos": [COUNT_TODOS, "Wrote 3."]}
"""What a model that solves each mini-pack task says, turn by turn."""

Turns = Sequence[Any]


def by_task(plays: Mapping[str, Turns], default: Turns = ("I cannot do this.",)) -> Callable[[ChatRequest], Any]:
    """A responder playing `plays[task id]` turn by turn (the task is told apart by its prompt; the turn by
    how many replies the conversation holds), the last turn again once they run out."""
    prompts = {task.id: task.prompt for task in load_tasks(MINI_PACK)}

    def respond(request: ChatRequest) -> Any:
        first = next((m.content for m in request.messages if m.role == "user"), "")
        task_id = next((tid for tid, prompt in prompts.items() if prompt in str(first)), None)
        turns = plays.get(task_id or "", default)
        done = sum(1 for m in request.messages if m.role == "assistant")
        return turns[min(done, len(turns) - 1)]

    return respond


@pytest.fixture
def mini_tasks() -> list[Task]:
    return load_tasks(MINI_PACK)


@pytest.fixture
def eval_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., Awaitable[list[TaskResult]]]:
    """`eval_run(tasks, settings or a responder, repeat=1, results=None)`: a whole eval, in process."""
    monkeypatch.setenv("SIGIT_CONFIG_DIR", str(tmp_path / "user-config"))

    async def run(
        tasks: Sequence[Task], settings: Any, *, repeat: int = 1, results: Path | None = None, **options: Any
    ) -> list[TaskResult]:
        if callable(settings):
            settings = [EvalSetting("scripted", runtime=ScriptedRuntime(settings))]
        store = ResultsFile(results or tmp_path / "results.jsonl")
        store.load()
        return await run_eval(
            settings, tasks, store, EvalOptions(repeat=repeat, work_dir=tmp_path, **options), sources=[str(MINI_PACK)]
        )

    return run
