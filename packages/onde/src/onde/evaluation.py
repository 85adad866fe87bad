"""`evaluate`: how often an engine configuration gets a set of prompts right, from Python.

The coding agent, its tools and its sandbox live in sigit (`sigit eval` runs task packs through
them); onde has no agent, so this is the SDK's share: each case is one prompt and a check of the
reply text, asked on a fresh conversation, `repeat` times, scored with the same pass@k and Wilson
interval `sigit eval` reports. Whatever the engine's sampling says applies; with a seed, attempt i
samples with seed + i, so a run repeats exactly and its attempts still differ.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .config import SamplingConfig
from .engine import ChatEngine
from .errors import InferenceError
from .scoring import Interval, pass_at_k, wilson_interval


@dataclass(frozen=True)
class EvalCase:
    """One prompt and the check its reply must pass (`check(reply_text)` True: passed)."""

    id: str
    prompt: str
    check: Callable[[str], bool]


@dataclass(frozen=True)
class CaseResult:
    case_id: str
    attempt: int
    passed: bool
    reply: str
    error: str | None = None
    """Why the attempt failed without a verdict: the model's error, or the check raising."""
    completion_tokens: int = 0
    seconds: float = 0.0


@dataclass(frozen=True)
class EvalReport:
    results: tuple[CaseResult, ...]
    repeat: int
    sampling: SamplingConfig

    @property
    def pass_at_1(self) -> Interval:
        """The share of attempts that passed, with its 95% Wilson interval."""
        return wilson_interval(sum(r.passed for r in self.results), len(self.results))

    def pass_at(self, k: int) -> float:
        """pass@k averaged over the cases (unbiased; needs `repeat >= k`)."""
        cases: dict[str, list[bool]] = {}
        for result in self.results:
            cases.setdefault(result.case_id, []).append(result.passed)
        if not cases:
            return 0.0
        return sum(pass_at_k(len(v), sum(v), k) for v in cases.values()) / len(cases)


def evaluate(engine: ChatEngine, cases: Sequence[EvalCase], *, repeat: int = 1) -> EvalReport:
    """Ask every case `repeat` times, each on an empty conversation; the engine's own history and
    sampling are put back afterwards. A model error or a check that raises fails that attempt only."""
    if repeat < 1:
        raise ValueError(f"repeat must be at least 1, got {repeat}")
    ids = [case.id for case in cases]
    if len(set(ids)) != len(ids):
        raise ValueError(f"case ids must be unique: {sorted({i for i in ids if ids.count(i) > 1})}")
    saved_history, saved_sampling = engine.history_messages(), engine.sampling
    results: list[CaseResult] = []
    try:
        for attempt in range(repeat):
            if saved_sampling.seed is not None:
                engine.set_sampling(dataclasses.replace(saved_sampling, seed=saved_sampling.seed + attempt))
            for case in cases:
                results.append(_attempt(engine, case, attempt))
    finally:
        engine.set_sampling(saved_sampling)
        engine.set_history(saved_history)
    return EvalReport(tuple(results), repeat, saved_sampling)


def _attempt(engine: ChatEngine, case: EvalCase, attempt: int) -> CaseResult:
    engine.clear_history()
    started = time.perf_counter()
    try:
        reply = engine.send_message(case.prompt)
    except InferenceError as exc:
        return CaseResult(case.id, attempt, False, "", f"model error: {exc}", 0, time.perf_counter() - started)
    seconds = time.perf_counter() - started
    try:
        passed = bool(case.check(reply.text))
    except Exception as exc:
        return CaseResult(
            case.id,
            attempt,
            False,
            reply.text,
            f"check raised {type(exc).__name__}: {exc}",
            reply.usage.completion_tokens,
            seconds,
        )
    return CaseResult(case.id, attempt, passed, reply.text, None, reply.usage.completion_tokens, seconds)
