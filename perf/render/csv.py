"""CSV text of a suite: ``convert --csv`` and ``convert --csv-summary``.

RFC 4180: comma-separated, quoted when needed, CRLF line ends, a header
row; numbers with a ``.`` decimal separator, floats as ``repr()`` writes
them, so that they read back exactly.

- :func:`csv_value_rows` (``--csv``): one row per value, warmups included
  (:data:`VALUE_COLUMNS`): the benchmark, the run's number (1-based,
  calibration runs included, as ``--include-runs`` counts), the process's
  number (1-based among the runs with values; empty for a calibration
  run), ``warmup`` or ``value``, the value's position among the run's
  warmups or values (1-based), the loop iterations the value is the
  average of (loops x inner loops), the value in the benchmark's unit, and
  the unit (``second``, ``byte``...);
- :func:`csv_summary_rows` (``--csv-summary``): one row per benchmark
  (:data:`SUMMARY_COLUMNS`): the unit, the processes and values counts, the
  mean, standard deviation, median, minimum and maximum of all values, and
  the 95 % confidence interval of the mean of process means (a process is
  one sample).  A figure that needs more values than there are is an empty
  cell.  The figures and the intervals are the caller's
  (:func:`perf.analysis.summaries.value_figures`,
  :func:`perf.analysis.intervals.benchmark_mean_interval`).

Must not: compute statistics, read or write files, print.
"""

from __future__ import annotations

import csv
import io
from typing import TYPE_CHECKING, Iterator, Sequence

from perf.model.suite import BenchmarkSuite

if TYPE_CHECKING:
    from perf.analysis.intervals import Interval
    from perf.analysis.summaries import ValueFigures

    #: what --csv-summary shows of a benchmark beyond its values: its
    #: figures and the interval of the mean of its process means
    Summary = tuple[ValueFigures | None, Interval | None]

#: the columns of --csv
VALUE_COLUMNS = ("benchmark", "run", "process", "kind", "index", "loops", "value", "unit")
#: the columns of --csv-summary
SUMMARY_COLUMNS = (
    "benchmark",
    "unit",
    "processes",
    "values",
    "mean",
    "std_dev",
    "median",
    "min",
    "max",
    "ci95_low",
    "ci95_high",
)


def _number(value: float) -> str:
    """An int or a float as Python writes it: exact when read back."""
    return repr(value)


def csv_value_rows(suite: BenchmarkSuite) -> Iterator[list[str]]:
    """The rows of ``--csv`` (without the header)."""
    for benchmark in suite:
        name, unit = benchmark.get_name(), benchmark.get_unit()
        process = 0
        for number, run in enumerate(benchmark.get_runs(), 1):
            process_cell = ""
            if run.values:
                process += 1
                process_cell = str(process)
            prefix = [name, str(number), process_cell]
            inner_loops = run.get_inner_loops()
            for index, (loops, value) in enumerate(run.warmups, 1):
                yield [*prefix, "warmup", str(index), str(loops * inner_loops), _number(value), unit]
            loops_cell = str(run.get_total_loops())
            for index, value in enumerate(run.values, 1):
                yield [*prefix, "value", str(index), loops_cell, _number(value), unit]


def csv_summary_rows(suite: BenchmarkSuite, summaries: Sequence[Summary]) -> Iterator[list[str]]:
    """The rows of ``--csv-summary`` (without the header); *summaries*
    are the figures of the benchmarks and the confidence intervals of
    their mean of process means, in the suite's order."""
    if len(summaries) != len(suite):
        raise ValueError(f"{len(summaries)} summaries for {len(suite)} benchmarks")
    for benchmark, (figures, interval) in zip(suite, summaries):
        values = benchmark.get_values()
        processes = figures.processes if figures is not None else 0
        row = [benchmark.get_name(), benchmark.get_unit(), str(processes), str(len(values))]
        if figures is not None:
            stdev = _number(figures.stdev) if figures.stdev is not None else ""
            row.extend([_number(figures.mean), stdev, _number(figures.median)])
            row.extend([_number(min(values)), _number(max(values))])
        else:
            row.extend([""] * 5)
        row.extend([_number(interval.low), _number(interval.high)] if interval is not None else ["", ""])
        yield row


def format_csv(suite: BenchmarkSuite, summaries: Sequence[Summary] | None = None) -> str:
    """The CSV text of ``--csv``, or with *summaries* (see
    :func:`csv_summary_rows`), of ``--csv-summary``."""
    output = io.StringIO(newline="")
    writer = csv.writer(output, lineterminator="\r\n", quoting=csv.QUOTE_MINIMAL)
    writer.writerow(SUMMARY_COLUMNS if summaries is not None else VALUE_COLUMNS)
    writer.writerows(csv_summary_rows(suite, summaries) if summaries is not None else csv_value_rows(suite))
    return output.getvalue()
