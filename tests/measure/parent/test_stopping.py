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


def test_the_time_limit_stops_an_imprecise_run_after_the_minimum():
    rule = StoppingRule(0.01, 10, 24, seconds=60.0)
    assert not rule.done(9, 0.05, elapsed=100.0)  # never before the minimum
    assert rule.done(10, 0.05, elapsed=60.0)
    assert not rule.done(10, 0.05, elapsed=59.0)
    assert not StoppingRule(0.01, 10, 24).done(10, 0.05, elapsed=1e9)  # no limit


def default_options(*argv, defaults=(), jit=False):
    """The checked options of a command line *argv*, as a bench script's
    Runner(*defaults*) has them (its processes, values...)."""
    from perf.cli.main import ArgumentParser
    from perf.measure.arguments import add_runner_arguments
    from perf.measure.options import RunOptions, check_options
    from perf.measure.values import DEFAULT_BUDGET, GivenBudget

    parser = ArgumentParser(prog="bench")
    add_runner_arguments(parser, DEFAULT_BUDGET, 1, 0, 0.1)
    values = vars(parser.parse_args(list(argv)))
    return check_options(RunOptions.parsed(values), "script", GivenBudget(*defaults), jit=jit)


def test_a_default_run_stops_on_precise_enough_within_its_budget():
    from perf.analysis.intervals import PRECISE_ENOUGH
    from perf.measure.parent.stopping import stopping_rule
    from perf.measure.values import DEFAULT_SECONDS

    rule = stopping_rule(default_options())
    assert rule == StoppingRule(PRECISE_ENOUGH, 10, 24, seconds=DEFAULT_SECONDS)
    assert stopping_rule(default_options("--rigorous")).maximum == 48
    assert stopping_rule(default_options("--fast")) == StoppingRule(PRECISE_ENOUGH, 10, 12, seconds=DEFAULT_SECONDS)


@pytest.mark.parametrize(
    ("argv", "keywords"),
    [
        (("-p", "24"), {}),  # the user's processes
        ((), {"defaults": (20,)}),  # a script's Runner(processes=20)
        ((), {"jit": True}),  # a JIT's budget: few long processes
        (("--debug-single-value",), {}),
    ],
)
def test_a_fixed_budget_has_no_default_rule(argv, keywords):
    from perf.measure.parent.stopping import stopping_rule

    options = default_options(*argv, **keywords)
    assert stopping_rule(options) is None
    assert not options.precision_default


def test_target_precision_given_has_no_time_limit():
    from perf.measure.parent.stopping import stopping_rule

    assert stopping_rule(default_options("--target-precision", "2%")) == StoppingRule(0.02, 10, 100)


@pytest.mark.parametrize(
    ("argv", "keywords", "values"),
    [
        ((), {}, 1),  # a default run: one value per process (doc/design.rst, R4)
        (("--fast",), {}, 1),
        (("--rigorous",), {}, 1),
        (("-n", "3"), {}, 3),  # the user's values
        ((), {"defaults": (None, 5)}, 5),  # a script's Runner(values=5)
        (("-p", "24"), {}, 2),  # a fixed budget keeps two
        (("--target-precision", "2%"), {}, 2),
        ((), {"jit": True}, 10),
    ],
)
def test_a_default_run_takes_one_value_per_process(argv, keywords, values):
    options = default_options(*argv, **keywords)
    assert options.values == values
    # the budget of the workers without a JIT (another side of the run)
    assert options.budgets[0][1] == (2 if keywords.get("jit") else values)
