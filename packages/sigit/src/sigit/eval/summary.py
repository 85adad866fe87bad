"""Totals of a run: per setting, pass@1 with its interval, pass@k, why tasks failed; and the differences
between settings measured on the same attempts (`--compare`)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from statistics import fmean, median

from onde import Interval, PairedDifference, paired_difference, pass_at_k, wilson_interval

from .results import NOT_COUNTED, OUTCOMES, TaskResult


@dataclass(frozen=True)
class SettingTotals:
    setting: str
    attempts: int
    """Attempts counted in the pass rates (environment errors left out; `outcomes` has them)."""
    solved: int
    pass_at_1: Interval
    """Solved attempts over all attempts, with the 95% Wilson interval."""
    pass_at_k: dict[int, float]
    """k -> pass@k averaged over tasks (unbiased estimator), for k = 1..repeat."""
    outcomes: dict[str, int]
    turns: float
    tool_calls: int
    invalid_calls: int
    unparsed_calls: int
    edits_attempted: int
    edits_landed: int
    prompt_tokens: int
    completion_tokens: int
    decode_tokens_per_s: float | None
    """The median over attempts that streamed."""
    wall_s: float
    """All attempts' seconds together (the run's length when one ran at a time)."""
    agent_peak_rss_mb: float | None
    check_peak_rss_mb: float | None
    seconds_per_case: float = 0.0
    """Mean seconds per attempt, agent and check (Aider's `seconds_per_case`)."""
    prompt_tokens_per_case: float = 0.0
    completion_tokens_per_case: float = 0.0
    well_formed: int = 0
    """Attempts whose every tool call parsed and validated (Aider's `percent_cases_well_formed`, as a count)."""
    malformed_calls: int = 0
    """Tool calls that could not be parsed or validated, over all attempts (Aider's `num_malformed_responses`)."""
    with_malformed: int = 0
    """Attempts with at least one (Aider's `num_with_malformed_responses`)."""
    syntax_errors: int = 0
    """Attempts whose check reported a syntax or indentation error in the code (Aider's `syntax_errors`)."""
    context_exhaustions: int = 0
    test_timeouts: int = 0
    pass_at_k_interval: Interval | None = None
    """pass@k at k = the attempts every task had (above one): tasks solved at least once over tasks, with
    the 95% Wilson interval over tasks (at that k the unbiased estimator is exactly this share)."""

    @property
    def well_formed_share(self) -> float:
        return self.well_formed / self.attempts if self.attempts else 0.0


@dataclass(frozen=True)
class Comparison:
    baseline: str
    other: str
    difference: PairedDifference
    """`other`'s pass rate minus `baseline`'s, over the attempts both ran."""


@dataclass(frozen=True)
class Summary:
    totals: list[SettingTotals]
    comparisons: list[Comparison] = field(default_factory=list)
    invalid: dict[str, str] = field(default_factory=dict)
    """Task id -> why `--validate` found the task itself broken; its attempts are left out of the totals."""


SYNTAX_ERROR = re.compile(r"\b(SyntaxError|IndentationError|TabError)\b")
"""What a check prints when the code does not even parse (Python and JavaScript name it the same)."""


def malformed(r: TaskResult) -> int:
    return r.invalid_calls + r.unparsed_calls


def syntax_error(r: TaskResult) -> bool:
    return not r.solved and SYNTAX_ERROR.search(r.check_output) is not None


def totals(setting: str, results: Sequence[TaskResult]) -> SettingTotals:
    counted = [r for r in results if r.outcome not in NOT_COUNTED]  # an env_error says nothing of the model
    solved = sum(r.solved for r in counted)
    per_task: dict[str, list[bool]] = {}
    for r in counted:
        per_task.setdefault(r.task_id, []).append(r.solved)
    least = min((len(v) for v in per_task.values()), default=0)
    at_k = {k: fmean(pass_at_k(len(v), sum(v), k) for v in per_task.values()) for k in range(1, least + 1)}
    counts = Counter(r.outcome for r in results)
    speeds = [r.decode_tokens_per_s for r in results if r.decode_tokens_per_s]
    agent_rss = [r.agent_peak_rss_mb for r in results if r.agent_peak_rss_mb is not None]
    check_rss = [r.check_peak_rss_mb for r in results if r.check_peak_rss_mb is not None]
    return SettingTotals(
        setting=setting,
        attempts=len(counted),
        solved=solved,
        pass_at_1=wilson_interval(solved, len(counted)),
        pass_at_k=at_k,
        outcomes={o: counts.get(o, 0) for o in OUTCOMES},
        turns=fmean(r.turns for r in results) if results else 0.0,
        tool_calls=sum(r.tool_calls for r in results),
        invalid_calls=sum(r.invalid_calls for r in results),
        unparsed_calls=sum(r.unparsed_calls for r in results),
        edits_attempted=sum(r.edits_attempted for r in results),
        edits_landed=sum(r.edits_landed for r in results),
        prompt_tokens=sum(r.prompt_tokens for r in results),
        completion_tokens=sum(r.completion_tokens for r in results),
        decode_tokens_per_s=median(speeds) if speeds else None,
        wall_s=sum(r.wall_s for r in results),
        agent_peak_rss_mb=max(agent_rss) if agent_rss else None,
        check_peak_rss_mb=max(check_rss) if check_rss else None,
        seconds_per_case=fmean(r.wall_s for r in results) if results else 0.0,
        prompt_tokens_per_case=fmean(r.prompt_tokens for r in results) if results else 0.0,
        completion_tokens_per_case=fmean(r.completion_tokens for r in results) if results else 0.0,
        well_formed=sum(1 for r in results if not malformed(r)),
        malformed_calls=sum(malformed(r) for r in results),
        with_malformed=sum(1 for r in results if malformed(r)),
        syntax_errors=sum(1 for r in results if syntax_error(r)),
        context_exhaustions=sum(r.context_exhaustions for r in results),
        test_timeouts=sum(1 for r in results if r.check_timed_out),
        pass_at_k_interval=(
            wilson_interval(sum(1 for v in per_task.values() if any(v[:least])), len(per_task)) if least > 1 else None
        ),
    )


def summarize(
    settings: Sequence[str], results: Sequence[TaskResult], invalid: Mapping[str, str] | None = None
) -> Summary:
    """Totals per setting (in the order given) and, with two or more, each against the first. Attempts at
    `invalid` tasks (a reference that fails, or a stub that passes, under the grader) count for no one."""
    broken = dict(invalid or {})
    by_setting = {name: [r for r in results if r.setting == name and r.task_id not in broken] for name in settings}
    shown = {task: why for task, why in broken.items() if any(r.task_id == task for r in results)}
    summary = Summary([totals(name, by_setting[name]) for name in settings], invalid=shown)
    if len(settings) > 1:
        base = {(r.task_id, r.attempt): r.solved for r in by_setting[settings[0]]}
        for name in settings[1:]:
            other = {(r.task_id, r.attempt): r.solved for r in by_setting[name]}
            common = sorted(base.keys() & other.keys())
            diff = paired_difference([other[k] for k in common], [base[k] for k in common])
            summary.comparisons.append(Comparison(settings[0], name, diff))
    return summary
