"""An interrupted eval resumes without redoing what finished; `--compare` reports the difference the
scripted settings were made to show, with its uncertainty."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from qwen_runtime.backends.scripted import ScriptedRuntime
from qwen_runtime.types import ChatRequest
from sigit.eval import EvalOptions, EvalSetting, ResultsFile, Task, markdown, run_eval, summarize

from .conftest import MINI_PACK, SOLVES, by_task

pytestmark = pytest.mark.slow


class Interrupted(Exception):
    pass


async def test_an_interrupted_run_resumes_without_redoing_finished_tasks(
    mini_tasks: list[Task], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SIGIT_CONFIG_DIR", str(tmp_path / "user-config"))
    asked: list[str] = []
    solve = by_task(SOLVES)

    def respond(request: ChatRequest) -> Any:
        first = next(m.content for m in request.messages if m.role == "user")
        asked.append(next(t.id for t in mini_tasks if t.prompt in str(first)))
        return solve(request)

    def interrupt_after_first(_job: Any, result: Any) -> None:
        if result is not None:
            raise Interrupted

    path = tmp_path / "results.jsonl"
    setting = [EvalSetting("scripted", runtime=ScriptedRuntime(respond))]
    first = ResultsFile(path)
    with pytest.raises(Interrupted):
        await run_eval(setting, mini_tasks, first, EvalOptions(work_dir=tmp_path), progress=interrupt_after_first)
    assert asked == ["count-todos", "count-todos"]  # the first task's two turns; the second never started
    asked.clear()

    resumed = ResultsFile(path)
    resumed.load()
    assert list(resumed.results) == [("scripted", "count-todos", 0)]
    results = await run_eval(setting, mini_tasks, resumed, EvalOptions(work_dir=tmp_path))
    assert asked == ["fix-add", "fix-add"]  # only the task that had not finished
    assert sorted((r.task_id, r.outcome) for r in results) == [("count-todos", "solved"), ("fix-add", "solved")]
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [line["type"] for line in lines] == ["run", "task", "run", "task"]


async def test_a_torn_last_line_is_skipped_on_resume(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    path.write_text('{"type": "run", "settings": []}\n{"type": "task", "setting": "a", "task_')
    store = ResultsFile(path)
    store.load()
    assert store.results == {} and len(store.runs) == 1


async def test_compare_shows_the_scripted_difference(mini_tasks: list[Task], eval_run: Any) -> None:
    good = EvalSetting("good", runtime=ScriptedRuntime(by_task(SOLVES)))
    bad = EvalSetting("bad", runtime=ScriptedRuntime(by_task({})))
    results = await eval_run(mini_tasks, [good, bad], repeat=2)
    summary = summarize(["good", "bad"], results)
    assert [(t.setting, t.solved, t.attempts) for t in summary.totals] == [("good", 4, 4), ("bad", 0, 4)]
    assert summary.totals[0].pass_at_k == {1: 1.0, 2: 1.0} and summary.totals[1].pass_at_k == {1: 0.0, 2: 0.0}
    [comparison] = summary.comparisons
    diff = comparison.difference
    assert (comparison.baseline, comparison.other) == ("good", "bad")
    assert diff.difference == -1.0 and diff.pairs == 4 and diff.only_b == 4 and diff.only_a == 0
    assert diff.significant and diff.high < 0
    run = {
        "settings": [good.describe(), bad.describe()],
        "tasks": [t.id for t in mini_tasks],
        "sources": [str(MINI_PACK)],
        "machine": {},
    }
    report = markdown(summary, results, run, 2)
    assert "bad vs good: -100%" in report and "a real difference at 95%" in report
    assert "| good | 4/4 |" in report and "| bad | 0/4 |" in report


async def test_compare_of_equal_settings_says_it_cannot_tell(mini_tasks: list[Task], eval_run: Any) -> None:
    one = EvalSetting("one", runtime=ScriptedRuntime(by_task({"fix-add": SOLVES["fix-add"]})))
    two = EvalSetting("two", runtime=ScriptedRuntime(by_task({"fix-add": SOLVES["fix-add"]})))
    results = await eval_run(mini_tasks, [one, two])
    summary = summarize(["one", "two"], results)
    [comparison] = summary.comparisons
    assert comparison.difference.difference == 0.0 and not comparison.difference.significant
    order = [(r.setting, r.task_id) for r in sorted(results, key=lambda r: r.finished_at)]
    assert order == [("one", "count-todos"), ("two", "count-todos"), ("one", "fix-add"), ("two", "fix-add")]


async def test_jobs_run_side_by_side_against_a_server_only(
    mini_tasks: list[Task], eval_run: Any, tmp_path: Path
) -> None:
    from qwen_runtime.testing.server import ScriptedServer

    with ScriptedServer(["I cannot.", "I cannot."]) as server:
        setting = EvalSetting("server", model=f"openai:{server.base_url}#scripted-qwen")
        results = await eval_run(mini_tasks, [setting], jobs=2)
        systems = [str(body["messages"][0]["content"]) for body in server.requests]
    assert sorted(r.outcome for r in results) == ["check_failed", "check_failed"]
    slots = tmp_path / f"sigit-eval-slots-{os.getuid()}"
    assert any(f"{slots}/0/repo" in s for s in systems) and any(f"{slots}/1/repo" in s for s in systems)

    notices: list[str] = []
    local = EvalSetting("local", runtime=ScriptedRuntime(by_task({})))
    store = ResultsFile(tmp_path / "local.jsonl")
    await run_eval([local], mini_tasks, store, EvalOptions(jobs=2, work_dir=tmp_path), notice=notices.append)
    assert notices == ["--jobs needs every setting on a server (openai:...): a local model answers one task at a time"]
