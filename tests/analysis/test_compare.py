"""Ratio, interval and verdict of a comparison of process means."""

from __future__ import annotations

import math
import random

import pytest

from perf.analysis.compare import (
    FASTER,
    INCONCLUSIVE,
    MAX_SUGGESTED_PROCESSES,
    NO_CHANGE,
    SLOWER,
    SMALL_CHANGE,
    compare_process_means,
)


def noisy(level, count, spread, seed):
    rng = random.Random(seed)
    return [level * math.exp(rng.gauss(0, spread)) for _ in range(count)]


def test_ratio_is_of_geometric_means_changed_over_reference():
    result = compare_process_means([1.0, 4.0], [4.0, 16.0])
    assert result.ratio == pytest.approx(4.0)
    assert result.low < 4.0 < result.high
    assert (result.reference_processes, result.changed_processes) == (2, 2)


def test_welch_interval_against_a_hand_computation():
    reference = [10.0, 11.0, 12.0, 10.5]
    changed = [12.0, 13.0, 12.5]
    result = compare_process_means(reference, changed)
    a = [math.log(v) for v in reference]
    b = [math.log(v) for v in changed]

    def var(x):
        m = sum(x) / len(x)
        return sum((v - m) ** 2 for v in x) / (len(x) - 1)

    sa, sb = var(a) / 4, var(b) / 3
    df = (sa + sb) ** 2 / (sa**2 / 3 + sb**2 / 2)
    assert result.df == pytest.approx(df)
    half = math.log(result.high / result.ratio)
    assert half == pytest.approx(math.log(result.ratio / result.low))  # symmetric on the log scale
    # df is about 4.9 here: the t quantile lies between t(0.975, 5) = 2.5706
    # and t(0.975, 4) = 2.7764 (standard tables)
    assert 4 < df < 5
    assert 2.5706 < half / math.sqrt(sa + sb) < 2.7764


def test_clearly_slower_and_faster():
    reference = noisy(1.0, 20, 0.01, 1)
    assert compare_process_means(reference, noisy(1.10, 20, 0.01, 2)).verdict == SLOWER
    assert compare_process_means(reference, noisy(0.90, 20, 0.01, 3)).verdict == FASTER


def test_identical_code_with_a_tight_interval_is_no_change():
    result = compare_process_means(noisy(1.0, 30, 0.002, 4), noisy(1.0, 30, 0.002, 5))
    assert result.verdict == NO_CHANGE
    assert 1 / 1.01 < result.low <= result.high < 1.01


def test_a_real_difference_at_the_margin_is_a_small_change():
    # the interval excludes 1 but straddles the 1 % boundary
    result = compare_process_means(noisy(1.0, 20, 0.005, 6), noisy(1.01, 20, 0.005, 7))
    assert result.verdict == SMALL_CHANGE
    assert 1 < result.low < 1.01 < result.high


def test_a_real_difference_inside_the_margin_is_no_change():
    result = compare_process_means(noisy(1.0, 40, 0.001, 6), noisy(1.004, 40, 0.001, 7))
    assert result.verdict == NO_CHANGE
    assert 1 < result.low < result.high < 1.01


def test_noisy_data_is_inconclusive_with_a_suggestion():
    result = compare_process_means(noisy(1.0, 4, 0.05, 8), noisy(1.01, 4, 0.05, 9))
    assert result.verdict == INCONCLUSIVE
    assert result.low < 1 < result.high
    assert 4 < result.needed_processes <= MAX_SUGGESTED_PROCESSES
    assert compare_process_means([1.0, 1.1], [1.0, 1.1]).needed_processes is not None


def test_unequal_process_counts_are_normal_input():
    # pyperf's pooled test on values calls unequal counts significant; the
    # same distribution with 3 vs 30 processes rarely excludes a ratio of 1
    rng = random.Random(10)
    excluded = 0
    for _ in range(400):
        reference = [math.exp(rng.gauss(0, 0.02)) for _ in range(3)]
        changed = [math.exp(rng.gauss(0, 0.02)) for _ in range(30)]
        result = compare_process_means(reference, changed)
        assert (result.reference_processes, result.changed_processes) == (3, 30)
        excluded += not result.low <= 1 <= result.high
    assert excluded / 400 <= 0.08


def test_one_slow_process_widens_the_interval_instead_of_deciding():
    reference = [1.0, 1.001, 0.999, 1.0, 1.002, 0.998]
    changed = [1.0, 1.001, 0.999, 1.0, 1.002, 1.35]  # a noisy neighbour in one process
    assert compare_process_means(reference, changed).verdict == INCONCLUSIVE


def test_zero_variance_on_both_sides():
    result = compare_process_means([2.0, 2.0], [3.0, 3.0])
    assert (result.ratio, result.low, result.high) == pytest.approx((1.5, 1.5, 1.5))
    assert result.df == math.inf
    assert result.verdict == SLOWER
    assert compare_process_means([2.0, 2.0], [2.0, 2.0]).verdict == NO_CHANGE


def test_margin_changes_the_verdict():
    reference, changed = noisy(1.0, 30, 0.002, 12), noisy(1.03, 30, 0.002, 13)
    assert compare_process_means(reference, changed, margin=0.01).verdict == SLOWER
    assert compare_process_means(reference, changed, margin=0.05).verdict == NO_CHANGE
    assert compare_process_means(reference, changed, margin=0.0).verdict == SLOWER


def test_confidence_level_widens_the_interval():
    reference, changed = noisy(1.0, 10, 0.02, 14), noisy(1.01, 10, 0.02, 15)
    narrow = compare_process_means(reference, changed, confidence=0.8)
    wide = compare_process_means(reference, changed, confidence=0.99)
    assert wide.low < narrow.low < narrow.high < wide.high


@pytest.mark.parametrize(
    "reference, changed, message",
    [
        ([1.0], [1.0, 2.0], "the reference needs at least 2 processes with values, got 1"),
        ([1.0, 2.0], [], "the changed benchmark needs at least 2 processes with values, got 0"),
        ([1.0, 0.0], [1.0, 2.0], "the reference has a process mean that is not a finite number > 0"),
        ([1.0, 2.0], [1.0, math.inf], "the changed benchmark has a process mean that is not a finite number > 0"),
    ],
)
def test_bad_input(reference, changed, message):
    with pytest.raises(ValueError, match=message):
        compare_process_means(reference, changed)


def test_bad_margin_and_confidence():
    with pytest.raises(ValueError, match="the margin must be >= 0"):
        compare_process_means([1.0, 2.0], [1.0, 2.0], margin=-0.01)
    with pytest.raises(ValueError, match=r"confidence must be in \(0, 1\)"):
        compare_process_means([1.0, 2.0], [1.0, 2.0], confidence=1.0)


def test_aa_false_positive_rate_on_synthetic_processes():
    """Identical distributions: 'slower' or 'faster' about 5 % of the time
    or less (the equivalence band only removes decisions)."""
    rng = random.Random(2024)
    decided = 0
    trials = 400
    for _ in range(trials):
        reference = [math.exp(rng.gauss(0, 0.02)) for _ in range(20)]
        changed = [math.exp(rng.gauss(0, 0.02)) for _ in range(20)]
        result = compare_process_means(reference, changed, margin=0.0)
        decided += result.verdict in (SLOWER, FASTER)
    assert 0.02 <= decided / trials <= 0.08
