"""Text of ``hist``: a histogram of the values of one or more benchmarks.

The lines match pyperf 2.10.0's ``pyperf hist``: every benchmark given in
one call shares the same buckets (the same benchmark from several files, so
that their histograms can be compared line by line), each bucket line is
``<bucket start>: <count> <bar>`` and an empty bucket shows ``|``.

Deviations from pyperf, where pyperf crashes or misleads:

* a benchmark without values (only calibration runs) gets the line
  :data:`NO_VALUES` instead of an exception;
* when all values are equal, pyperf uses buckets one unit wide (one second!),
  so a single value of 842 ns lands in the bucket "0.00 ns"; here the bucket
  width is the value itself, and its line shows the value.

The terminal is asked for its size only when the caller does not give it
(``terminal_size=None``).

Must not: compute statistics, read files, print.
"""

from __future__ import annotations

import collections
import shutil
from typing import NamedTuple, Optional, Sequence

from perf.model.benchmark import Benchmark
from perf.model.run import Number

#: line shown for a benchmark that only has calibration runs
NO_VALUES = "No values to show: the benchmark only has calibration runs"

#: default number of bins: the terminal height minus 3, at least 3, and at
#: most 25 unless extended
_MIN_BINS = 3
_MAX_BINS = 25
#: bar width limits (in characters) unless extended
_MIN_BAR = 3
_MAX_BAR = 79

Item = tuple[Optional[str], Benchmark]


class _Scale(NamedTuple):
    """Buckets shared by the benchmarks of one histogram."""

    width: float
    first: int
    last: int

    def bucket(self, value: Number) -> int:
        # truncation towards zero, as pyperf
        return int(value / self.width)

    def starts(self) -> list[float]:
        return [bucket * self.width for bucket in range(self.first, self.last + 1)]


def default_bins(terminal_lines: int, extend: bool = False) -> int:
    """Number of bins that fit in a terminal of *terminal_lines* lines."""
    bins = max(terminal_lines - 3, _MIN_BINS)
    return bins if extend else min(bins, _MAX_BINS)


def _scale(values: Sequence[Number], bins: int) -> _Scale:
    low = min(values)
    high = max(values)
    width = float(high - low) / bins or float(low)
    scale = _Scale(width, 0, 0)
    return _Scale(width, scale.bucket(low), scale.bucket(high))


def _format_bars(benchmark: Benchmark, scale: _Scale, columns: int, extend: bool) -> list[str]:
    counter = collections.Counter(scale.bucket(value) for value in benchmark.get_values())
    count_max = max(counter.values())
    count_width = len(str(count_max))
    # each start is formatted alone: its own unit and precision
    labels = tuple(benchmark.format_value(start) for start in scale.starts())
    label_width = max(len(label) for label in labels)
    bar_width = columns - (label_width + len(f": {count_max} #"))
    if not extend:
        bar_width = min(bar_width, _MAX_BAR)
    bar_width = max(bar_width, _MIN_BAR)
    line_k = float(bar_width) / count_max
    lines = []
    for bucket, label in zip(range(scale.first, scale.last + 1), labels):
        count = counter.get(bucket, 0)
        bar = "#" * round(count * line_k) or "|"
        lines.append(f"{label:>{label_width}}: {count:>{count_width}} {bar}")
    return lines


def format_histogram(
    benchmarks: Sequence[Item],
    bins: int | None = None,
    extend: bool = False,
    terminal_size: tuple[int, int] | None = None,
) -> list[str]:
    """Histogram lines of ``(title, benchmark)`` pairs on a shared scale.

    A title, when not None, is shown as ``[ title ]`` above its benchmark;
    benchmarks are separated by an empty line.  *bins* defaults to
    :func:`default_bins` of the terminal height.  *terminal_size* is
    ``(columns, lines)``; None asks :func:`shutil.get_terminal_size`
    (``COLUMNS``/``LINES``, else the terminal, else 80 x 24).  *extend*
    lifts the limits of 25 bins and 79 characters per bar.
    """
    columns, terminal_lines = terminal_size if terminal_size is not None else shutil.get_terminal_size()
    if not bins:
        bins = default_bins(terminal_lines, extend)
    all_values = [value for _title, benchmark in benchmarks for value in benchmark.get_values()]
    scale = _scale(all_values, bins) if all_values else None
    lines: list[str] = []
    for title, benchmark in benchmarks:
        if lines:
            lines.append("")
        if title:
            lines.append(f"[ {title} ]")
        if scale is None or not benchmark.get_values():
            lines.append(NO_VALUES)
        else:
            lines.extend(_format_bars(benchmark, scale, columns, extend))
    return lines
