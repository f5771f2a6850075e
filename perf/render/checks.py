"""Text of the stability checks: pyperf's warning block, with perf's names.

The checks themselves come from :mod:`perf.analysis.checks` (the command
runs them once and hands them over, each with its level); this module
owns every sentence.  Bullets that pyperf 2.10.0 prints keep its wording
word for word (users and CI scripts grep them), except pyperf's typo
"95% certainly", written "95% certainty"; perf's own checks get plain
sentences.  Layout of :func:`format_warnings` (the runner's result and the
``check`` command)::

    WARNING: the benchmark result may be unstable
    * <one bullet per warning>

    Try to rerun the benchmark with more runs, values and/or loops.
    Run 'python -m perf system tune' command to reduce the system jitter.
    Use python -m perf stats, python -m perf dump and python -m perf hist to analyze results.
    Use --quiet option to hide these warnings.
    <advice lines, e.g. "Benchmark was run more times than necessary ...">

    <information lines, e.g. "steady state: 4 warmup, 1 flat">

The commands that show a result file (``show``, ``stats``, ``hist``,
``metadata``, ``dump``) print one line instead of the block,
:func:`format_warning_summary`, pointing to ``check``::

    WARNING: the benchmark result may be unstable (2 warnings): run "python -m perf check bench.json" for details

``show`` starts with the ``incomplete`` check's line when a benchmark comes
from a run that stopped early (:func:`incomplete_notice`, and
:func:`incomplete_benchmarks_notice` for a file of several benchmarks).

Like pyperf, "python" is the base name of the running interpreter
(``python3``, ``pypy3``...) unless the caller names one, and the advice
lines follow the block without a blank line.

Must not: compute statistics or run the checks (only format the checks'
figures), read files, or print.
"""

from __future__ import annotations

import os
import sys
from typing import Callable, Sequence

from perf.analysis.checks import Check, Level
from perf.model.benchmark import Benchmark
from perf.render.units import join_blocks

__all__ = [
    "WARNING_TITLE",
    "format_check",
    "format_warning_summary",
    "format_warnings",
    "incomplete_benchmarks_notice",
    "incomplete_notice",
    "warning_summary_line",
]

WARNING_TITLE = "WARNING: the benchmark result may be unstable"


def _stdev(check: Check, benchmark: Benchmark) -> str:
    stdev, percent, mean = check.values
    return (
        f"the standard deviation ({benchmark.format_value(stdev)}) is {percent:.0f}% "
        f"of the mean ({benchmark.format_value(mean)})"
    )


def _min_max(check: Check, benchmark: Benchmark) -> str:
    value, percent, mean = check.values
    name = "minimum" if check.code == "min" else "maximum"
    difference = f"{percent:.0f}% greater" if percent >= 0 else f"{-percent:.0f}% smaller"
    return (
        f"the {name} ({benchmark.format_value(value)}) is {difference} than the mean ({benchmark.format_value(mean)})"
    )


def _short_raw(check: Check, benchmark: Benchmark) -> str:
    (shortest,) = check.values
    return f"the shortest raw value is only {benchmark.format_value(shortest)}"


def _value_outliers(check: Check, benchmark: Benchmark) -> str:
    count, nvalues = check.values
    verb = "is a severe outlier" if count == 1 else "are severe outliers"
    return f"{count} of {nvalues} values ({count * 100.0 / nvalues:.0f}%) {verb} (more than 3 IQR beyond the quartiles)"


def _process_outlier(check: Check, benchmark: Benchmark) -> str:
    process, percent, _mean, _median = check.values
    if benchmark.get_unit() == "second":
        if percent >= 0:
            return f"process {process} was {percent:.0f}% slower than the median of process means (noisy neighbour?)"
        return f"process {process} was {-percent:.0f}% faster than the median of process means"
    difference = f"{percent:.0f}% greater" if percent >= 0 else f"{-percent:.0f}% smaller"
    return f"the mean of process {process} was {difference} than the median of process means"


def _steady_state_mix(check: Check, benchmark: Benchmark) -> str:
    return "steady state: " + ", ".join(f"{count} {kind}" for kind, count in check.values)


def _precision(check: Check, benchmark: Benchmark) -> str:
    half_width, nprocesses, needed = check.values
    text = f"precision: the 95% confidence interval of the mean is +-{half_width:.1f}% with {nprocesses} processes"
    if half_width > 1.0:
        text += f"; about {needed} processes would make it +-1%"
    return text


def _incomplete_prefix(where: str | None) -> str:
    return f"incomplete: {where}: " if where else "incomplete: "


def incomplete_notice(check: Check, where: str | None = None) -> str:
    """The text of the ``incomplete`` check: ``check``'s bullet, and the
    first line ``show`` prints for a benchmark saved from a run that stopped
    early; *where* (a file's title, when ``show`` shows several) follows
    ``incomplete:``::

        incomplete: all processes come from a run that stopped early
        (interrupted after 10 of 24 processes): fewer processes than planned

    (one line).
    """
    count, nprocesses, notes = check.values
    which = "all" if count == nprocesses else f"{count} of {nprocesses}"
    return (
        f"{_incomplete_prefix(where)}{which} processes come from a run that stopped early ({'; '.join(notes)}): "
        "fewer processes than planned"
    )


#: the benchmarks an incomplete_benchmarks_notice() names before "and N more"
NAMED_BENCHMARKS = 5


def incomplete_benchmarks_notice(names: Sequence[str], shown: int, where: str | None = None) -> str:
    """The first line ``show`` prints for a file of several benchmarks
    (*shown* of them displayed) of which *names* come from a run that
    stopped early; each of their blocks starts with its
    :func:`incomplete_notice`::

        incomplete: 2 of 3 benchmarks come from a run that stopped early: second, third
    """
    which = f"all {shown}" if len(names) == shown else f"{len(names)} of {shown}"
    verb = "comes" if len(names) == 1 else "come"
    named = ", ".join(names[:NAMED_BENCHMARKS])
    if len(names) > NAMED_BENCHMARKS:
        named += f" and {len(names) - NAMED_BENCHMARKS} more"
    return f"{_incomplete_prefix(where)}{which} benchmarks {verb} from a run that stopped early: {named}"


def _loop_overhead(check: Check, benchmark: Benchmark) -> str:
    overhead, percent = check.values
    return (
        f"loop overhead: the empty timing loop takes {benchmark.format_value(overhead)} per iteration, "
        f"{percent:.0f}% of the median value; it is included, not subtracted "
        "(--duplicate N repeats the statement N times per iteration)"
    )


#: the checks whose text is a sentence with the check's values in it
_TEMPLATES = {
    "sample_size": "Not enough samples to get a stable result (95% certainty of less than 1% variation)",
    "too_many_runs": "Benchmark was run more times than necessary to get a stable result.\n"
    "Consider passing processes={0:d} to the Runner constructor to save time.",
    "first_value_outlier": "the first value of a process is an outlier in {0} of {1} processes: "
    "consider --warmups {2} or more",
    "no_steady_state": "{0} of {1} processes found no steady state: their values were still changing "
    "at the end of the process (run more values per process, or look for a slowdown)",
    "lost_cpu": "{0} of {1} processes lost more than 5% of their time to other processes "
    "({2} involuntary context switches): the machine was busy (compare_to leaves the time off "
    "the CPU out; --clock cpu measures CPU time)",
}
_FORMATTERS: dict[str, Callable[[Check, Benchmark], str]] = {
    "incomplete": lambda check, _: incomplete_notice(check),
    "stdev": _stdev,
    "min": _min_max,
    "max": _min_max,
    "short_raw": _short_raw,
    "value_outliers": _value_outliers,
    "process_outlier": _process_outlier,
    "steady_state_mix": _steady_state_mix,
    "loop_overhead": _loop_overhead,
    "precision": _precision,
}


def format_check(check: Check, benchmark: Benchmark) -> str:
    """The text of one check, values in the benchmark's unit.

    One line (a bullet without its ``"* "``), except ``too_many_runs``:
    pyperf's two sentences, separated by a newline.  An unknown code raises
    :class:`ValueError`.
    """
    if check.code in _TEMPLATES:
        return _TEMPLATES[check.code].format(*check.values)
    try:
        formatter = _FORMATTERS[check.code]
    except KeyError:
        raise ValueError(f"unknown check code: {check.code!r}") from None
    return formatter(check, benchmark)


def _python_name(python: str | None) -> str:
    if python is not None:
        return python
    return os.path.basename(sys.executable) or "python"


def _advice_and_information(checks: Sequence[Check], benchmark: Benchmark, lines: list[str]) -> list[str]:
    """*lines* followed by the advice lines, then (after an empty line if
    there is anything before them) the information lines."""
    for check in checks:
        if check.level is Level.ADVICE:
            lines.extend(format_check(check, benchmark).splitlines())
    return join_blocks(lines, [format_check(check, benchmark) for check in checks if check.level is Level.INFORMATION])


def format_warnings(checks: Sequence[Check], benchmark: Benchmark, python: str | None = None) -> list[str]:
    """Lines for *checks* (see the module documentation); ``[]`` for none.

    *python* is the interpreter named in the advice (default: the base name
    of ``sys.executable``, as pyperf does).
    """
    lines: list[str] = []
    warnings = [check for check in checks if check.level is Level.WARNING]
    if warnings:
        python = _python_name(python)
        lines.append(WARNING_TITLE)
        lines.extend(f"* {format_check(check, benchmark)}" for check in warnings)
        lines.append("")
        if benchmark.get_counter_source() is not None:
            # counts vary with the hash seed of each process, not with the system's jitter
            lines.append("Try to rerun the benchmark with more processes: each counts under its own hash seed.")
        else:
            lines.append("Try to rerun the benchmark with more runs, values and/or loops.")
            lines.append(f"Run '{python} -m perf system tune' command to reduce the system jitter.")
        lines.append(f"Use {python} -m perf stats, {python} -m perf dump and {python} -m perf hist to analyze results.")
        lines.append("Use --quiet option to hide these warnings.")
    return _advice_and_information(checks, benchmark, lines)


#: file names that cannot be given back to ``check`` (stdin, a string)
_NO_FILENAME = (None, "", "-", "<stdin>", "<string>")


def warning_summary_line(
    count: int, filename: str | None = None, name: str | None = None, python: str | None = None
) -> str:
    """``WARNING: the benchmark result may be unstable (2 warnings): run
    "python -m perf check bench.json" for details``.

    It starts with pyperf's title, so that scripts grepping it still find
    it.  *filename* is the result file (``FILE`` when there is none to
    name), *name* the benchmark, given with ``-b`` (for a file of several
    benchmarks).
    """
    import shlex

    words = [_python_name(python), "-m", "perf", "check"]
    if name is not None:
        words += ["-b", shlex.quote(name)]
    words.append("FILE" if filename in _NO_FILENAME else shlex.quote(str(filename)))
    plural = "warning" if count == 1 else "warnings"
    return f'{WARNING_TITLE} ({count} {plural}): run "{" ".join(words)}" for details'


def format_warning_summary(
    checks: Sequence[Check],
    benchmark: Benchmark,
    filename: str | None = None,
    name: str | None = None,
    python: str | None = None,
) -> list[str]:
    """:func:`format_warnings` with the warning block reduced to
    :func:`warning_summary_line` (advice and information lines are kept);
    ``[]`` for no check."""
    count = sum(1 for check in checks if check.level is Level.WARNING)
    lines = [warning_summary_line(count, filename, name, python)] if count else []
    return _advice_and_information(checks, benchmark, lines)
