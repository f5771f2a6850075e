"""perf.render.benchmark: the one-line result of a benchmark
(``Mean +- std dev: ...``) for zero, one and many values."""

from __future__ import annotations

from typing import Any

import pytest

from perf.analysis.intervals import benchmark_log_interval
from perf.analysis.summaries import value_figures
from perf.model.benchmark import Benchmark
from perf.model.run import Run
from perf.render.benchmark import format_result, format_result_value


def make_run(values: Any = (1.0,), warmups: Any = None, **metadata: Any) -> Run:
    metadata.setdefault("name", "bench")
    return Run(values, warmups=warmups, metadata=metadata, collect_metadata=False)


@pytest.mark.parametrize(
    ("runs", "expected"),
    [
        ([make_run((0.0225,))], "22.5 ms"),
        ([make_run((1.5e-6,))], "1.50 us"),
        ([make_run((12.3 * 1024,), unit="byte")], "12.3 KiB"),
        ([make_run((2**15,), unit="integer")], "2^15"),
        # calibration runs do not count as values
        ([make_run((), warmups=[(1, 0.1)], calibrate_loops=1), make_run((0.0225,))], "22.5 ms"),
    ],
)
def test_one_value(runs: list[Run], expected: str) -> None:
    benchmark = Benchmark(runs)
    assert format_result_value(benchmark, value_figures(benchmark)) == expected
    assert format_result(benchmark, value_figures(benchmark)) == expected


@pytest.mark.parametrize(
    ("runs", "value", "result"),
    [
        (
            # mean 0.0225, sample stdev 0.0001
            [make_run((0.0224, 0.0225)), make_run((0.0226,))],
            "22.5 ms +- 0.1 ms",
            "Mean +- std dev: 22.5 ms +- 0.1 ms",
        ),
        (
            [make_run((1.0, 3.0))],
            "2.00 sec +- 1.41 sec",
            "Mean +- std dev: 2.00 sec +- 1.41 sec",
        ),
        (
            [make_run((10240.0, 30720.0), unit="byte")],
            "20.0 KiB +- 14.1 KiB",
            "Mean +- std dev: 20.0 KiB +- 14.1 KiB",
        ),
    ],
)
def test_many_values(runs: list[Run], value: str, result: str) -> None:
    benchmark = Benchmark(runs)
    assert format_result_value(benchmark, value_figures(benchmark)) == value
    assert format_result(benchmark, value_figures(benchmark)) == result


@pytest.mark.parametrize(
    ("runs", "expected"),
    [
        ([make_run((), warmups=[(1, 0.1)], calibrate_loops=16, loops=16)], "Calibration: 16 loops"),
        ([make_run((), warmups=[(1, 0.1)], recalibrate_loops=2**15)], "Calibration: 2^15 loops"),
        ([make_run((), warmups=[(1, 0.1)], calibrate_warmups=3)], "Calibration: 3 warmups"),
        ([make_run((), warmups=[(1, 0.1)], recalibrate_warmups=1)], "Calibration: 1 warmup"),
        # perf <= 1.1: no calibration key, the loops of the run
        ([make_run((), warmups=[(1, 0.1)], loops=8)], "Calibration: 8 loops"),
        # the last run tells what was calibrated
        (
            [
                make_run((), warmups=[(1, 0.1)], calibrate_loops=4),
                make_run((), warmups=[(1, 0.1)], calibrate_warmups=2),
            ],
            "Calibration: 2 warmups",
        ),
    ],
)
def test_no_value(runs: list[Run], expected: str) -> None:
    benchmark = Benchmark(runs)
    assert format_result_value(benchmark, value_figures(benchmark)) == expected
    assert format_result(benchmark, value_figures(benchmark)) == expected


def test_interval_of_few_noisy_processes_stays_above_zero() -> None:
    # 3 processes: the arithmetic t interval of their means is
    # -166 ns .. 473 ns; on the log scale (as compare_to) it stays positive
    benchmark = Benchmark([make_run((mean * 1e-9, mean * 1e-9), loops=1000) for mean in (60.0, 100.0, 300.0)])
    assert format_result(benchmark, value_figures(benchmark), interval=benchmark_log_interval(benchmark)) == (
        "Mean +- std dev: 153 ns +- 115 ns (95% CI: 15.8 ns .. 938.3 ns, 3 processes)"
    )


def test_interval_is_the_geometric_one_and_keeps_the_centre() -> None:
    # centre: mean +- std dev of all values (pyperf's); interval: exp(t
    # interval of the log process means), around their geometric mean
    benchmark = Benchmark([make_run((0.010, 0.012)), make_run((0.011, 0.013)), make_run((0.012, 0.014))])
    assert format_result(benchmark, value_figures(benchmark), interval=benchmark_log_interval(benchmark)) == (
        "Mean +- std dev: 12.0 ms +- 1.4 ms (95% CI: 9.73 ms .. 14.73 ms, 3 processes)"
    )
    assert format_result(benchmark, value_figures(benchmark)) == "Mean +- std dev: 12.0 ms +- 1.4 ms"
