"""perf.analysis.intervals: t intervals of a mean and of a benchmark's
per-process means.  Expected bounds come from SciPy 1.17.1
(``scipy.stats.t.interval(confidence, n - 1, loc=mean, scale=sem)``),
hard-coded."""

from __future__ import annotations

import math
import statistics
from typing import Any

import pytest

from perf.analysis.intervals import (
    MAX_PROCESSES,
    Interval,
    benchmark_mean_interval,
    mean_interval,
    processes_for_precision,
)
from perf.analysis.student_t_quantile import student_t_ppf
from perf.model.benchmark import Benchmark
from perf.model.run import Run


def make_run(values: Any, warmups: Any = None, **metadata: Any) -> Run:
    metadata.setdefault("name", "bench")
    return Run(values, warmups=warmups, metadata=metadata, collect_metadata=False)


@pytest.mark.parametrize(
    ("values", "confidence", "estimate", "low", "high"),
    [
        ([1.0, 2.0], 0.95, 1.5, -4.853102368087347, 7.853102368087347),
        ([0.0225, 0.0231, 0.0219, 0.0224, 0.0228], 0.95, 0.02254, 0.021980561812761788, 0.023099438187238214),
        ([10, 12, 9, 11, 13, 8, 10], 0.99, 10.428571428571429, 8.02082966746074, 12.836313189682118),
        ([5.0, 5.5, 4.5], 0.5, 5.0, 4.764297739604484, 5.235702260395516),
    ],
)
def test_mean_interval_matches_scipy(
    values: list[float], confidence: float, estimate: float, low: float, high: float
) -> None:
    interval = mean_interval(values, confidence)
    assert interval.estimate == pytest.approx(estimate, rel=1e-14)
    assert interval.low == pytest.approx(low, rel=1e-11)
    assert interval.high == pytest.approx(high, rel=1e-11)
    assert interval.confidence == confidence
    assert interval.n == len(values)


def test_interval_is_a_named_tuple() -> None:
    interval = mean_interval([1.0, 2.0, 3.0])
    estimate, low, high, confidence, n = interval
    assert (estimate, confidence, n) == (2.0, 0.95, 3)
    assert low < estimate < high
    assert interval._fields == ("estimate", "low", "high", "confidence", "n")
    assert isinstance(interval, Interval)


def test_identical_values_give_an_empty_width() -> None:
    assert mean_interval([0.5, 0.5, 0.5]) == Interval(0.5, 0.5, 0.5, 0.95, 3)


def test_wider_with_more_confidence() -> None:
    values = [1.0, 1.2, 0.9, 1.1]
    narrow = mean_interval(values, 0.8)
    wide = mean_interval(values, 0.99)
    assert wide.low < narrow.low < narrow.high < wide.high


@pytest.mark.parametrize("values", [[], [1.0]])
def test_needs_two_values(values: list[float]) -> None:
    with pytest.raises(ValueError, match="at least 2 values"):
        mean_interval(values)


@pytest.mark.parametrize("confidence", [0.0, 1.0, -0.5, 95.0, math.nan])
def test_confidence_must_be_a_fraction(confidence: float) -> None:
    with pytest.raises(ValueError, match="confidence"):
        mean_interval([1.0, 2.0], confidence)
    with pytest.raises(ValueError, match="confidence"):
        benchmark_mean_interval(Benchmark([make_run((1.0,))]), confidence)


def test_benchmark_interval_uses_process_means() -> None:
    # process means 2.0, 4.0 and 6.0, whatever the spread inside each process
    benchmark = Benchmark(
        [
            make_run((), warmups=[(1, 0.5)], calibrate_loops=1),  # calibration: ignored
            make_run((1.0, 3.0)),
            make_run((4.0,)),
            make_run((5.0, 6.0, 7.0)),
        ]
    )
    interval = benchmark_mean_interval(benchmark)
    assert interval == mean_interval([2.0, 4.0, 6.0])
    assert interval is not None
    assert interval.n == 3
    assert interval.estimate == 4.0
    # t(0.975, 2) * 2 / sqrt(3), with scipy.stats.t.ppf(0.975, 2) = 4.302652729749462
    assert interval.high - 4.0 == pytest.approx(4.302652729749462 * 2 / math.sqrt(3), rel=1e-12)


def test_benchmark_interval_needs_two_processes() -> None:
    one_process = Benchmark([make_run((1.0, 2.0, 3.0))])
    assert benchmark_mean_interval(one_process) is None
    calibration_only = Benchmark([make_run((), warmups=[(1, 0.5)], calibrate_loops=1)])
    assert benchmark_mean_interval(calibration_only) is None
    with_calibration = Benchmark([make_run((), warmups=[(1, 0.5)], calibrate_loops=1), make_run((1.0, 2.0))])
    assert benchmark_mean_interval(with_calibration) is None


# --- processes for a precision ------------------------------------------------------


def test_processes_for_precision_reaches_the_target():
    means = [1.0, 1.02, 0.98, 1.01, 0.99, 1.03, 0.97, 1.0]
    needed = processes_for_precision(means, 0.01)
    spread = statistics.stdev(means)
    mean = statistics.mean(means)

    def half(n):
        return -student_t_ppf(0.025, n - 1) * spread / math.sqrt(n)

    assert half(needed) <= 0.01 * mean < half(needed - 1)


def test_processes_for_precision_edge_cases():
    assert processes_for_precision([1.0]) is None
    assert processes_for_precision([1.0, 1.0]) == 2
    assert processes_for_precision([1.0, 3.0], 1e-9) == MAX_PROCESSES
    with pytest.raises(ValueError, match="precision must be > 0"):
        processes_for_precision([1.0, 2.0], 0)
    with pytest.raises(ValueError, match="confidence"):
        processes_for_precision([1.0, 2.0], 0.01, confidence=1.5)


def test_processes_for_precision_keeps_the_t_quantile():
    # with few processes the t quantile is much larger than 1.96: a normal
    # estimate (pyperf's) would stop too early
    means = [1.0, 1.01, 0.99]
    needed = processes_for_precision(means, 0.01)
    z_estimate = math.ceil((1.96 * statistics.stdev(means) / 0.01) ** 2)
    assert needed > z_estimate


def test_scaled_count_shrinks_the_half_width_as_one_over_sqrt_n():
    from perf.analysis.intervals import scaled_count

    assert scaled_count(60, 0.02, 0.01) == 240
    assert scaled_count(10, 0.011, 0.01) == 13
    # barely above the target: at least one more
    assert scaled_count(10, 0.0100001, 0.01) == 11
    # reached: the count itself
    assert scaled_count(10, 0.005, 0.01) == 10
    # a ratio's precision is scaled on the log scale
    assert scaled_count(30, 0.1, 0.05, ratio=True) == math.ceil(30 * (math.log1p(0.1) / math.log1p(0.05)) ** 2)
    assert scaled_count(5, 0.01, 1e-9) == MAX_PROCESSES
    assert scaled_count(5, math.inf, 0.01) is None
    with pytest.raises(ValueError):
        scaled_count(5, 0.01, 0)


def test_geometric_mean_interval_is_the_log_interval_back_transformed():
    from perf.analysis.intervals import geometric_mean_interval

    values = [60e-9, 100e-9, 300e-9]
    logs = mean_interval([math.log(value) for value in values])
    interval = geometric_mean_interval(values)
    assert interval.estimate == pytest.approx((60e-9 * 100e-9 * 300e-9) ** (1 / 3))
    assert (interval.low, interval.high) == (math.exp(logs.low), math.exp(logs.high))
    assert (interval.confidence, interval.n) == (0.95, 3)
    # the arithmetic interval of the same values reaches below zero
    assert mean_interval(values).low < 0 < interval.low
    # a constant: a point
    assert geometric_mean_interval([2.0, 2.0]) == Interval(2.0, 2.0, 2.0, 0.95, 2)
    for bad in ([1.0], [1.0, 0.0], [1.0, -1.0], [1.0, math.inf]):
        with pytest.raises(ValueError):
            geometric_mean_interval(bad)


def test_benchmark_log_interval_uses_the_process_means():
    from perf.analysis.intervals import benchmark_log_interval, geometric_mean_interval

    benchmark = Benchmark([make_run((1.0, 3.0)), make_run((4.0, 4.0)), make_run((6.0, 6.0))])
    assert benchmark_log_interval(benchmark) == geometric_mean_interval([2.0, 4.0, 6.0])
    assert benchmark_log_interval(Benchmark([make_run((1.0, 3.0))])) is None
