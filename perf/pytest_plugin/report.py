"""The plugin's lines in pytest's terminal: the results table and notes.

Each benchmark test gets one row: its mean, the 95 % t interval of the
mean of its process means (perf's model: a process is one observation),
the standard deviation of the values, the fastest value, how many
processes and values, and the loops.  Tests measured in pytest's own
process (``benchmark.pedantic``) say so, and have no interval.  Counts
(``--perf-metric instructions``) are instructions per call, one value per
sample.

``--perf-compare`` shows compare_to's table (without ``-v``, one line
counts its busy-machine notes).  ``--benchmark-compare`` shows the means of this
session and of the saved runs (:func:`saved_comparison_table`), and says
when a saved run was measured by pytest-benchmark (:func:`other_tool_line`).

Must not: print (the plugin hands the lines to pytest's terminal), or
compute statistics (the interval is the one of :class:`BenchmarkStats`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from perf.model.metadata import COUNT_UNIT
from perf.pytest_plugin.fixture import BenchmarkStats
from perf.pytest_plugin.measure import IN_PYTEST
from perf.pytest_plugin.options import COUNT_SAMPLES, PytestBudget
from perf.render.units import format_timedelta

if TYPE_CHECKING:
    from perf.measure.parent.batches import Outcomes, Progress

#: perf's means over pytest-benchmark's, measured by both tools on the same
#: tests (the project's study of the plugin): the median, and the range by test
TOOL_RATIO = 0.91
TOOL_RATIO_RANGE = (0.73, 1.20)

#: the unit of perf's durations (perf.render.units) -> (factor, pytest-benchmark's name)
_UNITS = {"sec": (1.0, "s"), "ms": (1e3, "ms"), "us": (1e6, "us"), "ns": (1e9, "ns")}


def _unit(seconds: float) -> tuple[float, str]:
    return _UNITS[format_timedelta(seconds).split()[-1]]


def header_lines(budget: PytestBudget, name: str, xdist: bool, counting: bool, ignored: Sequence[str]) -> list[str]:
    """The lines of pytest's report header: the *budget* (named *name*), or
    the samples of counts; xdist; pytest-benchmark's *ignored* options."""
    if counting:
        line = (
            f"perf: instructions per call, counted under valgrind: {COUNT_SAMPLES} samples per benchmark, each "
            "a pair of worker processes"
        )
        line += ", before xdist runs the tests in parallel" if xdist else ""
        line += "; benchmark.pedantic runs once, unmeasured" if xdist else "; benchmark.pedantic is not counted"
    else:
        line = (
            f"perf: {budget.processes} worker processes x {budget.values} values per benchmark (--perf-budget {name})"
        )
        if xdist:
            line += ", measured before xdist runs the tests in parallel; benchmark.pedantic runs once, unmeasured"
        else:
            line += "; pedantic benchmarks run in pytest's process"
    lines = [line]
    if ignored:
        names = ", ".join("--" + option.replace("_", "-") for option in ignored)
        lines.append(f"perf: ignored pytest-benchmark options: {names}")
    return lines


def _row(stats: BenchmarkStats, factor: float, digits: int) -> list[str]:
    fields = stats.stats.as_dict()
    interval = stats.interval
    if interval is None:
        plus_minus = "-"
    else:
        half = (interval.high - interval.low) / 2
        plus_minus = f"±{half * factor:,.{digits}f} ({half / interval.estimate:.1%})" if interval.estimate else "-"
    if stats.measured_in == IN_PYTEST:
        where = f"in pytest, {fields['rounds']} rounds"
    elif stats.counted:
        where = str(stats.processes)
    else:
        where = f"{stats.processes} x {fields['rounds'] // max(stats.processes, 1)}"
    return [
        stats.name,
        f"{fields['mean'] * factor:,.{digits}f}",
        plus_minus,
        f"{fields['stddev'] * factor:,.{digits}f}",
        f"{fields['min'] * factor:,.{digits}f}",
        where,
        str(stats.iterations),
    ]


def _group_key(stats: BenchmarkStats) -> str:
    return stats.group or ""


def results_table(finished: Sequence[BenchmarkStats]) -> list[str]:
    """The table of every finished benchmark, a block per group."""
    lines: list[str] = []
    groups: dict[str, list[BenchmarkStats]] = {}
    for stats in finished:
        groups.setdefault(_group_key(stats), []).append(stats)
    for group in sorted(groups):
        members = groups[group]
        if all(stats.counted for stats in members):
            header = [f"Name ({COUNT_UNIT} per call)", "Mean", "95% interval", "StdDev", "Min", "Samples", "Loops"]
            rows = [header] + [_row(stats, 1.0, 1) for stats in members]
        else:
            factor, unit = _unit(min(stats.stats.as_dict()["mean"] for stats in members))
            header = [f"Name (time in {unit})", "Mean", "95% interval", "StdDev", "Min", "Processes x values", "Loops"]
            rows = [header] + [_row(stats, factor, 4) for stats in members]
        widths = [max(len(row[column]) for row in rows) for column in range(len(header))]
        width = sum(widths) + 2 * (len(widths) - 1)
        if group:
            lines.append(
                f" group {group!r}: {len(members)} benchmark{'s' if len(members) > 1 else ''} ".center(width, "-")
            )
        for index, row in enumerate(rows):
            cells = [row[0].ljust(widths[0])] + [
                cell.rjust(widths[column]) for column, cell in enumerate(row) if column
            ]
            lines.append("  ".join(cells).rstrip())
            if index == 0:
                lines.append("-" * width)
        lines.append("-" * width)
        lines.append("")
    if lines and any(stats.counted for stats in finished):
        lines.append(
            "Mean and StdDev: of the samples (instructions per call, counted by cachegrind; a sample is a pair of "
            "worker processes with its own hash seed); 95% interval: of the mean of the samples."
        )
    elif lines:
        lines.append(
            "Mean and StdDev: of every value (seconds per call); 95% interval: of the mean of the process means "
            "(each worker process is one observation)."
        )
    return lines


def progress_line(progress: Progress, benchmarks: int) -> str:
    """How far the worker processes are (with counts: the calibration, then the samples)."""
    from perf.measure.parent.batches import CALIBRATION, SAMPLE

    done = "" if progress.ended else " so far"
    if progress.stage == CALIBRATION:
        return (
            f"perf: loops calibrated in a worker process without valgrind: {progress.measured}/{benchmarks} "
            f"benchmarks{done} in {progress.seconds:.1f} s"
        )
    if progress.stage == SAMPLE:
        return (
            f"perf: sample {progress.process}/{progress.processes} (hash seed {progress.process}): "
            f"{progress.measured}/{benchmarks} benchmarks counted{done} in {progress.seconds:.1f} s"
        )
    return (
        f"perf: worker process {progress.process}/{progress.processes}: "
        f"{progress.measured}/{benchmarks} benchmarks measured{done} in {progress.seconds:.1f} s"
    )


def outcome_lines(outcomes: Outcomes, benchmarks: int, xdist: bool = False, counting: bool = False) -> list[str]:
    """After the workers: the benchmark tests they did not measure, and why
    (*xdist*: pedantic tests run once, unmeasured, beside xdist's others;
    *counting*: their rounds are times, not kept)."""
    lines = []
    if outcomes.in_parent:
        where = "they run in pytest's process"
        if xdist:
            where = "they run once, unmeasured, under xdist"
        elif counting:
            where = "they run in pytest's process, not counted (their rounds are times)"
        lines.append(f"perf: {len(outcomes.in_parent)} benchmark tests use benchmark.pedantic: {where}")
    if outcomes.errors:
        lines.append(f"perf: {len(outcomes.errors)} benchmark tests failed in a worker process: their tests will fail")
    missing = benchmarks - len(outcomes.runs) - len(outcomes.in_parent) - len(outcomes.errors)
    if missing > 0:
        where = "not counted" if counting else "measured in pytest's process if they call benchmark()"
        lines.append(
            f"perf: {missing} benchmark tests were not measured by the workers (skipped there, or benchmark() "
            f"not reached): {where}"
        )
    return lines


def saved_comparison_table(rows: Sequence[tuple[str, float, float | None]], unit: str = "seconds") -> list[str]:
    """``--benchmark-compare``: one row per benchmark of this session
    (``name (NOW)``) and per saved run it matches (``name (source)``), with
    its mean (in *unit*: seconds or instructions) and, for a saved run, how
    this session's mean differs."""
    if not rows:
        return []
    if unit == COUNT_UNIT:
        factor, digits, title = 1.0, 1, f"Name (mean, {COUNT_UNIT} per call)"
    else:
        factor, time_unit = _unit(min(mean for _, mean, _ in rows))
        digits, title = 4, f"Name (mean, time in {time_unit})"
    width = max(len(title), *(len(name) for name, _, _ in rows))
    lines = [f"{title:<{width}}  {'Mean':>14}  {'Change':>8}"]
    for name, mean, current in rows:
        change = "" if current is None else f"{current / mean - 1:+.1%}" if mean else "-"
        lines.append(f"{name:<{width}}  {mean * factor:14,.{digits}f}  {change:>8}".rstrip())
    return lines


def other_unit_line(sources: Sequence[str], unit: str) -> str:
    """``--benchmark-compare``: the saved runs *sources* hold benchmarks in
    the other unit than this session's *unit* (times against counts): those
    are not compared."""
    other = "seconds" if unit == COUNT_UNIT else COUNT_UNIT
    return (
        f"perf: not compared with the benchmarks of {', '.join(sources)} in {other} per call: "
        f"this session has {unit} per call"
    )


def other_tool_line(sources: Sequence[str]) -> str:
    """``--benchmark-compare``: the saved runs *sources* were measured by
    pytest-benchmark, so part of each Change is the tool's."""
    low, high = TOOL_RATIO_RANGE
    return (
        f"perf: {', '.join(sources)} {'was' if len(sources) == 1 else 'were'} measured by pytest-benchmark, whose "
        f"timings differ from perf's by the tool alone (on the same tests, perf's means were {TOOL_RATIO:.2f}x of "
        f"pytest-benchmark's, {low:.2f}x to {high:.2f}x by test): a Change between {low - 1:+.0%} and "
        f"{high - 1:+.0%} may be the tool's; save the baseline again with perf's plugin "
        "(--benchmark-save or --benchmark-autosave)"
    )
