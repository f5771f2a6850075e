"""Text of one benchmark's result: the ``Mean +- std dev:`` line.

The mean and standard deviation are the caller's
(:func:`perf.analysis.summaries.value_figures`), and so is the confidence
interval it may show (:func:`perf.analysis.intervals.benchmark_log_interval`).

Must not: compute statistics, read files, print.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from perf.model.benchmark import Benchmark
from perf.render.units import format_number

if TYPE_CHECKING:
    from perf.analysis.intervals import Interval
    from perf.analysis.summaries import ValueFigures


def _format_calibration(benchmark: Benchmark) -> str:
    """A benchmark holding only calibration runs: what they calibrated."""
    last = benchmark.get_runs()[-1]
    if last.is_calibration_warmups() or last.is_recalibration_warmups():
        return f"Calibration: {format_number(last.get_calibration_warmups(), 'warmup')}"
    return f"Calibration: {format_number(last.get_calibration_loops(), 'loop')}"


def format_result_value(benchmark: Benchmark, figures: ValueFigures | None) -> str:
    """``'22.5 ms +- 0.2 ms'`` (*figures*: the benchmark's
    :func:`~perf.analysis.summaries.value_figures`), or one value, or a
    note for no value."""
    if figures is None:
        return _format_calibration(benchmark)
    if figures.stdev is None:
        return benchmark.format_value(benchmark.get_values()[0])
    mean, stdev = benchmark.format_values((figures.mean, figures.stdev))
    return f"{mean} +- {stdev}"


def format_interval(benchmark: Benchmark, interval: Interval) -> str:
    """``'95% CI: 22.4 ms .. 22.6 ms, 20 processes'``: the confidence
    interval of the process means (doc/design.rst, R1), on the log
    scale (:func:`perf.analysis.intervals.benchmark_log_interval`): never
    below zero, even with 2 or 3 noisy processes."""
    low, high = benchmark.format_values((interval.low, interval.high))
    return f"{interval.confidence:.0%} CI: {low} .. {high}, {interval.n} processes"


def format_result(benchmark: Benchmark, figures: ValueFigures | None, interval: Interval | None = None) -> str:
    """``'Mean +- std dev: 22.5 ms +- 0.2 ms'`` (pyperf's grep-able line;
    *figures*: as for :func:`format_result_value`), followed, with an
    *interval* (the benchmark's
    :func:`~perf.analysis.intervals.benchmark_log_interval`), by the 95 %
    confidence interval of the process means (log scale, see
    :func:`format_interval`).  The centre stays pyperf's: mean and standard
    deviation of all values."""
    if figures is None or figures.stdev is None:
        return format_result_value(benchmark, figures)
    text = f"Mean +- std dev: {format_result_value(benchmark, figures)}"
    if interval is not None:
        text += f" ({format_interval(benchmark, interval)})"
    return text
