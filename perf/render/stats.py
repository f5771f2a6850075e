"""Text of ``stats``: the descriptive statistics of one benchmark.

:func:`format_stats` gives pyperf 2.10.0's ``pyperf stats`` text (byte for
byte when the benchmark has values), then perf's process-level block
(doc/design.rst, R1 and R9): the worker process is the unit of replication, so the
block reports the mean of the process means with its confidence interval,
the standard deviations between and within processes with their intraclass
correlation (ICC), and Tukey outliers among the process means.

A benchmark holding only calibration runs gets what is known about it
(pyperf 2.10.0 crashes on it).

Every figure comes from the command, computed once by
:func:`perf.analysis.summaries.benchmark_stats`.

Must not: compute statistics (perf.analysis does), read files, print.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Sequence

from perf.model.benchmark import Benchmark
from perf.model.run import Number
from perf.render.benchmark import format_result_value
from perf.render.counts import format_counts
from perf.render.units import count_of, format_datetime, format_number, format_seconds

if TYPE_CHECKING:
    from perf.analysis.interference import Interference
    from perf.analysis.summaries import BenchmarkStats, Fences, ValueFigures

#: the names of some percentiles of the stats text
_PERCENTILE_NAMES = {0: "minimum", 25: "Q1", 50: "median", 75: "Q3", 100: "maximum"}


def _format_count(number: Number) -> str:
    """A count per run: an int, or a float average when runs differ."""
    text = format_number(number)
    return f"{text} (average)" if isinstance(number, float) else text


def _format_loops(benchmark: Benchmark) -> str:
    """``2^15``, or ``10485760 (2^20 outer-loops x 10 inner-loops)``."""
    loops = benchmark.get_loops()
    inner_loops = benchmark.get_inner_loops()
    total_loops = loops * inner_loops
    text = format_number(total_loops) if isinstance(total_loops, int) else f"{total_loops} (average)"
    if isinstance(inner_loops, int) and inner_loops == 1:
        return text
    outer = format_number(loops, "outer-loop") if isinstance(loops, int) else f"{loops:.1f} outer-loops (average)"
    inner = (
        format_number(inner_loops, "inner-loop")
        if isinstance(inner_loops, int)
        else f"{inner_loops:.1f} inner-loops (average)"
    )
    return f"{text} ({outer} x {inner})"


def _raw_value_range(benchmark: Benchmark) -> tuple[Number, Number] | None:
    """The smallest and largest raw value (value x loops), or None."""
    values = benchmark.get_values()
    if not values:
        return None
    total_loops = benchmark.get_total_loops()
    if isinstance(total_loops, int):  # the same in every run with values (x loops keeps the order)
        return min(values) * total_loops, max(values) * total_loops
    raw_values = [value for run in benchmark.get_runs() for value in run.get_raw_values()]
    return min(raw_values), max(raw_values)


def _format_header(benchmark: Benchmark) -> list[str]:
    """Duration, dates, raw value range and the number of runs."""
    lines = []
    duration = benchmark.get_total_duration()
    # counted under a simulator, a benchmark takes 17 to 75 times longer: not its time
    if duration and benchmark.get_counter_source() is None:
        lines.append(f"Total duration: {format_seconds(duration)}")
    dates = benchmark.get_dates()
    if dates:
        lines.append(f"Start date: {format_datetime(dates[0], microsecond=False)}")
        lines.append(f"End date: {format_datetime(dates[1], microsecond=False)}")
    raw_range = _raw_value_range(benchmark)
    if raw_range is not None:
        lines.append(f"Raw value minimum: {benchmark.format_value(raw_range[0])}")
        lines.append(f"Raw value maximum: {benchmark.format_value(raw_range[1])}")
    nrun = benchmark.get_nrun()
    ncalibration = nrun - sum(1 for run in benchmark.get_runs() if run.values)
    lines.extend(
        [
            "",
            f"Number of calibration run: {format_number(ncalibration)}",
            f"Number of run with values: {format_number(nrun - ncalibration)}",
            f"Total number of run: {format_number(nrun)}",
            "",
        ]
    )
    return lines


def _format_table(benchmark: Benchmark, figures: ValueFigures, mad: float | None) -> list[str]:
    """Minimum, median +- MAD, mean +- std dev and maximum, aligned."""
    values = benchmark.get_values()
    table = [("Minimum", benchmark.format_value(min(values)))]
    if len(values) > 2 and figures.stdev is not None and mad is not None:
        median, mad_text = benchmark.format_values((figures.median, mad))
        table.append(("Median +- MAD", f"{median} +- {mad_text}"))
        mean, stdev = benchmark.format_values((figures.mean, figures.stdev))
        table.append(("Mean +- std dev", f"{mean} +- {stdev}"))
    else:
        # pyperf labels the median "Mean" too below three values
        table.append(("Mean", benchmark.format_value(figures.median)))
        table.append(("Mean", benchmark.format_value(figures.mean)))
    table.append(("Maximum", benchmark.format_value(max(values))))
    width = max(len(key) + 1 for key, _value in table)
    return [f"{(key + ':').ljust(width)} {value}" for key, value in table]


def _format_percentiles(benchmark: Benchmark, mean: float, percentiles: Sequence[tuple[int, float]]) -> list[str]:
    lines = []
    for p, value in percentiles:
        distance = (value - mean) * 100.0 / mean
        text = f"{p:>3}th percentile: {benchmark.format_value(value)} ({distance:+.0f}% of the mean)"
        name = _PERCENTILE_NAMES.get(p)
        lines.append(f"{text} -- {name}" if name else text)
    return lines


def _format_outliers(benchmark: Benchmark, fences: Fences, what: str) -> str:
    """``Number of outlier (out of LOW..HIGH): N`` with Tukey's 1.5 IQR fences."""
    bounds = benchmark.format_values((fences.low, fences.high))
    return f"Number of {what} (out of {bounds[0]}..{bounds[1]}): {format_number(fences.outside)}"


def format_pyperf_stats(benchmark: Benchmark, stats: BenchmarkStats) -> list[str]:
    """pyperf's ``stats`` text of one benchmark (no title, no checks);
    *stats* is its :func:`~perf.analysis.summaries.benchmark_stats`."""
    lines = _format_header(benchmark)
    figures = stats.figures
    if figures is None or stats.outliers is None:
        lines.append("Total number of values: 0")
        lines.append(format_result_value(benchmark, figures))
        return lines
    lines.append(f"Number of warmup per run: {_format_count(benchmark.get_nwarmup())}")
    lines.append(f"Number of value per run: {_format_count(benchmark.get_nvalue_per_run())}")
    lines.append(f"Loop iterations per value: {_format_loops(benchmark)}")
    lines.append(f"Total number of values: {format_number(benchmark.get_nvalue())}")
    lines.append("")
    lines.extend(_format_table(benchmark, figures, stats.median_abs_dev))
    lines.append("")
    lines.extend(_format_percentiles(benchmark, figures.mean, stats.percentiles))
    lines.append("")
    lines.append(_format_outliers(benchmark, stats.outliers, "outlier"))
    return lines


def _format_interval(benchmark: Benchmark, stats: BenchmarkStats) -> list[str]:
    """The confidence interval of the mean of process means."""
    interval = stats.interval
    if interval is None:
        return ["CI of the mean of process means: not computed (needs 2 processes or more)"]
    low, high = benchmark.format_values((interval.estimate, interval.low, interval.high))[1:]
    return [f"{interval.confidence:.0%} CI of the mean of process means: {low} .. {high}"]


def _format_variance_components(benchmark: Benchmark, mean: float, stats: BenchmarkStats) -> list[str]:
    """Standard deviations between and within processes, and their ICC."""
    if stats.variance_components is None:
        return ["Std dev between/within processes: not computed (needs 2 processes, one of them with 2 values or more)"]
    between, within = stats.variance_components
    texts = benchmark.format_values((mean, math.sqrt(between), math.sqrt(within)))
    total = between + within
    icc = f"{between / total:.2f}" if total else "n/a (no variance)"
    return [
        f"Std dev between processes: {texts[1]}",
        f"Std dev within processes: {texts[2]}",
        f"ICC (between / total variance): {icc}",
    ]


def format_process_stats(benchmark: Benchmark, stats: BenchmarkStats) -> list[str]:
    """perf's process-level block: the worker process is the unit; *stats*
    is the benchmark's :func:`~perf.analysis.summaries.benchmark_stats`."""
    figures = stats.figures
    lines = [f"Number of processes with values: {format_number(figures.processes if figures else 0)}"]
    if benchmark.get_clock() == "cpu":
        lines.insert(0, "Clock: CPU time of the worker thread (--clock cpu)")
    source = benchmark.get_counter_source()
    if source is not None:
        lines.insert(0, f"Counter: {source} (--metric instructions)")
    mean = stats.process_mean
    if figures is None or mean is None or stats.process_outliers is None:
        return lines
    lines.append(f"Mean of process means: {benchmark.format_value(mean)}")
    lines.extend(_format_interval(benchmark, stats))
    lines.extend(_format_variance_components(benchmark, mean, stats))
    lines.append(_format_outliers(benchmark, stats.process_outliers, "outlier process means"))
    lines.extend(_format_loop_overhead(benchmark, stats.loop_overhead, figures.median))
    if stats.interference is not None:
        lines.extend(_format_interference(stats.interference))
    if stats.counts is not None:
        processes = count_of(stats.counts.processes, "process", "processes")
        lines.append(f"Counts per loop, means of {processes} ({count_of(stats.counts.hash_seeds, 'hash seed')}):")
        lines.append(format_counts(stats.counts))
    return lines


def _format_interference(summary: Interference) -> list[str]:
    """What the workers saw of the machine: their CPU share, the processes
    that lost the CPU, and how the speed probe varied (issue 14)."""
    lines = []
    if summary.median_share is not None and summary.lowest_share is not None:
        text = (
            f"CPU share of the values: median {summary.median_share:.1%}, lowest {summary.lowest_share:.1%}; "
            f"{summary.switches} involuntary context switches"
        )
        if summary.applies:
            text += f"; {summary.marked} of {summary.measured} processes lost more than 5% to other processes"
        lines.append(text)
    if summary.probe_spread is not None:
        lines.append(
            f"Speed probe: the slowest process saw the machine {summary.probe_spread - 1:.1%} slower than the fastest"
        )
    return lines


def _format_loop_overhead(benchmark: Benchmark, overhead: float | None, median: float) -> list[str]:
    """The empty loop's time per iteration, beside the median value: part
    of every value, reported and never subtracted (doc/design.rst, R10)."""
    if overhead is None:
        return []
    share = f" ({overhead * 100.0 / median:.0f}% of the median value)" if median > 0 else ""
    return [f"Loop overhead (empty loop, included in the values): {benchmark.format_value(overhead)}{share}"]


def format_stats(benchmark: Benchmark, stats: BenchmarkStats) -> list[str]:
    """The ``stats`` text of one benchmark: pyperf's lines, an empty line,
    then perf's process-level block (no title, no checks); *stats* is its
    :func:`~perf.analysis.summaries.benchmark_stats`."""
    return [*format_pyperf_stats(benchmark, stats), "", *format_process_stats(benchmark, stats)]
