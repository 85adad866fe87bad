"""`sigit eval --validate`: the harness checks its tasks before it scores a model.

Each task is graded twice through the very grader an attempt goes through (`harness.grade`), with no
model: once with its reference solution laid over a fresh copy (an oracle that writes the solution's
files, deletes what `solution/.delete` lists), once with the copy untouched (a null agent). A task is
valid when the reference solves it and the stub does not; otherwise it is invalid, with the reason, and
a run reports its attempts apart instead of counting them against a model. Verdicts are kept in sigit's
cache by task hash and sigit build, so a later run (or `--report` rebuilt from a results file) knows them.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..fileio import write_atomic
from .harness import EvalOptions, grade
from .results import AgentFacts, Outcome, classify
from .run_facts import sigit_revision, task_hash
from .task_model import Task
from .workspace import WorkspaceError, prepare, remove, write_files

CACHE_FILE = "eval-validation.json"
DELETE_LIST = ".delete"
"""In a pack's `solution/`: the files the reference solution deletes, one path per line."""
CLEAN_STOP = AgentFacts("end_turn")
"""The facts of an agent that stopped on its own: the check alone decides the outcome."""


@dataclass(frozen=True)
class Validation:
    task_id: str
    task_hash: str
    valid: bool | None
    """None: the task has no reference solution, so it could not be checked."""
    reason: str
    reference_outcome: Outcome | None = None
    reference_detail: str = ""
    stub_outcome: Outcome | None = None
    stub_detail: str = ""


def apply_solution(root: Path, solution: Mapping[str, Path | bytes]) -> None:
    """What an oracle agent does: delete the files the solution deletes, write the ones it holds."""
    listed = solution.get(DELETE_LIST)
    if listed is not None:
        text = listed.decode() if isinstance(listed, bytes) else listed.read_text(encoding="utf-8")
        for line in text.splitlines():
            name = line.strip()
            target = root / name
            if name and root.resolve() in target.resolve().parents:
                target.unlink(missing_ok=True)
    write_files(root, {name: source for name, source in solution.items() if name != DELETE_LIST})


async def _graded(task: Task, parent: Path, options: EvalOptions, *, solved: bool) -> tuple[Outcome, str]:
    copy = await asyncio.to_thread(prepare, task, parent)
    try:
        if solved:
            await asyncio.to_thread(apply_solution, copy.root, task.solution)
        graded = await grade(task, copy, options)
    finally:
        await asyncio.to_thread(remove, copy)
    verdict = graded.grade
    return classify(CLEAN_STOP, verdict.passed, graded.check.crash, graded.edited, graded.check.output_tail,
                    verdict.env_error, verdict.reason)


async def validate_task(task: Task, work: Path, options: EvalOptions) -> Validation:
    """Grade the reference and the stub of `task`; valid when only the reference passes."""
    digest = await asyncio.to_thread(task_hash, task)
    if not task.solution:
        return Validation(task.id, digest, None, "no reference solution: the task cannot be validated")
    parent = work / "".join(c if c.isalnum() or c in "-_." else "_" for c in task.id)
    try:
        reference = await _graded(task, parent / "reference", options, solved=True)
        stub = await _graded(task, parent / "stub", options, solved=False)
    except (OSError, WorkspaceError) as exc:
        return Validation(task.id, digest, False, f"the task could not be graded: {exc}")
    if "env_error" in (reference[0], stub[0]):  # the machine, not the task: left unchecked, never invalid
        why = reference[1] if reference[0] == "env_error" else stub[1]
        return Validation(task.id, digest, None, f"env_error: this machine cannot grade it ({why})", reference[0],
                          reference[1], stub[0], stub[1])
    problems = []
    if reference[0] != "solved":
        problems.append(f"the reference solution does not pass ({reference[1]})")
    if stub[0] == "solved":
        problems.append("the untouched starting files pass the check (it grades nothing)")
    return Validation(
        task.id,
        digest,
        not problems,
        "; ".join(problems) or "the reference passes and the stub fails",
        reference[0],
        reference[1],
        stub[0],
        stub[1],
    )


async def validate(tasks: Sequence[Task], options: EvalOptions, progress: Any = None) -> list[Validation]:
    """Every task validated, `options.jobs` at a time; `progress(validation)` after each."""
    work = Path(tempfile.mkdtemp(prefix="sigit-eval-validate-", dir=options.work_dir))
    gate = asyncio.Semaphore(max(1, options.jobs))

    async def one(task: Task) -> Validation:
        async with gate:
            verdict = await validate_task(task, work, options)
        if progress is not None:
            progress(verdict)
        return verdict

    try:
        return list(await asyncio.gather(*(one(task) for task in tasks)))
    finally:
        await asyncio.to_thread(shutil.rmtree, work, True)


def _grader_id() -> str:
    """The build a verdict holds for: another grader may judge a task differently."""
    revision = sigit_revision()
    return str(revision["commit"] or revision["version"])


def _key(digest: str) -> str:
    return f"{digest}@{_grader_id()}"


def save(cache_dir: Path, verdicts: Iterable[Validation]) -> None:
    """Keep the verdicts by task hash and grader (a read-only cache loses them, nothing else)."""
    path = cache_dir / CACHE_FILE
    known = _load(path)
    for verdict in verdicts:
        known[_key(verdict.task_hash)] = asdict(verdict)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, json.dumps(known, indent=1).encode())
    except OSError:
        pass


def _load(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def known_invalid(cache_dir: Path, task_hashes: Mapping[str, str]) -> dict[str, str]:
    """Task id -> why, for the tasks (id -> hash) an earlier `--validate` of this grader found invalid."""
    known = _load(cache_dir / CACHE_FILE)
    out = {}
    for task_id, digest in task_hashes.items():
        entry = known.get(_key(digest))
        if isinstance(entry, dict) and entry.get("valid") is False:
            out[task_id] = str(entry.get("reason", "invalid"))
    return out
