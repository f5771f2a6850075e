"""--metric instructions: its budget, what it refuses, its stopping rule, its checks."""

from __future__ import annotations

import pytest
from helpers import parse_options

from perf.errors import UsageError
from perf.measure.child.metric import metric_of
from perf.measure.parent.stopping import stopping_rule
from perf.measure.values import COUNT_BUDGET, COUNT_PRECISION


def counts(*argv):
    return parse_options(["--metric", "instructions", *argv], plan=False)


def test_counts_have_their_own_budget_whatever_the_script_default():
    options = counts()
    assert (options.processes, options.values, options.warmups) == (COUNT_BUDGET.processes, 1, 0)
    assert counts("--fast").processes == COUNT_BUDGET.processes // 2
    assert counts("--rigorous").processes == 2 * COUNT_BUDGET.processes
    assert counts("-p", "3").processes == 3


def test_counts_stop_after_two_equal_samples_unless_processes_are_given():
    rule = stopping_rule(counts())
    assert rule is not None
    assert (rule.target, rule.minimum, rule.maximum) == (COUNT_PRECISION, 2, COUNT_BUDGET.processes)
    assert rule.done(2, rule.precision([183002.0, 183002.0]))
    assert not rule.done(2, rule.precision([94468.0, 96156.0]))
    assert stopping_rule(counts("-p", "3")) is None
    assert stopping_rule(parse_options([], plan=False)) is None  # time: the fixed budget


@pytest.mark.parametrize(
    "argv, option",
    [
        (["-n", "3"], "--values"),
        (["-w", "1"], "--warmups"),
        (["--tracemalloc"], "--tracemalloc"),
        (["--track-memory"], "--track-memory"),
        (["--clock", "cpu"], "--clock"),
        (["--profile", "x.prof"], "--profile"),
        (["--adaptive-values"], "--adaptive-values"),
    ],
)
def test_counts_refuse_the_options_they_give_no_meaning(argv, option):
    with pytest.raises(UsageError, match=f"^--metric instructions cannot be used with {option}: "):
        counts(*argv)


def test_the_metric_of_counts_runs_workers_under_cachegrind_without_the_lock():
    metric = metric_of(counts())
    assert (metric.name, metric.unit, metric.counted, metric.witnessed) == ("instructions", "integer", True, False)
    assert metric.command(["python", "bench.py"])[0] == "valgrind"
    assert metric.sampler == "perf.measure.parent.counting:count_sample"
    plain = metric_of(parse_options([], plan=False))
    assert (plain.counted, plain.sampler) == (False, None)


def test_a_run_of_counts_needs_valgrind_before_anything_runs(no_valgrind):
    with pytest.raises(UsageError, match="not installed"):
        parse_options(["--metric", "instructions"])


def test_a_worker_of_counts_is_not_checked_for_valgrind(no_valgrind):
    options = parse_options(["--metric", "instructions", "--worker", "-n", "1", "-w", "0"])
    assert options.metric == "instructions"
