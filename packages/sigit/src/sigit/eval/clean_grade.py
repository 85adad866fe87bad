"""Grading one attempt in a clean room: a fresh copy of the task with only the changes it allows
(cleanroom.py), its check run in the OS sandbox (writes to that copy and its home only, no network,
the tasks' checks and solutions hidden), graded on the tests it reports (checks.py, verdict.py).

A machine that cannot run the check (the toolchain missing, a download needed) is an environment
error, told apart from a check that ran and failed, so it is never counted against the model.
Blocking: call it from a thread.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..sandbox import Sandbox, SandboxPolicy, open_sandbox
from .checks import CheckPlan, plan_check
from .cleanroom import CleanCopy, build
from .grading import CheckRun, check_environment, run_check
from .task_model import Task
from .tasks import packs_root
from .verdict import Verdict, environment_problem, judge, parse

TOOLCHAIN_KINDS = ("jest", "cargo", "go", "gradle", "catch")
"""Checks whose output can say the machine lacks something (a toolchain, a download): the Python
runner, `node --test` and a task's own script report every failure as the answer's."""


SCRIPT_FAILURE = re.compile(r"^(?:FAILED\b|FAIL\b|Traceback \(most recent call last\))", re.MULTILINE)
"""Lines by which a check script's output reports a failure whatever its exit status."""


@dataclass(frozen=True)
class Grade:
    check: CheckRun
    verdict: Verdict | None
    """None when the check never got to report tests (an environment error)."""
    copy: CleanCopy
    env_error: str | None = None
    isolation: str = ""
    """How the check was confined (`workspace-write, network off`), or why it was not."""
    reason: str = ""
    """Why the check failed, by its tests ("2 of 5 tests did not pass: ..."); empty where the check's
    own last line says it better (a task's script that exited non-zero)."""

    @property
    def passed(self) -> bool:
        return self.verdict is not None and self.verdict.passed and self.env_error is None and self.check.crash is None


def hidden_paths(tasks: Iterable[Task]) -> tuple[Path, ...]:
    """What an attempt must not read: the built-in packs' folder (checks and solutions of every task),
    and the folder of every other task (a pack's task folder; an Exercism exercise with its .meta/ and tests)."""
    packs = packs_root()
    found: list[Path] = []
    for task in tasks:
        if not task.source:
            continue
        source = Path(task.source).resolve()
        found.append(packs.resolve() if packs is not None and source.is_relative_to(packs.resolve()) else source)
    return tuple(dict.fromkeys(found))


def grade(
    task: Task,
    agent_root: Path,
    changed: tuple[str, ...],
    area: Path,
    *,
    python: str,
    node: str,
    hidden: tuple[Path, ...] = (),
) -> Grade:
    """Build the grading copy under `area` and run the task's check there, confined."""
    dest = area / "grade" / task.workdir_name
    home = area / "grade-home"
    plan = plan_check(task, dest, python, node)
    copy = build(task, agent_root, changed, dest, plan.runner)
    if plan.node_modules is not None:
        (dest / "node_modules").symlink_to(plan.node_modules, target_is_directory=True)
    if plan.env_error is not None:
        return Grade(CheckRun(None, "", 0.0, error=plan.env_error), None, copy, plan.env_error)
    env = check_environment(home)
    policy = SandboxPolicy(
        workspace=dest,
        mode="workspace-write",
        extra_dirs=(home, *plan.writable),
        cache_dirs=(),
        network=False,
        hidden=hidden,
    )
    with open_sandbox(policy) as sandbox:
        isolation = sandbox.describe() if sandbox.active else f"unconfined ({'; '.join(sandbox.warnings)})"
        run = _run(plan, dest, task.check_timeout_s, env, sandbox)
    return _graded(task, plan, run, copy, isolation)


def _run(plan: CheckPlan, dest: Path, timeout_s: float, env: dict[str, str], sandbox: Sandbox) -> CheckRun:
    spent = 0.0
    for step in plan.steps:
        run = run_check(list(step), dest, max(timeout_s - spent, 1.0), env, sandbox=sandbox)
        spent += run.seconds
        if not run.passed:
            return run
    run = run_check(list(plan.argv), dest, max(timeout_s - spent, 1.0), env, sandbox=sandbox)
    return CheckRun(
        run.returncode,
        run.output_tail,
        run.seconds + spent,
        run.peak_rss_mb,
        run.timed_out,
        run.flooded,
        run.error,
        run.records,
        run.output,
    )


def _graded(task: Task, plan: CheckPlan, run: CheckRun, copy: CleanCopy, isolation: str) -> Grade:
    if run.error is not None:  # the program is not on this machine
        return Grade(run, None, copy, f"the check could not run: {run.error}", isolation)
    xml_texts: list[str] = []
    if plan.kind == "gradle":
        for path in sorted((copy.root / "build" / "test-results").rglob("*.xml")):
            with contextlib.suppress(OSError):
                xml_texts.append(path.read_text(encoding="utf-8", errors="replace"))
    report = parse(plan.kind, run.output, run.records, xml_texts)
    if plan.kind == "script":  # the task's own script: its exit status, and no failure in its output
        report.add(plan.expected[0], "passed" if run.returncode == 0 else "failed")
        report.complete = run.crash is None
        report.failure_seen = bool(SCRIPT_FAILURE.search(run.output))
    verdict = judge(report, plan.expected, task.fail_to_pass, task.pass_to_pass)
    env_error = None
    if not verdict.passed and plan.kind in TOOLCHAIN_KINDS and not report.outcomes:
        env_error = environment_problem(run.returncode, run.output)
    script_failed = plan.kind == "script" and run.returncode != 0
    return Grade(run, verdict, copy, env_error, isolation, "" if script_failed else verdict.reason)
