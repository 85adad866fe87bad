"""One task attempt's result, why it failed, and the JSONL file results are appended to as they finish.

The file is the run's memory: a line per finished attempt (and one per run start, with its settings),
written and flushed as each attempt ends, so an interrupted eval loses nothing and `--resume` skips
what is in it.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeAlias, get_args

from ..errors import UsageError

Outcome: TypeAlias = Literal[
    "solved",
    "check_failed",
    "edited_tests",
    "time_limit",
    "turn_limit",
    "loop_guard",
    "invalid_calls",
    "crash",
    "env_error",
]
OUTCOMES: tuple[Outcome, ...] = get_args(Outcome)
"""Every outcome, in the order reports list them."""
NOT_COUNTED: frozenset[str] = frozenset({"env_error"})
"""Outcomes that say nothing of the model (this machine could not run the check): left out of pass rates."""
OUTCOME_WORDS: dict[str, str] = {
    "solved": "solved",
    "check_failed": "check failed",
    "edited_tests": "edited the tests",
    "time_limit": "time limit",
    "turn_limit": "turn limit",
    "loop_guard": "loop guard",
    "invalid_calls": "invalid calls",
    "crash": "crash",
    "env_error": "environment error",
}


@dataclass(frozen=True)
class TaskResult:
    setting: str
    task_id: str
    attempt: int
    outcome: Outcome
    detail: str = ""
    """Why, in a sentence: the check's last line, the crash, the limit."""
    family: str = ""
    language: str = ""
    stop_reason: str | None = None
    """How the agent's turn ended (TurnFinished.stop_reason), None if it never finished."""
    turns: int = 0
    tool_calls: int = 0
    invalid_calls: int = 0
    """Calls that named no tool or whose arguments did not validate against its schema."""
    unparsed_calls: int = 0
    """Tool calls in the reply that could not be parsed at all."""
    repeated_calls: int = 0
    """Calls the repetition guard refused."""
    edits_attempted: int = 0
    edits_landed: int = 0
    edited_tests: tuple[str, ...] = ()
    prompt_tokens: int = 0
    completion_tokens: int = 0
    decode_tokens_per_s: float | None = None
    wall_s: float = 0.0
    agent_s: float = 0.0
    check_s: float = 0.0
    check_peak_rss_mb: float | None = None
    agent_peak_rss_mb: float | None = None
    """The sigit process's high-water mark when the attempt ended (the model's memory, when local)."""
    check_returncode: int | None = None
    check_output: str = ""
    changed_files: tuple[str, ...] = ()
    diff: str = ""
    final_text: str = ""
    temperature: float | None = None
    seed: int | None = None
    finished_at: float = 0.0
    context_exhaustions: int = 0
    """Times the conversation filled the model's context window (compactions, a prompt that no longer fit)."""
    check_timed_out: bool = False
    """The check hung and was stopped at its time limit (Aider's `test_timeouts`)."""
    tests_passed: int | None = None
    """Of the tests the task requires, how many ran and passed (None: the check reported no tests)."""
    tests_failed: int | None = None
    tests_missing: int | None = None
    """Required tests that never ran (an import that failed, a run cut short)."""
    failing_tests: tuple[str, ...] = ()
    left_out_files: tuple[str, ...] = ()
    """Files the agent added that grading leaves out (tests, runner files, shadowing modules)."""
    grading: str = ""
    """How the check was confined (`workspace-write, network off`), or why it was not."""

    @property
    def solved(self) -> bool:
        return self.outcome == "solved"

    @property
    def key(self) -> tuple[str, str, int]:
        return (self.setting, self.task_id, self.attempt)

    def to_json(self) -> dict[str, Any]:
        return {"type": "task", **dataclasses.asdict(self)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TaskResult:
        names = {f.name for f in dataclasses.fields(cls)}
        values = {k: v for k, v in data.items() if k in names}
        for name in ("edited_tests", "changed_files", "failing_tests", "left_out_files"):
            values[name] = tuple(values.get(name) or ())
        if values.get("outcome") not in OUTCOMES:
            raise ValueError(f"unknown outcome {values.get('outcome')!r}")
        return cls(**values)


@dataclass(frozen=True)
class AgentFacts:
    """What grading needs to know of the agent's attempt (see `classify`)."""

    stop_reason: str | None
    timed_out: bool = False
    error: str | None = None
    """The agent crashed: an exception, or its turn ended with an error."""
    loop_guard: bool = False
    invalid_calls: int = 0
    unparsed_calls: int = 0
    calls_run: int = 0


def classify(
    agent: AgentFacts,
    check_passed: bool,
    check_crash: str | None,
    edited_tests: Iterable[str],
    check_tail: str,
    env_error: str | None = None,
    check_reason: str = "",
) -> tuple[Outcome, str]:
    """The outcome and its sentence. A passing check solves the task whatever stopped the agent; a
    failing one is put down to the first of: a crash (the agent's or the task's), the time limit, edited
    tests, the turn limit, the loop guard, invalid calls (at least one, and no fewer than the calls that
    ran), and otherwise the check itself."""
    edited = tuple(edited_tests)
    if check_passed:
        note = f" (it also edited {', '.join(edited)}; the check's own version passed)" if edited else ""
        return "solved", f"the check passed{note}"
    if agent.error is not None:
        return "crash", f"the agent crashed: {agent.error}"
    if env_error is not None:
        return "env_error", f"this machine could not run the check: {env_error}"
    if check_crash is not None:
        return "crash", f"the task crashed: {check_crash}"
    if agent.timed_out:
        return "time_limit", "the agent was stopped at the task's time limit"
    if edited:
        return "edited_tests", f"the agent edited the tests ({', '.join(edited)}); with them restored the check failed"
    if agent.stop_reason == "max_rounds":
        return "turn_limit", "the agent used up the task's turns"
    if agent.stop_reason == "loop_guard" or agent.loop_guard:
        return "loop_guard", "the repetition guard stopped the agent"
    bad = agent.invalid_calls + agent.unparsed_calls
    if bad and bad >= agent.calls_run:
        return "invalid_calls", f"{bad} tool call{'s' if bad != 1 else ''} could not be parsed or validated"
    last = next(
        (line.strip() for line in reversed(check_tail.splitlines()) if line.strip() and not _NOISE.match(line.strip())),
        "",
    )
    if check_reason:
        return "check_failed", f"the check failed: {check_reason[:300]}"
    return "check_failed", f"the check failed: {last[:200]}" if last else "the check failed"


_NOISE = re.compile(r"# (duration_ms|todo|skipped|cancelled|suites)\b")
"""Lines of a summary that say nothing of why (`node --test` ends with its counters)."""


class ResultsFile:
    """The JSONL file of a run: read what is there, append as attempts finish."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.runs: list[dict[str, Any]] = []
        self.results: dict[tuple[str, str, int], TaskResult] = {}

    def load(self) -> None:
        """Read the file (a torn last line, from an eval killed mid-write, is skipped)."""
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageError(f"cannot read the results file {self.path}: {exc}") from exc
        lines = text.splitlines()
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
                if data.get("type") == "run":
                    self.runs.append(data)
                elif data.get("type") == "task":
                    result = TaskResult.from_json(data)
                    self.results[result.key] = result
            except (ValueError, TypeError, AttributeError) as exc:
                if number == len(lines):
                    continue  # the write the interruption cut short
                raise UsageError(
                    f"{self.path}:{number} is not a result line ({exc}); move the file away or pass another --results"
                ) from exc

    def append(self, record: dict[str, Any]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            handle.flush()
            os.fsync(handle.fileno())

    def start_run(self, record: RunRecord) -> None:
        data = record.to_json()
        self.append(data)
        self.runs.append(data)

    def add(self, result: TaskResult) -> None:
        self.append(result.to_json())
        self.results[result.key] = result


@dataclass
class RunRecord:
    """The line a run starts with: what ran, with every setting, so a report can say it."""

    settings: list[dict[str, Any]]
    tasks: list[str]
    repeat: int
    sources: list[str]
    machine: dict[str, Any] = field(default_factory=dict)
    started_at: float = 0.0
    limits: dict[str, Any] = field(default_factory=dict)
    """Caps on every task (`--max-turns`, `--time-limit`), where given."""
    command: list[str] = field(default_factory=list)
    """The command line the run was started with (`sigit eval ...`)."""
    models: dict[str, Any] = field(default_factory=dict)
    """Setting name -> its model file's facts (path, size, sha256, architecture, quantisation), if local."""
    task_hashes: dict[str, str] = field(default_factory=dict)
    """Task id -> a hash of its prompt, check and files (`--resume` refuses a task that changed)."""
    pack_hash: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"type": "run", **dataclasses.asdict(self)}
