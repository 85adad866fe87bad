"""The report a user pastes: Aider's figures under their names, what makes them comparable (command,
commit, model file, stack, machine), tokens of time-limited attempts, `--resume` that refuses to mix
settings, and `--report` rebuilt from a results file without running anything."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from qwen_runtime.backends.scripted import ScriptedRuntime
from sigit.errors import UsageError
from sigit.eval import EvalSetting, ResultsFile, Task, markdown, summarize
from sigit.eval.run_facts import file_sha256, machine, model_facts
from sigit.frontends.eval_cli import run_eval_cli

from .conftest import SOLVES, by_task

BROKEN_ADD = {
    "tool_calls": [
        {"name": "edit_file", "arguments": {"path": "calc.py", "old_text": "return a - b", "new_text": "return a +"}}
    ]
}
"""A fix that leaves calc.py unparseable: the check fails with a SyntaxError."""
MALFORMED = {"tool_calls": [{"name": "no_such_tool", "arguments": {}}]}


async def test_report_names_aiders_figures_and_what_ran(mini_tasks: list[Task], eval_run: Any, tmp_path: Path) -> None:
    plays = {"fix-add": [BROKEN_ADD, "Done."], "count-todos": [MALFORMED, *SOLVES["count-todos"]]}
    results = await eval_run(mini_tasks, by_task(plays))
    store = ResultsFile(tmp_path / "results.jsonl")
    store.load()
    [run] = store.runs
    [totals] = summarize(["scripted"], results).totals
    assert (totals.solved, totals.syntax_errors, totals.with_malformed, totals.malformed_calls) == (1, 1, 1, 1)
    assert totals.well_formed == 1 and totals.well_formed_share == 0.5
    assert totals.seconds_per_case == pytest.approx(sum(r.wall_s for r in results) / 2)
    assert totals.completion_tokens_per_case == sum(r.completion_tokens for r in results) / 2 > 0

    report = markdown(summarize(["scripted"], results), results, run, 1)
    assert "pass_rate_1: 50.0" in report and "percent_cases_well_formed: 50.0" in report
    assert "syntax_errors: 1" in report and "num_malformed_responses: 1" in report
    assert "Aider's `pass_rate_1`" in report and "`pass_rate_2`" in report
    assert "| scripted | 1/2 | 50% (9%-91%) | - | 50% (1/2) | 1 in 1 | 1 | 0 | 0 |" in report
    assert f"{run['machine']['cpus']} cores" in report and "software: sigit" in report
    assert "wall s" not in report  # the old column that summed every attempt under a per-attempt name
    assert len(run["task_hashes"]) == 2 and run["pack_hash"]


def test_machine_and_sigit_build_are_recorded() -> None:
    facts = machine()
    assert facts["cpus"] and facts["ram_gb"] and facts["ram_gb"] > 0
    assert facts["cpu_model"]  # /proc/cpuinfo on Linux, sysctl on macOS
    assert facts["versions"]["llama-cpp-python"] and facts["versions"]["qwen-runtime"]
    assert facts["sigit_commit"] and len(facts["sigit_commit"]) == 40  # the tests run from a checkout


def test_model_file_hash_quantisation_and_architecture(tiny_hybrid_gguf: Path, tmp_path: Path) -> None:
    facts = model_facts(str(tiny_hybrid_gguf), tmp_path)
    assert facts["sha256"] == hashlib.sha256(tiny_hybrid_gguf.read_bytes()).hexdigest()
    assert (facts["architecture"], facts["quantisation"]) == ("qwen35", "F32")
    assert facts["size"] == tiny_hybrid_gguf.stat().st_size
    cached = json.loads((tmp_path / "eval-model-hashes.json").read_text())
    assert list(cached.values()) == [facts["sha256"]]
    # the cache is by path, size and mtime: a second read is the cache's answer, not a new hash
    key = next(iter(cached))
    (tmp_path / "eval-model-hashes.json").write_text(json.dumps({key: "from-the-cache"}))
    assert file_sha256(tiny_hybrid_gguf, tmp_path) == "from-the-cache"
    assert model_facts("openai:http://127.0.0.1:1/v1#m", tmp_path) == {}


async def test_a_time_limited_attempt_reports_its_tokens(mini_tasks: list[Task], eval_run: Any) -> None:
    """A model still writing when the time limit stops it spent tokens: they are counted, not 0/0."""
    text = " ".join(f"n{i * 7919 % 100_003}" for i in range(20_000))  # never repeats: no loop guard
    slow = ScriptedRuntime(lambda _request: text, chunk_size=4, chunk_delay=0.01)
    [result] = await eval_run(
        [t for t in mini_tasks if t.id == "fix-add"], [EvalSetting("slow", runtime=slow)], time_limit_s=1.0
    )
    assert result.outcome == "time_limit"
    assert result.prompt_tokens > 0 and result.completion_tokens > 0


async def test_resume_refuses_a_results_file_made_with_other_settings(
    mini_tasks: list[Task], eval_run: Any, tmp_path: Path
) -> None:
    path = tmp_path / "r.jsonl"
    fix_add = [t for t in mini_tasks if t.id == "fix-add"]
    model = ScriptedRuntime(by_task(SOLVES))
    await eval_run(fix_add, [EvalSetting("m", temperature=0.2, runtime=model)], results=path)
    with pytest.raises(UsageError, match=r"setting 'm': temperature was 0\.2, now 0\.7"):
        await eval_run(fix_add, [EvalSetting("m", temperature=0.7, runtime=model)], results=path)
    with pytest.raises(UsageError, match=r"seed was 0, now 5"):
        await eval_run(fix_add, [EvalSetting("m", temperature=0.2, seed=5, runtime=model)], results=path)
    changed = dataclasses.replace(fix_add[0], prompt="Fix add, please.")
    with pytest.raises(UsageError, match=r"task 'fix-add' changed"):
        await eval_run([changed], [EvalSetting("m", temperature=0.2, runtime=model)], results=path)
    assert [json.loads(line)["type"] for line in path.read_text().splitlines()] == ["run", "task"]
    # the same settings resume (nothing left to do), and another setting's name may join the file
    await eval_run(fix_add, [EvalSetting("m", temperature=0.2, runtime=model)], results=path)
    await eval_run(fix_add, [EvalSetting("hot", temperature=0.7, runtime=model)], results=path)


async def test_report_is_rebuilt_from_a_results_file_without_running(
    mini_tasks: list[Task],
    eval_run: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / "r.jsonl"
    results = await eval_run(mini_tasks, by_task({"fix-add": SOLVES["fix-add"]}), results=path)
    before = path.read_text()
    monkeypatch.chdir(tmp_path)
    assert run_eval_cli(["--report", "again.md", "--results", str(path)]) == 0
    assert "rebuilt from" in capsys.readouterr().err and path.read_text() == before  # nothing ran
    store = ResultsFile(path)
    store.load()
    expected = markdown(summarize(["scripted"], results), results, store.runs[-1], 1)
    assert (tmp_path / "again.md").read_text() == expected
    assert run_eval_cli(["--json", "--results", str(path), "--task", "fix-*", "--quiet"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [r["task_id"] for r in out["results"]] == ["fix-add"] and out["totals"][0]["aider"]["pass_rate_1"] == 100
    (tmp_path / "empty.jsonl").write_text("")
    assert run_eval_cli(["--report", "x.md", "--results", str(tmp_path / "empty.jsonl")]) == 2
    assert "empty.jsonl holds no results" in capsys.readouterr().err
