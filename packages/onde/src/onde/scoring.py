"""Pass rates with their uncertainty: pass@k, a Wilson interval, and a paired difference of two settings.

Small samples are the rule when a user evaluates on their own machine (ten tasks, a few repeats), so
the intervals are the ones that stay honest there: Wilson's score interval for one rate, and
Newcombe's hybrid score interval (his method 10) for the difference of two rates measured on the same
tasks. `sigit eval` and `onde.evaluate` both report through these.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

Z_95 = 1.959963984540054
"""The normal quantile of a two-sided 95% interval."""


@dataclass(frozen=True)
class Interval:
    """A rate and its confidence interval, all in [0, 1]."""

    value: float
    low: float
    high: float

    def display(self) -> str:
        """`40% (17-69%)`: how a report prints it."""
        return f"{self.value:.0%} ({self.low:.0%}-{self.high:.0%})"


@dataclass(frozen=True)
class PairedDifference:
    """Setting A's pass rate minus setting B's on the same task attempts, with a 95% interval.

    `only_a` and `only_b` count the attempts that only one setting solved: what the difference is made of."""

    difference: float
    low: float
    high: float
    pairs: int
    only_a: int
    only_b: int

    @property
    def significant(self) -> bool:
        """The interval leaves out zero: the data show a difference (at the 95% level)."""
        return self.low > 0 or self.high < 0

    def display(self) -> str:
        return f"{self.difference:+.0%} ({self.low:+.0%} to {self.high:+.0%})"


def pass_at_k(n: int, c: int, k: int) -> float:
    """The chance that at least one of k attempts drawn from n (c of them correct) is correct.

    The unbiased estimator of Chen et al. (2021): 1 - C(n-c, k) / C(n, k), as a stable product.
    """
    if not 0 <= c <= n or k < 1:
        raise ValueError(f"pass@k needs 0 <= c <= n and k >= 1, got n={n}, c={c}, k={k}")
    if k > n:
        raise ValueError(f"pass@{k} needs at least {k} attempts per task, got {n}")
    if n - c < k:
        return 1.0
    product = 1.0
    for i in range(n - c + 1, n + 1):
        product *= 1.0 - k / i
    return 1.0 - product


def wilson_interval(successes: int, trials: int, z: float = Z_95) -> Interval:
    """The rate successes/trials with Wilson's score interval (no trials: 0, from 0 to 1)."""
    if not 0 <= successes <= trials:
        raise ValueError(f"successes must be between 0 and trials, got {successes} of {trials}")
    if trials == 0:
        return Interval(0.0, 0.0, 1.0)
    p = successes / trials
    z2 = z * z
    centre = (p + z2 / (2 * trials)) / (1 + z2 / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / (1 + z2 / trials)
    low = 0.0 if successes == 0 else min(p, max(0.0, centre - half))  # exact at the ends: no rounding past p
    high = 1.0 if successes == trials else max(p, min(1.0, centre + half))
    return Interval(p, low, high)


def paired_difference(a: Sequence[bool], b: Sequence[bool], z: float = Z_95) -> PairedDifference:
    """A's pass rate minus B's, `a[i]` and `b[i]` being the same task attempt under each setting.

    Newcombe's (1998) interval for paired proportions, built from the two Wilson intervals and the
    correlation of the pairs: it stays inside [-1, 1] and behaves at 0% and 100%, where the normal
    approximation of the differences does not.
    """
    if len(a) != len(b):
        raise ValueError(f"paired outcomes need the same attempts on both sides, got {len(a)} and {len(b)}")
    n = len(a)
    if n == 0:
        return PairedDifference(0.0, -1.0, 1.0, 0, 0, 0)
    both = sum(1 for x, y in zip(a, b, strict=True) if x and y)
    only_a = sum(1 for x, y in zip(a, b, strict=True) if x and not y)
    only_b = sum(1 for x, y in zip(a, b, strict=True) if y and not x)
    neither = n - both - only_a - only_b
    p1, p2 = (both + only_a) / n, (both + only_b) / n
    w1, w2 = wilson_interval(both + only_a, n, z), wilson_interval(both + only_b, n, z)
    denominator = (both + only_a) * (neither + only_b) * (both + only_b) * (neither + only_a)
    phi = 0.0
    if denominator:
        cross = both * neither - only_a * only_b
        phi = (max(cross - n / 2, 0.0) if cross > 0 else cross) / math.sqrt(denominator)  # continuity-corrected
    theta = p1 - p2
    delta = math.sqrt(max(0.0, (p1 - w1.low) ** 2 - 2 * phi * (p1 - w1.low) * (w2.high - p2) + (w2.high - p2) ** 2))
    epsilon = math.sqrt(max(0.0, (w1.high - p1) ** 2 - 2 * phi * (w1.high - p1) * (p2 - w2.low) + (p2 - w2.low) ** 2))
    return PairedDifference(theta, max(-1.0, theta - delta), min(1.0, theta + epsilon), n, only_a, only_b)
