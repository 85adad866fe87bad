"""The eval run: settings x tasks x attempts, interleaved, each attempt in a fresh copy, graded, recorded.

Each setting's model is loaded once for the whole run (its prompt cache shared between tasks) and
every attempt opens a session on it through `SessionHost`, as `sigit -p` does: the user's tools,
permissions (edits and commands allowed inside the copy, nothing outside) and sandbox (network off).
With several settings (`--compare`) each task is attempted under all of them before the next, so a
drift in the machine (heat, another load) falls on both. Results go to the JSONL file as they
finish; a setting's crash in one task is that task's result, and the run goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from onde import Runtime

from ..app import SessionHost
from ..options import HostOptions
from ..tools.files import DELETE_FILE
from ..tools.shell import COMMAND_OUTPUT, KILL_COMMAND, RUN_COMMAND
from . import clean_grade
from .agent_run import AgentStats, peak_rss_mb, run_agent
from .clean_grade import Grade, hidden_paths
from .grading import CheckRun
from .results import ResultsFile, RunRecord, TaskResult, classify
from .run_facts import machine, model_facts, pack_hash, refuse_mixed, setting_facts, task_hash
from .slots import Slots
from .task_model import Task
from .workspace import AgentChanges, TaskCopy, WorkspaceError, agent_changes, prepare, remove

EVAL_ALLOW = tuple(tool.name for tool in (RUN_COMMAND, COMMAND_OUTPUT, KILL_COMMAND, DELETE_FILE))
"""Besides edits inside the copy (accept-edits), what an attempt may do without asking: its commands
(in the sandbox) and deleting files, which accept-edits does not count as an edit (a task may ask for a
file to go). A rule by name still stops at the copy: the policy asks for any path outside it, and
anything that would ask (a write or delete outside the copy, the web) is refused, as headless."""
DEFAULT_SEED = 0


@dataclass(frozen=True)
class EvalSetting:
    """One configuration under test: a model and the flags that change how it runs."""

    name: str
    model: str | None = None
    thinking: bool | None = None
    max_tokens: int | None = None
    temperature: float | None = None
    seed: int | None = DEFAULT_SEED
    """Attempt i samples with seed + i (None: the backend's own randomness)."""
    draft: str | None = None
    n_ctx: int | None = None
    settings_file: Path | None = None
    """A settings.toml used as the user settings of the run (else none: sigit's defaults)."""
    download: bool = False
    flags: tuple[str, ...] = ()
    """The flags as given, for the report."""
    runtime: Runtime | None = field(default=None, compare=False)
    """A model already loaded (tests, `onde` users); else `model` is loaded by name."""

    def host_options(self, config_dir: Path, max_turns: int, hidden: tuple[Path, ...] = ()) -> HostOptions:
        runtime_options: dict[str, Any] = {}
        if self.draft is not None:
            runtime_options["draft"] = self.draft
        if self.n_ctx is not None:
            runtime_options["n_ctx"] = self.n_ctx
        return HostOptions(
            model=self.model,
            permission_mode="accept-edits",
            allow_tools=EVAL_ALLOW,
            sandbox_mode="workspace-write",
            config_dir=config_dir,
            max_rounds=max_turns,
            thinking=self.thinking,
            max_tokens=self.max_tokens,
            download=self.download,
            runtime_options=runtime_options,
            prefill=False,  # one prompt per attempt, closed after it: nothing comes next to prepare for
            hidden_paths=hidden,  # the tasks' checks and solutions: out of the agent's commands' sight
        )

    @property
    def parallel_ok(self) -> bool:
        """Attempts may run side by side: a server answers several; one local model takes one at a time."""
        return self.runtime is None and (self.model or "").startswith("openai:")

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "model": self.model,
            "thinking": self.thinking,
            "max_tokens": self.max_tokens,
            "temperature": self.temperature,
            "seed": self.seed,
            "draft": self.draft,
            "n_ctx": self.n_ctx,
            "settings_file": str(self.settings_file) if self.settings_file else None,
            "flags": list(self.flags),
        }


@dataclass(frozen=True)
class Job:
    setting: EvalSetting
    task: Task
    attempt: int

    @property
    def key(self) -> tuple[str, str, int]:
        return (self.setting.name, self.task.id, self.attempt)


@dataclass
class EvalOptions:
    repeat: int = 1
    jobs: int = 1
    keep: bool = False
    """Keep the task copies (their folder is printed) for a look at what the agent did."""
    work_dir: Path | None = None
    python: str = sys.executable
    node: str = "node"
    max_turns: int | None = None
    """A cap on every task's turns (`--max-turns`): the smaller of it and the task's own."""
    time_limit_s: float | None = None
    """A cap on every task's agent time (`--time-limit`)."""

    def limits(self, task: Task) -> tuple[int, float]:
        turns = min(task.max_turns, self.max_turns) if self.max_turns else task.max_turns
        seconds = min(task.timeout_s, self.time_limit_s) if self.time_limit_s else task.timeout_s
        return turns, seconds


@dataclass
class _Loaded:
    """A setting's model, loaded once, with what every attempt's host needs."""

    setting: EvalSetting
    config_dir: Path
    runtime: Runtime
    owned: bool
    sampling: dict[str, Any] = field(default_factory=dict)


T = TypeVar("T")

Progress = Callable[[Job, TaskResult | None], None]
"""Called when an attempt starts (result None) and when it ends (with its result)."""


def jobs_for(settings: Sequence[EvalSetting], tasks: Sequence[Task], repeat: int) -> list[Job]:
    """Every attempt, interleaved: attempt 0 of each task under each setting, then attempt 1..."""
    return [Job(s, t, a) for a in range(repeat) for t in tasks for s in settings]


async def run_record(
    settings: Sequence[EvalSetting],
    tasks: Sequence[Task],
    options: EvalOptions,
    sources: Sequence[str],
    command: Sequence[str],
) -> RunRecord:
    """The run line: every setting (with its model file's facts), the tasks' hashes, the machine, the command."""
    from ..config.paths import cache_dir

    models = {s.name: await asyncio.to_thread(model_facts, s.model, cache_dir()) for s in settings}
    hashes = {t.id: await asyncio.to_thread(task_hash, t) for t in tasks}
    return RunRecord(
        [setting_facts(s.describe(), models[s.name]) for s in settings],
        [t.id for t in tasks],
        options.repeat,
        list(sources),
        await asyncio.to_thread(machine),
        time.time(),
        {k: v for k, v in (("max_turns", options.max_turns), ("time_limit_s", options.time_limit_s)) if v is not None},
        command=list(command),
        models=models,
        task_hashes=hashes,
        pack_hash=pack_hash(hashes),
    )


async def run_eval(
    settings: Sequence[EvalSetting],
    tasks: Sequence[Task],
    results: ResultsFile,
    options: EvalOptions,
    *,
    sources: Sequence[str] = (),
    progress: Progress | None = None,
    notice: Callable[[str], None] | None = None,
    command: Sequence[str] = (),
) -> list[TaskResult]:
    """Run what `results` does not hold yet; returns every result of these settings and tasks (old and new).
    A results file whose earlier runs sampled or ran a setting differently is refused (UsageError)."""
    names = [s.name for s in settings]
    if len(set(names)) != len(names):
        raise ValueError(f"setting names must differ: {names}")
    record = await run_record(settings, tasks, options, sources, command)
    refuse_mixed(results.runs, record.to_json(), results.path)
    todo = [job for job in jobs_for(settings, tasks, options.repeat) if job.key not in results.results]
    jobs = options.jobs
    if jobs > 1 and not all(s.parallel_ok for s in settings):
        jobs = 1
        if notice is not None:
            notice("--jobs needs every setting on a server (openai:...): a local model answers one task at a time")
    work = Path(tempfile.mkdtemp(prefix="sigit-eval-", dir=options.work_dir))
    loaded: dict[str, _Loaded] = {}
    stack = contextlib.ExitStack()
    try:
        for setting in settings:
            if any(job.setting.name == setting.name for job in todo):
                loaded[setting.name] = await _load(setting, work)
        # after the loads: a model that does not load leaves no results file behind to --resume
        results.start_run(record)
        held = Slots(max(1, jobs), work, options.work_dir)
        stack.callback(held.close)
        slots: asyncio.Queue[Path] = asyncio.Queue()
        for path in held.paths:
            slots.put_nowait(path)

        async def one(job: Job) -> None:
            slot = await slots.get()
            try:
                if progress is not None:
                    progress(job, None)
                result = await attempt(job, loaded[job.setting.name], work, options, slot)
                results.add(result)
                if progress is not None:
                    progress(job, result)
            finally:
                slots.put_nowait(slot)

        running = [asyncio.ensure_future(one(job)) for job in todo]
        try:
            await asyncio.gather(*running)
        except BaseException:  # an interrupt, or a progress callback that raised: stop the others too
            for future in running:
                future.cancel()
            if running:
                await asyncio.wait(running)
            raise
    finally:
        stack.close()
        for entry in loaded.values():
            if entry.owned:
                await asyncio.to_thread(entry.runtime.close)
        if options.keep:
            if notice is not None:
                notice(f"task copies kept in {work}")
        else:
            await asyncio.to_thread(shutil.rmtree, work, True)
    wanted = {job.key for job in jobs_for(settings, tasks, options.repeat)}
    return [r for key, r in results.results.items() if key in wanted]


async def _load(setting: EvalSetting, work: Path) -> _Loaded:
    """The setting's model, loaded once by a host reading the run's own config dir (so the user's
    settings, hooks and permission rules play no part unless `--settings` names a file)."""
    config_dir = work / "config" / _safe(setting.name)
    config_dir.mkdir(parents=True, exist_ok=True)
    if setting.settings_file is not None:
        shutil.copyfile(setting.settings_file, config_dir / "settings.toml")
    if setting.runtime is not None:
        return _Loaded(setting, config_dir, setting.runtime, owned=False)
    host = SessionHost(setting.host_options(config_dir, 1))
    probe = work / "probe"
    probe.mkdir(exist_ok=True)
    user_settings = await asyncio.to_thread(host.settings, probe)
    name = host.model_name(user_settings)
    runtime = await asyncio.to_thread(host.runtime, name, user_settings)
    return _Loaded(setting, config_dir, runtime, owned=True)


async def attempt(job: Job, model: _Loaded, work: Path, options: EvalOptions, slot: Path | None = None) -> TaskResult:
    """One attempt, start to grade; whatever breaks in it is its result.

    The copy lies in the job's `slot` (see `slots`: the same path from task to task and run to run, so a
    local model serves the system prompt from its prompt cache); with `keep`, each has its own folder."""
    task, setting = job.task, job.setting
    started = time.perf_counter()
    parent = (
        work / "kept" / _safe(setting.name) / f"attempt-{job.attempt}" / _safe(task.id)
        if options.keep
        else slot or work / "slots" / "0"
    )
    base = TaskResult(setting.name, task.id, job.attempt, "crash", family=task.family, language=task.language)
    try:
        copy = await _to_the_end(prepare, task, parent)
    except (OSError, WorkspaceError) as exc:
        return dataclasses.replace(
            base,
            detail=f"the task crashed: its copy could not be made: {exc}",
            wall_s=time.perf_counter() - started,
            finished_at=time.time(),
        )
    max_turns, timeout_s = options.limits(task)
    hidden = hidden_paths([task])
    host = SessionHost(setting.host_options(model.config_dir, max_turns, hidden), runtime=model.runtime)
    seed = setting.seed + job.attempt if setting.seed is not None else None
    stats = await run_agent(
        host, copy.root, task.prompt, timeout_s=timeout_s, temperature=setting.temperature, seed=seed
    )
    agent_rss = peak_rss_mb()
    try:
        graded = await grade(task, copy, options, hidden)
    except (OSError, WorkspaceError) as exc:
        result = _from_stats(base, stats, CheckRun(None, "", 0.0, error=str(exc)), (), "", ())
        result = dataclasses.replace(result, outcome="crash", detail=f"the task crashed: grading failed: {exc}")
    else:
        result = _from_stats(base, stats, graded.check, graded.edited, graded.changes.diff, graded.changes.files,
                             graded.grade)
    if not options.keep:
        await _to_the_end(remove, copy)
    return dataclasses.replace(
        result, wall_s=time.perf_counter() - started, agent_peak_rss_mb=agent_rss, finished_at=time.time()
    )


@dataclass(frozen=True)
class Graded:
    """What grading a copy found: the check's run, the files it restored from the task, what the agent
    changed, and the clean room's verdict."""

    check: CheckRun
    edited: tuple[str, ...]
    changes: AgentChanges
    grade: Grade


async def grade(task: Task, copy: TaskCopy, options: EvalOptions, hidden: tuple[Path, ...] = ()) -> Graded:
    """The grader's one door: whatever was left in `copy` (by the agent, or by `--validate`'s reference
    and untouched stub), carried into a clean copy and graded there in the sandbox (`clean_grade`), as
    every attempt is. Raises OSError or WorkspaceError when grading itself cannot be done."""
    changes = await _to_the_end(agent_changes, copy)
    graded = await _to_the_end(_grade, task, copy.root, changes.files, options, hidden or hidden_paths([task]))
    return Graded(graded.check, graded.copy.restored, changes, graded)


def _grade(task: Task, root: Path, changed: tuple[str, ...], options: EvalOptions, hidden: tuple[Path, ...]) -> Grade:
    return clean_grade.grade(task, root, changed, root.parent, python=options.python, node=options.node,
                             hidden=hidden)


def _from_stats(
    base: TaskResult,
    stats: AgentStats,
    check: CheckRun,
    edited: tuple[str, ...],
    diff: str,
    changed: tuple[str, ...],
    graded: Grade | None = None,
) -> TaskResult:
    verdict = graded.verdict if graded is not None else None
    outcome, detail = classify(
        stats.facts(),
        graded.passed if graded is not None else check.passed,
        check.crash,
        edited,
        check.output_tail,
        graded.env_error if graded is not None else None,
        graded.reason if graded is not None else "",
    )
    result = dataclasses.replace(
        base,
        tests_passed=verdict.tests_passed if verdict is not None else None,
        tests_failed=verdict.tests_failed if verdict is not None else None,
        tests_missing=verdict.tests_missing if verdict is not None else None,
        failing_tests=verdict.failing if verdict is not None else (),
        left_out_files=graded.copy.left_out if graded is not None else (),
        grading=graded.isolation if graded is not None else "",
    )
    return dataclasses.replace(
        result,
        outcome=outcome,
        detail=detail,
        stop_reason=stats.stop_reason,
        turns=stats.turns,
        tool_calls=stats.tool_calls,
        invalid_calls=stats.invalid_calls,
        unparsed_calls=stats.unparsed_calls,
        repeated_calls=stats.repeated_calls,
        edits_attempted=stats.edits_attempted,
        edits_landed=stats.edits_landed,
        edited_tests=edited,
        prompt_tokens=stats.prompt_tokens,
        completion_tokens=stats.completion_tokens,
        decode_tokens_per_s=stats.decode_tokens_per_s,
        agent_s=stats.seconds,
        check_s=check.seconds,
        check_peak_rss_mb=check.peak_rss_mb,
        check_returncode=check.returncode,
        check_output=check.shown,
        changed_files=changed,
        diff=diff,
        final_text=stats.text[-2000:],
        temperature=stats.temperature,
        seed=stats.seed,
        context_exhaustions=stats.context_exhaustions,
        check_timed_out=check.timed_out,
    )


async def _to_the_end(function: Callable[..., T], *args: Any) -> T:
    """`function` in a thread; a cancellation (Ctrl-C, a stopped run) waits for it to return before it
    is raised, so no thread of a stopped attempt still writes into a slot the next run is using."""
    running = asyncio.ensure_future(asyncio.to_thread(function, *args))
    try:
        return await asyncio.shield(running)
    except asyncio.CancelledError:
        with contextlib.suppress(Exception):
            await running
        raise


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name) or "setting"
