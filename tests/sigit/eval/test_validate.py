"""`sigit eval --validate`: every task's reference solution and untouched stub through the real grader,
no model; broken tasks are named with the reason and set apart in later reports instead of counted
against a model."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from typing import Any

import pytest
from sigit.eval import EvalOptions, load_all, load_tasks
from sigit.eval.validate import apply_solution, validate
from sigit.frontends.eval_cli import run_eval_cli

from .conftest import MINI_PACK, SOLVES, by_task


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SIGIT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    return tmp_path / "cache"


def broken_pack(tmp_path: Path) -> Path:
    """The mini pack with both ways a task can be broken: fix-add's reference is wrong, and count-todos's
    check passes on the starting files."""
    pack = tmp_path / "broken"
    shutil.copytree(MINI_PACK, pack)
    (pack / "fix-add" / "solution" / "calc.py").write_text("def add(a, b):\n    return a * b\n")
    (pack / "count-todos" / "repo" / "count.txt").write_text("3\n")
    return pack


def test_the_mini_pack_validates(cache: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_eval_cli([str(MINI_PACK), "--validate"]) == 0
    captured = capsys.readouterr()
    assert "2 valid, 0 invalid" in captured.out
    assert "✓ fix-add: the reference passes and the stub fails" in captured.err
    assert (cache / "eval-validation.json").is_file()


def test_broken_tasks_are_invalid_with_the_reason(
    tmp_path: Path, cache: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_eval_cli([str(broken_pack(tmp_path)), "--validate", "--quiet"]) == 1
    out = capsys.readouterr().out
    assert "0 valid, 2 invalid" in out
    assert "invalid: fix-add: the reference solution does not pass (the check failed:" in out
    assert "invalid: count-todos: the untouched starting files pass the check" in out


async def test_a_deleting_reference_is_applied_as_the_oracle_would(tmp_path: Path) -> None:
    root = tmp_path / "copy"
    (root / "old").mkdir(parents=True)
    (root / "old" / "gone.txt").write_text("x")
    listed = tmp_path / "delete-list"
    listed.write_text("old/gone.txt\n../outside.txt\n")
    (tmp_path / "outside.txt").write_text("kept")
    apply_solution(root, {".delete": listed, "new.txt": b"new"})
    assert not (root / "old" / "gone.txt").exists() and (root / "new.txt").read_bytes() == b"new"
    assert (tmp_path / "outside.txt").read_text() == "kept" and not (root / ".delete").exists()


async def test_the_built_in_smoke_pack_validates(tmp_path: Path) -> None:
    """The smoke pack through the grader itself (tests/sigit/eval/test_packs.py checks every pack's
    check by hand; this is the path `--validate` takes)."""
    tasks = [t for t in load_all(["smoke"]) if t.language != "javascript" or shutil.which("node")]
    verdicts = await validate(tasks, EvalOptions(work_dir=tmp_path, jobs=2))
    assert [(v.task_id, v.reason) for v in verdicts if not v.valid] == []


async def test_a_run_reports_invalid_tasks_apart(
    tmp_path: Path, cache: Path, eval_run: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = broken_pack(tmp_path)
    shutil.rmtree(pack / "count-todos")  # one invalid task (fix-add), one valid beside it
    shutil.copytree(MINI_PACK / "count-todos", pack / "count-todos")
    assert await asyncio.to_thread(run_eval_cli, [str(pack), "--validate", "--quiet"]) == 1  # its own loop
    capsys.readouterr()
    results = tmp_path / "r.jsonl"
    await eval_run(load_tasks(pack), by_task(SOLVES), results=results)
    assert run_eval_cli(["--report", "report.md", "--results", str(results), "--quiet"]) == 0
    report = (tmp_path / "report.md").read_text()
    assert "## Invalid tasks (left out of the totals)" in report
    assert "- fix-add: the reference solution does not pass" in report
    assert "| scripted | 1/1 |" in report  # count-todos alone counts
    assert "| fix-add |" not in report
    assert run_eval_cli(["--results", str(results), "--json", "--quiet"]) == 0
    assert '"fix-add": "the reference solution does not pass' in capsys.readouterr().out
