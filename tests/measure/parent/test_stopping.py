"""--target-precision: the stopping rule's bounds and precision."""

from __future__ import annotations

import math
import random

import pytest

from perf.analysis.intervals import mean_interval
from perf.measure.parent.stopping import StoppingRule


def stop_at(rule, means):
    """Feed process means one at a time, as the manager does; the count at
    which the rule stops (None if the means run out first)."""
    for count in range(1, len(means) + 1):
        if rule.done(count, rule.precision(means[:count])):
            return count
    return None


def test_precision_is_the_relative_half_width_of_the_t_interval():
    means = [1.0, 1.02, 0.98, 1.01]
    interval = mean_interval(means)
    assert StoppingRule(0.01, 2, 10).precision(means) == pytest.approx((interval.high - 1.0025) / 1.0025)
    assert StoppingRule(0.01, 2, 10).precision([1.0]) == math.inf


def test_never_before_the_minimum_even_when_precise():
    means = [1.0, 1.0001, 0.9999, 1.0, 1.0001, 1.0, 0.9999, 1.0]
    assert stop_at(StoppingRule(0.01, 2, 100), means) == 2
    assert stop_at(StoppingRule(0.01, 6, 100), means) == 6


def test_never_after_the_maximum_even_when_imprecise():
    rng = random.Random(1)
    noisy = [math.exp(rng.gauss(0, 0.3)) for _ in range(50)]
    assert stop_at(StoppingRule(0.001, 2, 12), noisy) == 12


def test_stops_at_the_first_count_precise_enough():
    rng = random.Random(2)
    means = [math.exp(rng.gauss(0, 0.02)) for _ in range(200)]
    rule = StoppingRule(0.005, 3, 200)
    count = stop_at(rule, means)
    assert count is not None and 3 < count < 200
    assert rule.precision(means[:count]) <= 0.005 < rule.precision(means[: count - 1])


def test_paired_precision_uses_the_pairs():
    rng = random.Random(3)
    drift = [math.exp(rng.gauss(0, 0.1)) for _ in range(10)]  # shared by both of a pair
    reference = [d * math.exp(rng.gauss(0, 0.002)) for d in drift]
    changed = [1.05 * d * math.exp(rng.gauss(0, 0.002)) for d in drift]
    rule = StoppingRule(0.01, 2, 100)
    assert rule.paired_precision(reference, changed) < 0.01  # the drift cancels
    assert rule.precision(reference) > 0.05  # a single side keeps it
    assert rule.paired_precision(reference[:1], changed[:1]) == math.inf
    assert rule.paired_precision(reference, changed[:-1]) == math.inf


def test_a_a_false_positive_rate_under_the_stopping_rule():
    """Stopping on precision keeps the false positives at the nominal 5 %
    (stopping on significance would not: doc/design.rst, R5)."""
    from perf.analysis.compare import compare_paired_process_means

    rng = random.Random(4)
    rule = StoppingRule(0.01, 4, 40)
    decided = 0
    trials = 300
    for _ in range(trials):
        reference, changed = [], []
        while True:
            drift = math.exp(rng.gauss(0, 0.05))
            reference.append(drift * math.exp(rng.gauss(0, 0.02)))
            changed.append(drift * math.exp(rng.gauss(0, 0.02)))
            if rule.done(len(reference), rule.paired_precision(reference, changed)):
                break
        decided += compare_paired_process_means(reference, changed, margin=0.0).different
    assert decided / trials <= 0.08
