"""--adaptive-values: values per process from the pilot's variance
components and costs (Kalibera & Jones)."""

from __future__ import annotations

import math

import pytest

from perf.measure.parent.allocation import MAX_VALUES, MIN_VALUES, optimal_values, pilot_values
from perf.model.benchmark import Benchmark
from perf.model.run import Run


@pytest.mark.parametrize(
    "between, within, process_cost, value_cost, expected",
    [
        # sqrt((0.3 / 0.1) x (1 / 0.12)) = 5
        (0.12, 1.0, 0.3, 0.1, 5),
        # processes differ much more than values: the minimum
        (1.0, 0.01, 0.2, 0.1, MIN_VALUES),
        # no difference seen between the pilot's processes: no evidence,
        # keep the values per process (k = 10 lost precision per second)
        (0.0, 1.0, 0.2, 0.1, None),
        # expensive processes, noisy values: many values, clamped
        (0.001, 1.0, 1.0, 0.01, MAX_VALUES),
        # nothing to estimate
        (1.0, 0.0, 0.2, 0.1, MIN_VALUES),
        (1.0, 1.0, 0.2, 0.0, MIN_VALUES),
    ],
)
def test_optimal_values(between, within, process_cost, value_cost, expected):
    assert optimal_values(between, within, process_cost, value_cost) == expected


def run(values, loops=1000):
    return Run(values, warmups=[(loops, values[0])], metadata={"name": "b", "loops": loops}, collect_metadata=False)


def test_pilot_values_from_runs_and_elapsed_times():
    # values of 1e-4 s x 1000 loops = 0.1 s each; 2 values + 1 warmup per process
    # process means 1e-4 * (1 + 0.1 i), values +-10 %: between and within alike
    runs = [run([1e-4 * (1 + 0.1 * i) * (1 + s) for s in (-0.1, 0.1)]) for i in range(6)]
    benchmark = Benchmark(runs)
    # a worker costs 0.2 s of values + 19.8 s of start-up and warmup: many values
    assert pilot_values(benchmark, [20.0] * 6) == MAX_VALUES
    # a cheap worker: few
    assert pilot_values(benchmark, [0.4] * 6) == MIN_VALUES
    # process means that agree exactly: the pilot cannot tell, keep the values
    same = [run([1e-4 * (1 + s) for s in (-0.05, 0.05)]) for i in range(6)]
    assert pilot_values(Benchmark(same), [0.8] * 6) is None
    # with process means that differ a lot, few values
    spread = [run([1e-4 * (1 + 0.2 * i) * (1 + s) for s in (-0.001, 0.001)]) for i in range(6)]
    assert pilot_values(Benchmark(spread), [0.8] * 6) == MIN_VALUES


def test_warmups_count_in_the_process_cost():
    # values of 0.1 s; 2 values + 1 warmup; 0.4 s per worker: the process
    # costs 0.2 s (start-up 0.1 s + the warmup 0.1 s), the values 0.1 s
    runs = [run([1e-4 * (1 + 0.02 * (i % 3)) * (1 + s) for s in (-0.05, 0.05)]) for i in range(6)]
    benchmark = Benchmark(runs)
    from perf.analysis.statistics import variance_components

    between, within = variance_components([list(r.values) for r in runs])
    assert pilot_values(benchmark, [0.4] * 6) == optimal_values(between, within, 0.2, 0.1)


def test_pilot_values_needs_two_processes():
    assert pilot_values(Benchmark([run([1e-4, 1.1e-4])]), [0.5]) is None


def test_the_calibrating_worker_does_not_count_in_the_process_cost():
    runs = [run([1e-4 * (1 + 0.05 * i) * (1 + s) for s in (-0.02, 0.02)]) for i in range(6)]
    benchmark = Benchmark(runs)
    cheap = pilot_values(benchmark, [100.0, 0.31, 0.31, 0.31, 0.31, 0.31])
    assert cheap == pilot_values(benchmark, [0.31] * 6)
    assert math.isfinite(cheap)
