"""pass@k, Wilson's interval and the paired difference: checked against their definitions (Hypothesis)
and against textbook values."""

from __future__ import annotations

from itertools import combinations
from math import comb

import pytest
from hypothesis import given
from hypothesis import strategies as st
from onde import paired_difference, pass_at_k, wilson_interval


@given(st.integers(1, 12).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n), st.integers(1, n))))
def test_pass_at_k_is_the_share_of_k_subsets_holding_a_success(args: tuple[int, int, int]) -> None:
    n, c, k = args
    outcomes = [True] * c + [False] * (n - c)
    subsets = list(combinations(range(n), k))
    brute = sum(any(outcomes[i] for i in s) for s in subsets) / len(subsets)
    assert pass_at_k(n, c, k) == pytest.approx(brute)
    assert pass_at_k(n, c, k) == pytest.approx(1 - comb(n - c, k) / comb(n, k))


def test_pass_at_k_refuses_what_it_cannot_estimate() -> None:
    with pytest.raises(ValueError, match="pass@3 needs at least 3 attempts"):
        pass_at_k(2, 1, 3)
    with pytest.raises(ValueError, match="0 <= c <= n"):
        pass_at_k(2, 3, 1)


@given(st.integers(0, 200).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_interval_holds_the_rate_inside_zero_and_one(args: tuple[int, int]) -> None:
    successes, trials = args
    interval = wilson_interval(successes, trials)
    assert 0.0 <= interval.low <= interval.value <= interval.high <= 1.0
    if 0 < successes < trials:
        assert interval.low < interval.value < interval.high


def test_wilson_interval_textbook_values() -> None:
    # Newcombe (1998), table II: 81/263 -> 0.2553 to 0.3662; 0/10 -> 0 to 0.2775
    assert wilson_interval(81, 263).low == pytest.approx(0.2553, abs=1e-4)
    assert wilson_interval(81, 263).high == pytest.approx(0.3662, abs=1e-4)
    assert wilson_interval(0, 10).high == pytest.approx(0.2775, abs=1e-4)
    assert wilson_interval(3, 3).display() == "100% (44%-100%)"


def test_paired_difference_worked_example() -> None:
    # Altman et al. (2000), Statistics with Confidence, table 6.2: 14 both, 5 only A, 0 only B, 22 neither
    a = [True] * 14 + [True] * 5 + [False] * 22
    b = [True] * 14 + [False] * 5 + [False] * 22
    diff = paired_difference(a, b)
    assert diff.difference == pytest.approx(5 / 41)
    assert diff.low == pytest.approx(0.011, abs=1e-3) and diff.high == pytest.approx(0.226, abs=1e-3)
    assert diff.significant and (diff.only_a, diff.only_b, diff.pairs) == (5, 0, 41)


@given(st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=60))
def test_paired_difference_interval_holds_the_estimate(pairs: list[tuple[bool, bool]]) -> None:
    a, b = [x for x, _ in pairs], [y for _, y in pairs]
    diff = paired_difference(a, b)
    assert -1.0 <= diff.low <= diff.difference <= diff.high <= 1.0
    if a == b:
        assert not diff.significant
    mirrored = paired_difference(b, a)
    assert mirrored.difference == pytest.approx(-diff.difference)
    assert mirrored.low == pytest.approx(-diff.high) and mirrored.high == pytest.approx(-diff.low)
