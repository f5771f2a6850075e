"""What is said around a suite comparison: the notes, warnings and errors
that ``compare_to`` prints and ``report`` lists under its table.

* :func:`comparison_error`: the error of a command that compares every
  benchmark the files share (``compare_to``, ``report``): no benchmark in
  common, or the first incompatible one (no values, different units or
  clocks: the rule of :func:`perf.analysis.suites.compare_suites`);
* :func:`chance_lines`: how many comparisons differ from 1x next to what
  chance alone gives (counted by :mod:`perf.analysis.finished`);
* :func:`ignored_lines`: the benchmarks of each file that another file
  lacks;
* :func:`build_lines`: which Python builds the files come from, when
  they differ (a note: comparing builds is usually the point);
* :func:`environment_warnings`: separate recordings from other hosts or
  CPUs, or far apart in time;
* :func:`adjustment_lines`: what each comparison corrected for a busy
  machine, or :func:`adjustment_count_lines`: one line that counts them.

Must not: compute statistics, read files, print, or raise (an error is
returned to the command, which decides).
"""

from __future__ import annotations

import datetime
from typing import Sequence

from perf.analysis.finished import FinishedComparison
from perf.analysis.suites import BenchmarkComparison, Differences, Incompatible, Reason, SuiteComparison
from perf.errors import ResultError
from perf.model.suite import BenchmarkSuite
from perf.render.compare import format_adjustment

__all__ = [
    "FAR_APART",
    "adjustment_count_lines",
    "adjustment_lines",
    "build_lines",
    "chance_lines",
    "comparison_error",
    "environment_warnings",
    "ignored_lines",
    "incompatible_message",
]

#: files recorded further apart than this get a drift warning
FAR_APART = datetime.timedelta(hours=1)


def incompatible_message(skipped: Incompatible, filenames: Sequence[str]) -> str:
    """Why *skipped* was not compared, naming the file (or each file's unit
    or clock)."""
    name = skipped.name
    if skipped.reason == Reason.NO_VALUES:
        index = next(index for index, benchmark in enumerate(skipped.benchmarks) if not benchmark.get_nvalue())
        return f"{filenames[index]}: benchmark {name!r} has no values (only calibration runs)"
    if skipped.reason == Reason.DIFFERENT_UNITS:
        listed = ", ".join(f"{b.get_unit()} in {filename}" for b, filename in zip(skipped.benchmarks, filenames))
        return f"benchmark {name!r} has different units: {listed}"
    # CPU time leaves out what wall time includes: their ratio is no speed-up
    listed = ", ".join(f"{b.get_clock()} in {filename}" for b, filename in zip(skipped.benchmarks, filenames))
    return f"benchmark {name!r} was timed with different clocks (--clock): {listed}"


def comparison_error(comparison: SuiteComparison, filenames: Sequence[str]) -> ResultError | None:
    """The error of a command that compares every benchmark in common: no
    benchmark in common, or the first one that cannot be compared; None
    when every benchmark in common was compared."""
    if not comparison.common:
        return ResultError("the files have no benchmark in common: " + ", ".join(filenames))
    if comparison.incompatible:
        return ResultError(incompatible_message(comparison.incompatible[0], filenames))
    return None


def ignored_lines(comparison: SuiteComparison, filenames: Sequence[str]) -> list[str]:
    """``Ignored benchmarks (2) of a.json: x, y``: for each file, its
    benchmarks that another file lacks."""
    lines = []
    for index, filename in enumerate(filenames):
        ignored = sorted(comparison.ignored(index))
        if ignored:
            lines.append(f"Ignored benchmarks ({len(ignored)}) of {filename}: {', '.join(ignored)}")
    return lines


def adjustment_lines(entries: Sequence[BenchmarkComparison], titles: Sequence[str]) -> list[str]:
    """What each comparison of separate recordings corrected for a busy
    machine, named after its benchmark (the HTML report lists them)."""
    lines: list[str] = []
    for entry in entries:
        for title, comparison in zip(titles[1:], entry.comparisons):
            lines.extend(f"{entry.name}: {line}" for line in format_adjustment(comparison, titles[0], title))
    return lines


def adjustment_count_lines(comparison: FinishedComparison, titles: Sequence[str]) -> list[str]:
    """In place of :func:`adjustment_lines`: a blank line and one line that
    counts the comparisons corrected for a busy machine and, when more have
    notes (a correction too small to move the ratio, a machine speed left
    uncorrected), those; nothing when none has a note."""
    noted = sum(1 for entry in comparison.entries if adjustment_lines([entry], titles))
    if not noted:
        return []
    corrected, compared = comparison.everything.corrected, comparison.everything.compared
    line = f"{corrected} of {compared} comparisons {'was' if corrected == 1 else 'were'} corrected for a busy machine"
    if noted == corrected:
        return ["", f"{line} (-v shows how)"]
    return ["", f"{line}, {noted} {'has a note' if noted == 1 else 'have notes'} on it (-v shows them)"]


def chance_lines(found: Differences | None) -> list[str]:
    """How many comparisons differ from 1x at their level, next to how
    many would by chance alone, and how many survive a false discovery
    rate (nothing for fewer than 2 comparisons: *found* is None)."""
    if found is None:
        return []
    alpha, significant, kept = found.alpha, found.significant, found.discoveries
    return [
        f"{found.total} comparisons, {significant} {'differs' if significant == 1 else 'differ'} from 1x "
        f"at {1 - alpha:.0%} confidence; chance alone would give about {found.expected:.2g} ({alpha:.0%} each); "
        f"{kept} {'remains' if kept == 1 else 'remain'} at a {alpha:.0%} false discovery rate (Benjamini-Hochberg)"
    ]


# --- separate recordings -------------------------------------------------------------


def _values_of(suite: BenchmarkSuite, key: str) -> list[str]:
    found: list[str] = []
    for benchmark in suite:
        # the shared common value, not a copy of get_metadata(): read only
        value = benchmark._get_common_value(key)
        if value is not None and str(value) not in found:
            found.append(str(value))
    return found


_MACHINE_KEYS = (("hostname", "hosts"), ("cpu_model_name", "CPUs"))


def _file_warnings(reference: BenchmarkSuite, suite: BenchmarkSuite, titles: tuple[str, str]) -> list[str]:
    lines = []
    for key, what in _MACHINE_KEYS:
        ref_values, new_values = _values_of(reference, key), _values_of(suite, key)
        if ref_values and new_values and ref_values != new_values:
            lines.append(
                f"WARNING: {titles[0]} and {titles[1]} come from different {what}: "
                f"{' / '.join(ref_values)} vs {' / '.join(new_values)}"
            )
    gap = _gap(reference, suite)
    if gap is not None and gap > FAR_APART:
        lines.append(f"WARNING: {titles[0]} and {titles[1]} were recorded {_format_gap(gap)} apart")
    return lines


def incomplete_warnings(titles: Sequence[str], entries: Sequence[BenchmarkComparison]) -> list[str]:
    """The compared benchmarks saved from a run that stopped early (Ctrl-C,
    a failed worker): fewer processes than planned (perf.analysis.checks,
    ``incomplete``)."""
    from perf.model.metadata import INCOMPLETE_KEY

    lines = []
    for entry in entries:
        for title, benchmark in zip(titles, [entry.reference, *entry.changed]):
            notes = dict.fromkeys(run._get(INCOMPLETE_KEY) for run in benchmark.get_runs() if run._has(INCOMPLETE_KEY))
            if notes:
                lines.append(f"WARNING: {entry.name} ({title}) is incomplete: {'; '.join(notes)}")
    return lines


def environment_warnings(
    suites: Sequence[BenchmarkSuite], titles: Sequence[str], comparison: FinishedComparison
) -> list[str]:
    """Differences between the reference file and each changed file that a
    comparison of separate recordings cannot cancel (none for the two sides
    of an interleaved run: the pairs cancel the drift)."""
    lines: list[str] = []
    for paired, suite, title in zip(comparison.paired, suites[1:], titles[1:]):
        if paired:
            continue
        lines.extend(_file_warnings(suites[0], suite, (titles[0], title)))
    if lines:
        lines.append(
            "The machine drifts between separate recordings and the comparison cannot cancel it; "
            "an interleaved run (--compare-to) measures both sides in alternation."
        )
    return lines


# --- Python builds -----------------------------------------------------------------


#: what tells two Python builds apart, in the order a note names it
_BUILD_KEYS = ("python_version", "python_implementation", "python_compiler", "python_cflags")


def build_lines(suites: Sequence[BenchmarkSuite], titles: Sequence[str]) -> list[str]:
    """``Python builds: py311 3.11.7 (64-bit), py312 3.12.1 (64-bit)``:
    for each changed file whose Python build differs from the reference's
    (its version, implementation, compiler or CFLAGS), the two builds,
    named by the first of these that differs.  A note, not a warning:
    comparing two builds is usually the point (for the two files of an
    interleaved run too)."""
    reference = _build_of(suites[0])
    lines = []
    for suite, title in zip(suites[1:], titles[1:]):
        described = _described_builds(reference, _build_of(suite))
        if described is not None:
            lines.append(f"Python builds: {titles[0]} {described[0]}, {title} {described[1]}")
    return lines


def _build_of(suite: BenchmarkSuite) -> dict[str, list[str]]:
    return {key: _values_of(suite, key) for key in _BUILD_KEYS}


def _differs(key: str, first: list[str], second: list[str]) -> bool:
    if not first or not second:
        return False  # unknown is not different
    if key == "python_cflags":  # the same flags in another order are the same build
        return _flags(first) != _flags(second)
    return first != second


def _flags(values: list[str]) -> set[str]:
    return {flag for value in values for flag in value.split()}


def _described_builds(first: dict[str, list[str]], second: dict[str, list[str]]) -> tuple[str, str] | None:
    """Each build by its version and the first thing that tells them apart
    (None: nothing does)."""
    key = next((key for key in _BUILD_KEYS if _differs(key, first[key], second[key])), None)
    if key is None:
        return None
    builds = (first, second)
    versions = [" / ".join(build["python_version"]) for build in builds]
    if key == "python_version":
        return versions[0], versions[1]
    if key == "python_implementation":
        details = [" / ".join(build[key]) + " " + version for build, version in zip(builds, versions)]
    elif key == "python_compiler":
        details = [f"{version} built with {' / '.join(build[key])}" for build, version in zip(builds, versions)]
    else:
        details = [
            f"{version} {_flags_detail(build[key], other[key])}"
            for build, other, version in zip(builds, builds[::-1], versions)
        ]
    return details[0].strip(), details[1].strip()


def _flags_detail(values: list[str], other: list[str]) -> str:
    """``with CFLAGS -O0 -g``: the flags of *values* that the *other*
    build lacks, else ``without CFLAGS -fwrapv``: those it lacks of the
    other's (each in the order it was given)."""
    only_here = _only(values, _flags(other))
    if only_here:
        return "with CFLAGS " + " ".join(only_here)
    return "without CFLAGS " + " ".join(_only(other, _flags(values)))


def _only(values: list[str], excluded: set[str]) -> list[str]:
    return list(dict.fromkeys(flag for value in values for flag in value.split() if flag not in excluded))


def _gap(first: BenchmarkSuite, second: BenchmarkSuite) -> datetime.timedelta | None:
    dates = first.get_dates(), second.get_dates()
    if not dates[0] or not dates[1]:
        return None
    (start1, end1), (start2, end2) = dates[0], dates[1]
    if end1 <= start2:
        return start2 - end1
    if end2 <= start1:
        return start1 - end2
    return datetime.timedelta(0)


def _format_gap(gap: datetime.timedelta) -> str:
    hours = gap.total_seconds() / 3600
    if hours < 48:
        return f"{hours:.0f} hours" if hours >= 2 else f"{hours * 60:.0f} minutes"
    return f"{hours / 24:.0f} days"
