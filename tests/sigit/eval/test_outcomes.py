"""A scripted model that solves some tasks and fails others in known ways gets exactly that report:
one test per outcome class, through the real session, tools, sandbox and check."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from sigit.eval import Task, TaskResult

from .conftest import FIX_ADD, SOLVES, by_task

pytestmark = pytest.mark.slow


def task(tasks: list[Task], task_id: str, **changes: Any) -> Task:
    found = next(t for t in tasks if t.id == task_id)
    return dataclasses.replace(found, **changes)


async def test_solved_and_check_failed_in_one_run(mini_tasks: list[Task], eval_run: Any) -> None:
    results: list[TaskResult] = await eval_run(mini_tasks, by_task({"fix-add": SOLVES["fix-add"]}))
    by_id = {r.task_id: r for r in results}
    solved, failed = by_id["fix-add"], by_id["count-todos"]
    assert solved.outcome == "solved" and solved.solved
    assert solved.turns == 2 and solved.tool_calls == 1 and solved.edits_attempted == solved.edits_landed == 1
    assert solved.changed_files == ("calc.py",) and "+    return a + b" in solved.diff
    assert solved.prompt_tokens > 0 and solved.completion_tokens > 0 and solved.check_returncode == 0
    assert solved.check_peak_rss_mb is not None and solved.check_peak_rss_mb > 0
    assert failed.outcome == "check_failed" and failed.detail == "the check failed: count.txt is missing"
    assert failed.tool_calls == 0 and failed.changed_files == ()


async def test_shell_task_solved_through_the_sandboxed_command(mini_tasks: list[Task], eval_run: Any) -> None:
    [result] = await eval_run([task(mini_tasks, "count-todos")], by_task({"count-todos": SOLVES["count-todos"]}))
    assert result.outcome == "solved", result.detail
    assert result.changed_files == ("count.txt",) and result.edits_attempted == 0


async def test_editing_the_visible_test_is_reported_and_never_passes(mini_tasks: list[Task], eval_run: Any) -> None:
    cheat = {
        "tool_calls": [
            {
                "name": "edit_file",
                "arguments": {
                    "path": "tests/test_calc.py",
                    "old_text": "self.assertEqual(add(2, 3), 5)",
                    "new_text": "pass",
                },
            }
        ]
    }
    [result] = await eval_run([task(mini_tasks, "fix-add")], by_task({"fix-add": [cheat, "The tests pass now."]}))
    assert result.outcome == "edited_tests"
    assert result.edited_tests == ("tests/test_calc.py",)
    assert "with them restored the check failed" in result.detail


async def test_fixing_and_editing_the_tests_still_solves(mini_tasks: list[Task], eval_run: Any) -> None:
    touch = {
        "tool_calls": [
            {
                "name": "edit_file",
                "arguments": {
                    "path": "tests/test_calc.py",
                    "old_text": "import sys\n",
                    "new_text": "import sys  # checked\n",
                },
            }
        ]
    }
    [result] = await eval_run([task(mini_tasks, "fix-add")], by_task({"fix-add": [FIX_ADD, touch, "Done."]}))
    assert result.outcome == "solved" and result.edited_tests == ("tests/test_calc.py",)
    assert "edited tests/test_calc.py" in result.detail


async def test_time_limit_stops_a_slow_model(mini_tasks: list[Task], eval_run: Any) -> None:
    from qwen_runtime.backends.scripted import ScriptedRuntime
    from sigit.eval import EvalSetting

    slow = ScriptedRuntime(by_task({}, ["x" * 4000]), chunk_size=1, chunk_delay=0.01)
    [result] = await eval_run([task(mini_tasks, "fix-add", timeout_s=0.5)], [EvalSetting("slow", runtime=slow)])
    assert result.outcome == "time_limit"
    assert result.stop_reason == "cancelled" and result.agent_s < 10


async def test_turn_limit(mini_tasks: list[Task], eval_run: Any) -> None:
    reads = [
        {"tool_calls": [{"name": "read_file", "arguments": {"path": p}}]}
        for p in ("calc.py", "tests/test_calc.py", "calc.py")
    ]
    [result] = await eval_run([task(mini_tasks, "fix-add", max_turns=2)], by_task({"fix-add": reads}))
    assert result.outcome == "turn_limit" and result.stop_reason == "max_rounds" and result.turns == 2


async def test_loop_guard(mini_tasks: list[Task], eval_run: Any) -> None:
    same = {"tool_calls": [{"name": "read_file", "arguments": {"path": "calc.py"}}]}
    [result] = await eval_run([task(mini_tasks, "fix-add")], by_task({"fix-add": [same, same, same, "Stuck."]}))
    assert result.outcome == "loop_guard"
    assert result.repeated_calls == 1 and result.tool_calls == 3


async def test_a_crash_in_the_task_is_recorded_and_the_run_goes_on(mini_tasks: list[Task], eval_run: Any) -> None:
    killer = ("{python}", "-c", "import os, signal; os.kill(os.getpid(), signal.SIGKILL)")
    crashing = task(mini_tasks, "fix-add", check=killer)
    results = await eval_run(
        [crashing, task(mini_tasks, "count-todos")],
        by_task({"fix-add": SOLVES["fix-add"], "count-todos": SOLVES["count-todos"]}),
    )
    by_id = {r.task_id: r for r in results}
    assert by_id["fix-add"].outcome == "crash"
    assert by_id["fix-add"].detail == "the task crashed: the check was killed by SIGKILL"
    assert by_id["count-todos"].outcome == "solved"


async def test_a_hanging_check_is_stopped(mini_tasks: list[Task], eval_run: Any) -> None:
    hang = task(mini_tasks, "fix-add", check=("{python}", "-c", "import time; time.sleep(60)"), check_timeout_s=0.5)
    [result] = await eval_run([hang], by_task({"fix-add": SOLVES["fix-add"]}))
    assert result.outcome == "crash" and "hung" in result.detail and result.check_s < 10


async def test_a_check_flooding_output_is_stopped(mini_tasks: list[Task], eval_run: Any) -> None:
    flood = task(mini_tasks, "fix-add", check=("sh", "-c", "yes flood"), check_timeout_s=30)
    [result] = await eval_run([flood], by_task({"fix-add": SOLVES["fix-add"]}))
    assert result.outcome == "crash" and "flooded" in result.detail
    assert result.check_output.endswith("flood\n") and len(result.check_output) <= 4000


async def test_an_unparseable_reply_is_invalid_calls(mini_tasks: list[Task], eval_run: Any) -> None:
    broken = {"raw": '<tool_call>\n{"name": "edit_file", "arguments": {"path": "calc.py", "old_text": \n</tool_call>'}
    [result] = await eval_run([task(mini_tasks, "fix-add")], by_task({"fix-add": [broken, "Sorry."]}))
    assert result.outcome == "invalid_calls"
    assert result.unparsed_calls == 1 and result.edits_landed == 0


async def test_a_schema_invalid_call_is_counted(mini_tasks: list[Task], eval_run: Any) -> None:
    wrong = {"tool_calls": [{"name": "edit_file", "arguments": {"file": "calc.py"}}]}
    [result] = await eval_run([task(mini_tasks, "fix-add")], by_task({"fix-add": [wrong, "Sorry."]}))
    assert result.outcome == "invalid_calls" and result.invalid_calls == 1 and result.tool_calls == 1


async def test_a_crash_in_the_agent(mini_tasks: list[Task], eval_run: Any) -> None:
    from qwen_runtime.backends.scripted import ScriptedRuntime
    from sigit.eval import EvalSetting

    exhausted = ScriptedRuntime([FIX_ADD])  # the second reply is missing: the model errors mid-task
    [result] = await eval_run(
        [task(mini_tasks, "fix-add", check=("{python}", "-c", "raise SystemExit(1)"))],
        [EvalSetting("short", runtime=exhausted)],
    )
    assert result.outcome == "crash" and result.detail.startswith("the agent crashed:")
    assert result.stop_reason == "error" and result.edits_landed == 1
