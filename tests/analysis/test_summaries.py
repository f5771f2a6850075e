"""perf.analysis.summaries: the figures a command computes once and hands
to perf.render (their text is tested in tests/render)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from perf.analysis import statistics
from perf.analysis.checks import check_benchmark
from perf.analysis.density import axis_shape
from perf.analysis.intervals import benchmark_log_interval, benchmark_mean_interval
from perf.analysis.summaries import (
    BenchmarkFindings,
    BenchmarkStats,
    Fences,
    ValueFigures,
    benchmark_stats,
    distribution_panel,
    distribution_panels,
    file_findings,
    tukey_outliers,
    value_figures,
)
from perf.model.benchmark import Benchmark
from perf.model.run import Run
from perf.model.suite import BenchmarkSuite


def make_run(values: Any, name: str = "bench", **metadata: Any) -> Run:
    metadata["name"] = name
    return Run(values, warmups=[(1, 1.0)] if values else [(1, 0.5)], metadata=metadata, collect_metadata=False)


def calibration_run(name: str = "bench") -> Run:
    return make_run((), name, calibrate_loops=1)


def test_tukey_outliers_counts_outside_the_fences():
    values = [1.0, 2.0, 3.0, 4.0, 100.0]
    low, high = statistics.tukey_fences(values, 1.5)
    assert tukey_outliers(values) == Fences(low, high, 1)
    assert tukey_outliers(values, 100.0).outside == 0


def test_benchmark_stats_of_several_processes():
    runs = [make_run((1.0, 1.1, 1.2)), make_run((1.3, 1.2, 1.4)), make_run((0.9, 1.0, 5.0), loop_overhead=0.01)]
    benchmark = Benchmark([calibration_run(), *runs])
    stats = benchmark_stats(benchmark)
    assert isinstance(stats, BenchmarkStats)
    assert stats.outliers == tukey_outliers(sorted(benchmark.get_values()))
    assert stats.outliers is not None and stats.outliers.outside == 1  # 5.0
    means = benchmark.get_process_means()
    assert stats.process_mean == pytest.approx(statistics.mean(means))
    assert stats.interval == benchmark_mean_interval(benchmark)
    assert stats.variance_components == statistics.variance_components([run.values for run in runs])
    assert stats.process_outliers == tukey_outliers(means)
    assert stats.loop_overhead == 0.01
    assert stats.interference is not None and stats.interference.processes == 3
    assert (
        stats.figures
        == value_figures(benchmark)
        == ValueFigures(benchmark.mean(), benchmark.median(), benchmark.stdev(), 3)
    )
    assert stats.median_abs_dev == benchmark.median_abs_dev()
    assert stats.percentiles == tuple((p, benchmark.percentile(p)) for p in (0, 5, 25, 50, 75, 95, 100))


def test_benchmark_stats_of_one_process_of_one_value():
    stats = benchmark_stats(Benchmark([make_run((2.0,))]))
    assert stats.outliers == Fences(2.0, 2.0, 0)
    assert stats.process_mean == 2.0
    assert stats.interval is None
    assert stats.variance_components is None
    assert stats.loop_overhead is None
    assert stats.figures == ValueFigures(2.0, 2.0, None, 1)


def test_variance_components_need_a_process_of_two_values():
    stats = benchmark_stats(Benchmark([make_run((1.0,)), make_run((2.0,))]))
    assert stats.variance_components is None
    assert stats.interval is not None and stats.interval.n == 2


def test_benchmark_stats_without_values():
    assert benchmark_stats(Benchmark([calibration_run()])) == BenchmarkStats(*[None] * 9, ())


def test_file_findings_hold_the_result_interval_and_the_checks():
    noisy = Benchmark([make_run((1.0, 3.0), "noisy"), make_run((2.0, 9.0), "noisy")])
    single = Benchmark([make_run((1.0, 1.0), "single")])
    found = file_findings(BenchmarkSuite([noisy, single]))
    assert list(found) == ["noisy", "single"]
    figures = value_figures(noisy)
    assert found["noisy"] == BenchmarkFindings(benchmark_log_interval(noisy), tuple(check_benchmark(noisy)), figures)
    assert found["noisy"].checks  # the std dev is far above 10 % of the mean
    assert found["single"].interval is None


def test_distribution_panel_draws_the_files_with_values_in_the_first_unit():
    seconds = Benchmark([make_run((1.0, 1.5)), make_run((2.0, 2.5))])
    other = Benchmark([make_run((3.0, 4.0)), make_run((5.0, 5.0))])
    calibration = Benchmark([calibration_run()])
    memory = Benchmark([make_run((1024, 2048), unit="byte")])
    panel = distribution_panel([None, seconds, calibration, memory, other])
    assert panel.files == (1, 4)
    assert panel.values == axis_shape([seconds.get_values(), other.get_values()])
    assert panel.means == axis_shape([seconds.get_process_means(), other.get_process_means()])
    assert panel.values.edges and all(xs for xs, _ys in panel.values.densities)


def test_distribution_panels_by_name():
    first = BenchmarkSuite([Benchmark([make_run((1.0, 2.0), "a")]), Benchmark([make_run((3.0, 4.0), "b")])])
    second = BenchmarkSuite([Benchmark([make_run((1.5, 2.5), "a")])])
    panels = distribution_panels([first, second], ["b", "a"])
    assert list(panels) == ["b", "a"]
    assert panels["a"].files == (0, 1)
    assert panels["b"].files == (0,)
    assert panels["b"].values.samples == [[3.0, 4.0]]
    assert math.isclose(panels["a"].means.samples[1][0], 2.0)
