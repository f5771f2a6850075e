"""What the display commands show of a benchmark beyond the model's own
figures, computed once by the command and handed to :mod:`perf.render`,
which only lays it out.

* :func:`value_figures`: pyperf's figures of all the values (mean,
  standard deviation, median) and the count of processes, a
  :class:`ValueFigures`: the result line, the tables, dump and the CSV;
* :func:`benchmark_stats`: the figures of ``stats`` (those, the MAD, the
  percentiles, Tukey's fences and their outliers, the process-level
  block: the mean of the process means,
  its interval, the variance components, the loop overhead, what the
  machine did to the workers and the means of a count benchmark's counts),
  a :class:`BenchmarkStats`;
* :func:`file_findings`: the interval of the result line, the stability
  checks and the counts of each benchmark of a file (the HTML report), a
  :class:`BenchmarkFindings` per name;
* :func:`distribution_panels`: the samples, bins and densities of the
  distribution figure, a :class:`DistributionPanel` per benchmark name;
* :func:`summarize_files`: both, for the files of the HTML report, a
  :class:`FileSummaries`.

The mean, standard deviation, median and percentiles of all values are the
model's (:class:`~perf.Benchmark` caches them): read here, once, so that
perf.render only lays them out.

Must not: format text, read files, or print.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping, NamedTuple, Sequence

from perf.analysis import statistics
from perf.analysis.checks import Check, check_benchmark
from perf.analysis.density import AxisShape, axis_shape
from perf.analysis.intervals import Interval, benchmark_log_interval, benchmark_mean_interval
from perf.model.benchmark import Benchmark
from perf.model.run import Number
from perf.model.suite import BenchmarkSuite

if TYPE_CHECKING:
    from perf.analysis.counts import Counts
    from perf.analysis.interference import Interference

__all__ = [
    "TUKEY_FACTOR",
    "BenchmarkFindings",
    "BenchmarkStats",
    "DistributionPanel",
    "FileSummaries",
    "Fences",
    "STATS_PERCENTILES",
    "ValueFigures",
    "benchmark_stats",
    "distribution_panel",
    "distribution_panels",
    "file_findings",
    "summarize_files",
    "tukey_outliers",
    "value_figures",
]

#: Tukey's fence factor of the outliers of ``stats`` (mild outliers)
TUKEY_FACTOR = 1.5
#: the percentiles of ``stats``
STATS_PERCENTILES = (0, 5, 25, 50, 75, 95, 100)


class ValueFigures(NamedTuple):
    """pyperf's figures of all the values of a benchmark, and its processes."""

    #: the mean and the median of all values
    mean: float
    median: float
    #: their standard deviation (None: a single value)
    stdev: float | None
    #: the processes with values
    processes: int


def value_figures(benchmark: Benchmark) -> ValueFigures | None:
    """The :class:`ValueFigures` of *benchmark* (the model's statistics;
    None: no values, only calibration runs)."""
    count = benchmark.get_nvalue()
    if not count:
        return None
    stdev = benchmark.stdev() if count > 1 else None
    return ValueFigures(benchmark.mean(), benchmark.median(), stdev, len(benchmark.get_process_means()))


class Fences(NamedTuple):
    """Tukey's fences of some values and how many values lie outside."""

    low: float
    high: float
    #: values outside the closed interval [low, high]
    outside: int


def tukey_outliers(values: Sequence[Number], factor: float = TUKEY_FACTOR) -> Fences:
    """Tukey's fences of *values* (at least one) and the count outside them."""
    low, high = statistics.tukey_fences(values, factor)
    return Fences(low, high, statistics.count_outside(values, low, high))


class BenchmarkStats(NamedTuple):
    """The figures of ``stats`` that the model does not keep."""

    #: Tukey's fences of all values (``None``: no values)
    outliers: Fences | None
    #: the mean of the process means (``None``: no process with values;
    #: then every field below is ``None`` too)
    process_mean: float | None
    #: the t interval of the mean of process means (``None`` below 2 processes)
    interval: Interval | None
    #: ``(between, within)`` variances of the values grouped by process
    #: (``None`` below 2 processes, or when no process has 2 values)
    variance_components: tuple[float, float] | None
    #: Tukey's fences of the process means
    process_outliers: Fences | None
    #: the median loop overhead, seconds per statement (``None``: not measured)
    loop_overhead: float | None
    #: what the machine did to the workers (perf.analysis.interference)
    interference: Interference | None
    #: the mean, median and standard deviation of all values, the
    #: processes (None: no values)
    figures: ValueFigures | None
    #: the median absolute deviation of all values (None: no values)
    median_abs_dev: float | None
    #: (p, the p-th percentile of all values) for each of STATS_PERCENTILES
    #: (empty: no values)
    percentiles: tuple[tuple[int, float], ...]
    #: the means of the counts per loop of a count benchmark (None: not one)
    counts: Counts | None = None


def _variance_components(benchmark: Benchmark) -> tuple[float, float] | None:
    groups = [run.values for run in benchmark.get_runs() if run.values]
    if len(groups) < 2 or all(len(group) < 2 for group in groups):
        return None
    return statistics.variance_components(groups)


def benchmark_stats(benchmark: Benchmark) -> BenchmarkStats:
    """The :class:`BenchmarkStats` of *benchmark* (a benchmark with only
    calibration runs gets ``None`` everywhere)."""
    # the import costs, and only stats needs it
    from perf.analysis.benchmarks import loop_overhead
    from perf.analysis.counts import count_means
    from perf.analysis.interference import summarize

    figures = value_figures(benchmark)
    if figures is None:
        return BenchmarkStats(None, None, None, None, None, None, None, None, None, ())
    outliers = tukey_outliers(benchmark._get_sorted_values())
    percentiles = tuple((p, benchmark.percentile(p)) for p in STATS_PERCENTILES)
    means = benchmark.get_process_means()
    return BenchmarkStats(
        outliers=outliers,
        process_mean=statistics.mean(means),
        interval=benchmark_mean_interval(benchmark),
        variance_components=_variance_components(benchmark),
        process_outliers=tukey_outliers(means),
        loop_overhead=loop_overhead(benchmark),
        interference=summarize(benchmark),
        figures=figures,
        median_abs_dev=benchmark.median_abs_dev(),
        percentiles=percentiles,
        counts=count_means(benchmark),
    )


class BenchmarkFindings(NamedTuple):
    """What the HTML report shows of one benchmark of one file."""

    #: the interval of the result line (:func:`benchmark_log_interval`)
    interval: Interval | None
    #: the stability checks (without the ``too_many_runs`` advice)
    checks: tuple[Check, ...]
    #: the figures of its values (None: no values)
    figures: ValueFigures | None
    #: the means of the counts per loop of a count benchmark (None: not one)
    counts: Counts | None = None


def file_findings(suite: BenchmarkSuite) -> dict[str, BenchmarkFindings]:
    """The :class:`BenchmarkFindings` of each benchmark of *suite*, by name."""
    from perf.analysis.counts import count_means

    return {
        benchmark.get_name(): BenchmarkFindings(
            benchmark_log_interval(benchmark),
            tuple(check_benchmark(benchmark)),
            value_figures(benchmark),
            count_means(benchmark),
        )
        for benchmark in suite
    }


class DistributionPanel(NamedTuple):
    """One benchmark of the distribution figure, across files."""

    #: the indexes of the files drawn: those with values in the unit of
    #: the first file that has the benchmark
    files: tuple[int, ...]
    #: the values of each file drawn
    values: AxisShape
    #: the process means of each file drawn
    means: AxisShape


def distribution_panel(found: Sequence[Benchmark | None]) -> DistributionPanel:
    """The :class:`DistributionPanel` of a benchmark found (or ``None``)
    in each file; a file without values or in another unit is not drawn."""
    present = [(index, benchmark) for index, benchmark in enumerate(found) if benchmark is not None]
    # in the unit the figure shows: instruction counts apart from other integers
    unit = present[0][1].get_display_unit() if present else None
    drawn = [
        (index, benchmark)
        for index, benchmark in present
        if benchmark.get_nvalue() and benchmark.get_display_unit() == unit
    ]
    return DistributionPanel(
        tuple(index for index, _benchmark in drawn),
        axis_shape([benchmark.get_values() for _index, benchmark in drawn]),
        axis_shape([benchmark.get_process_means() for _index, benchmark in drawn]),
    )


def distribution_panels(suites: Sequence[BenchmarkSuite], names: Sequence[str]) -> dict[str, DistributionPanel]:
    """The :class:`DistributionPanel` of each benchmark of *names*."""
    tables = [{benchmark.get_name(): benchmark for benchmark in suite} for suite in suites]
    return {name: distribution_panel([table.get(name) for table in tables]) for name in names}


class FileSummaries(NamedTuple):
    """What the HTML report says of its files themselves."""

    #: for each file, the :class:`BenchmarkFindings` of each benchmark by name
    findings: Sequence[Mapping[str, BenchmarkFindings]]
    #: the panels of the distribution figure, by benchmark name
    panels: Mapping[str, DistributionPanel]


def summarize_files(suites: Sequence[BenchmarkSuite], panel_names: Sequence[str]) -> FileSummaries:
    """The findings of every file, and the distribution panels of the
    benchmarks *panel_names*."""
    return FileSummaries([file_findings(suite) for suite in suites], distribution_panels(suites, panel_names))
