"""What verifying a batch of draft tokens costs on this machine, in one-token steps, as the draft
controller (`draft_control`) measures and fits it; the priors it starts from; the check on given costs.
"""

from __future__ import annotations

import math
import statistics
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..errors import ModelLoadError

DEFAULT_VERIFY_COSTS: Mapping[int, float] = {2: 1.3, 9: 3.5}
"""Batch size -> cost in one-token steps assumed until measured (held lightly: a few measurements
outweigh it): near the Qwen 3.5 shapes on 2 cores, dearer than a small dense model's batches."""

DEFAULT_ROLLBACK_OVERHEAD = 1.05
"""What a one-token step with a hybrid's rollback snapshots costs against one without, until a paused
request measured it (bench/results/hybrid.md: 5% on the 0.8B shape, Q4_K; 7.5% measured at one thread)."""


def check_verify_costs(verify_costs: Mapping[int, float] | None) -> dict[int, float] | None:
    """`verify_costs` as the controller keeps it; a `ModelLoadError` (a runtime's load option) naming a
    size or cost that cannot be one."""
    if verify_costs is None:
        return None
    out: dict[int, float] = {}
    for n, cost in verify_costs.items():
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ModelLoadError(f"verify_costs: batch size {n!r} is not a whole number of tokens >= 1")
        if isinstance(cost, bool) or not isinstance(cost, int | float) or not math.isfinite(cost) or cost <= 0:
            raise ModelLoadError(f"verify_costs[{n}] = {cost!r}: a batch's cost relative to one step must be a "
                             "positive number")
        if n == 1 and cost != 1:
            raise ModelLoadError(f"verify_costs[1] = {cost!r}: a one-token step costs 1 step by definition")
        out[n] = float(cost)
    return out


@dataclass
class VerifyCost:
    """What a batch of n tokens costs in one-token steps: each timed batch is divided by the step time of
    the moment (the mean of the last `keep` one-token steps, so a machine whose load changes moves both
    alike) and capped at n steps; a size's cost is the mean of its last `keep` samples taken in the last
    `max_age` evaluations (a size not tried for long drops out of the fit instead of ruling it). The
    first batch of each size is not counted (llama.cpp sizes its buffers for a new shape then).

    Means, not medians: what a reply takes is the sum of its calls, stalls included. Where the cores are
    busy some calls stall (a thread waits for the core its partner needs: with libgomp's default spin, a
    Gemma step of 14-35 ms took 2.5 s now and then, bench/results/busy_machine.md), and a batch is one
    call where its tokens one by one are many: there a batch of 13 averaged 1.9-3.0 steps while its
    median said 5-5.7, and medians, which drop the stalls, backed drafting off where it paid most. On a
    quiet machine the two agree."""

    priors: Mapping[int, float] | None = None
    """Batch size -> cost measured beforehand, weighed like two measurements each; None: the defaults,
    used only until a batch was measured."""
    keep: int = 8
    max_age: int = 512
    recalibrate_every: int = 64
    """Evaluations after which a one-token step is timed again (the ratio needs a current step time)."""
    _steps: deque[float] = field(default_factory=deque)
    _plain: deque[float] = field(default_factory=deque)
    _samples: dict[int, deque[tuple[int, float]]] = field(default_factory=dict)
    _seen: set[int] = field(default_factory=set)
    _evals: int = 0
    _last_step: int = -1
    _line: tuple[float, float] | None = None
    _line_at: int = -1

    def observe(self, tokens: int, seconds: float) -> None:
        if tokens < 1 or seconds < 0:
            return
        self._evals += 1
        if tokens not in self._seen:  # a first batch of this shape: buffers were sized, not only tokens run
            self._seen.add(tokens)
            return
        if tokens == 1:
            self._steps.append(seconds)
            if len(self._steps) > self.keep:
                self._steps.popleft()
            self._last_step = self._evals
            return
        step = self.step_seconds
        if not step:
            return
        samples = self._samples.setdefault(tokens, deque())
        samples.append((self._evals, min(float(tokens), max(0.5, seconds / step))))
        if len(samples) > self.keep:
            samples.popleft()
        self._line = None

    def observe_plain(self, seconds: float) -> None:
        """A one-token step of a hybrid without its rollback snapshots (a paused request) took `seconds`."""
        if seconds > 0:
            self._plain.append(seconds)
            if len(self._plain) > 4 * self.keep:
                self._plain.popleft()

    def overhead(self) -> float | None:
        """What a one-token step with rollback snapshots costs against one without (1.0-1.5); None until
        both were timed."""
        if not self._plain or not self._steps:
            return None
        return min(1.5, max(1.0, statistics.median(self._steps) / statistics.median(self._plain)))

    @property
    def step_seconds(self) -> float | None:
        """The time of a one-token step (the mean of the last few); None before one was timed."""
        return statistics.fmean(self._steps) if self._steps else None

    def stale(self) -> bool:
        """True when no one-token step was timed yet, or none in `recalibrate_every` evaluations."""
        return not self._steps or self._evals - self._last_step >= self.recalibrate_every

    def _fresh(self, tokens: int) -> list[float]:
        return [r for at, r in self._samples.get(tokens, ()) if at > self._evals - self.max_age]

    def measured(self, tokens: int) -> float | None:
        """The measured cost of a batch of `tokens`, in one-token steps; None when not measured lately."""
        if tokens == 1:
            return 1.0 if self._steps else None
        fresh = self._fresh(tokens)
        return statistics.fmean(fresh) if fresh else None

    def measured_sizes(self) -> dict[int, float]:
        """Every batch size over one token measured lately, with its cost in one-token steps."""
        return {n: statistics.fmean(f) for n in sorted(self._samples) if n > 1 and (f := self._fresh(n))}

    def knows_batches(self) -> bool:
        """True once a batch of more than one token was measured lately, or costs were given."""
        return self.priors is not None or any(self._fresh(n) for n in self._samples if n > 1)

    def ratio(self, tokens: int) -> float:
        """The cost of evaluating a batch of `tokens` in one-token steps: 1 for one token, else the
        fitted line a + b (tokens - 1), never below one step."""
        if tokens <= 1:
            return 1.0
        if self._line is None or self._evals - self._line_at >= 64:  # samples age out as evaluations go by
            self._line, self._line_at = self._fit(), self._evals
        a, b = self._line
        return max(1.0, a + b * (tokens - 1))

    def _fit(self) -> tuple[float, float]:
        """Weighted least squares over the measured sizes (weight: their fresh samples) and the given
        prior points; the default priors only until a batch was measured. With one
        size known the line runs from a one-token step through it (the hopeful guess: longer batches
        get tried, and measured)."""
        points = [(n - 1.0, statistics.fmean(f), float(len(f))) for n in self._samples if (f := self._fresh(n))]
        if self.priors is not None:
            points += [(n - 1.0, r, 2.0) for n, r in self.priors.items() if n > 1]
        elif not points:
            points += [(n - 1.0, r, 1.0) for n, r in DEFAULT_VERIFY_COSTS.items()]
        if not points:
            return 1.0, 0.0
        w = sum(p[2] for p in points)
        mx = sum(x * pw for x, _, pw in points) / w
        my = sum(y * pw for _, y, pw in points) / w
        sxx = sum(pw * (x - mx) ** 2 for x, _, pw in points)
        if sxx <= 1e-12:
            return 1.0, max(0.0, (my - 1.0) / mx)
        b = max(0.0, sum(pw * (x - mx) * (y - my) for x, y, pw in points) / sxx)
        return my - b * mx, b


__all__ = ["DEFAULT_ROLLBACK_OVERHEAD", "DEFAULT_VERIFY_COSTS", "VerifyCost", "check_verify_costs"]
